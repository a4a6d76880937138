// One More Round: every figure of a chapter links to its full-size image, so that a
// reader on a narrow screen (or anyone) can open it and read its labels.
// On a phone a figure keeps at least MIN_WIDTH px (its letters about 10 px, not the 8
// they shrink to in a 390 px column) and scrolls sideways inside the column instead.
// Animation frames (the players) are left alone: they change as they play.
const MIN_WIDTH = 520;
// A figure with its own size is wrapped by Sphinx in a link to the image already.
function fullSizeLink(img) {
  const existing = img.closest("a");
  if (existing) return existing;
  const src = img.getAttribute("src");
  if (!src || src.startsWith("data:")) return null;  // a data URL cannot open in a tab
  const link = document.createElement("a");
  link.href = src;
  link.className = "figure-full-size";
  link.title = "Open the figure at full size";
  img.replaceWith(link);
  link.appendChild(img);
  return link;
}

document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll("article img")) {
    if (img.id.startsWith("_anim_img")) continue;
    const link = fullSizeLink(img);
    if (!link) continue;
    link.style.display = "block";
    link.style.overflowX = "auto";  // wider than a phone's column: it scrolls inside
    const width = parseFloat(img.style.width) || 0;  // the figure's own size, in CSS px
    if (width) img.style.minWidth = `${Math.min(width, MIN_WIDTH)}px`;
  }
});
