// One More Round: every figure of a chapter links to its full-size image, so that a
// reader on a narrow screen (or anyone) can open it and look closer. A figure shrinks
// to fit its column; its letters are drawn large enough to read there even on a phone
// (recur.views.style.legible). Animation frames (the players) are left alone: they
// change as they play.
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
  }
});
