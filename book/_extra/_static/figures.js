// One More Round: every figure of a chapter links to its full-size image, so that a
// reader on a narrow screen (or anyone) can open it and read its labels (issue 19).
// Animation frames (the players) are left alone: they change as they play.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll("article img")) {
    if (img.closest("a") || img.id.startsWith("_anim_img")) continue;
    const src = img.getAttribute("src");
    if (!src || src.startsWith("data:")) continue;  // a data URL cannot open in a tab
    const link = document.createElement("a");
    link.href = src;
    link.className = "figure-full-size";
    link.title = "Open the figure at full size";
    img.replaceWith(link);
    link.appendChild(img);
  }
});
