// One More Round: the theme's buttons, its sidebar and the regions that scroll sideways,
// made usable with a screen reader, voice control and a keyboard (WCAG 2.1 A/AA). These
// parts exist only with JavaScript (the theme draws its buttons with it, and whether a
// table scrolls depends on the screen's width), so they are mended here.

// A button's spoken name contains the words it shows (WCAG 2.5.3, label in name), so a
// voice-control user can say what they see.
function nameButtonsByWhatTheyShow() {
  for (const field of document.querySelectorAll(".search-button-field")) {
    field.removeAttribute("aria-label");  // "Search" hid the visible "Ctrl+K"
    field.setAttribute("aria-keyshortcuts", "Control+K");
  }
}

// The colour-mode button shows one icon whose title ("Light", "Dark", "System Settings")
// counts as its text, which the theme's name "Color mode" leaves out: the name says
// both, and follows the mode as the button cycles through them.
function nameTheColourModeButton() {
  for (const button of document.querySelectorAll(".theme-switch-button")) {
    const name = () => {
      const mode = document.documentElement.dataset.mode || "auto";
      const icon = button.querySelector(`[data-mode="${mode}"]`);
      const shown = icon?.getAttribute("title") || icon?.querySelector("title")?.textContent;
      button.setAttribute("aria-label", shown ? `Color mode: ${shown}` : "Color mode");
    };
    name();
    new MutationObserver(name).observe(document.documentElement,
      {attributes: true, attributeFilter: ["data-mode"]});
  }
}

// The sidebar (the book's title, its search and its contents) is a landmark, so that
// no content of a page lies outside one and a screen reader can jump to it.
function sidebarIsALandmark() {
  const sidebar = document.getElementById("pst-primary-sidebar");
  if (!sidebar || sidebar.hasAttribute("role")) return;
  sidebar.setAttribute("role", "navigation");
  sidebar.setAttribute("aria-label", "Book");
}

// A region that scrolls sideways (a wide table in a phone's column) takes keyboard focus,
// so that the arrow keys can scroll it (WCAG 2.1.1); one that fits takes none, so the
// Tab key does not stop on it.
const SCROLLERS = "article div.cell_output table";

function focusWhereItScrolls() {
  for (const region of document.querySelectorAll(SCROLLERS)) {
    const scrolls = region.scrollWidth > region.clientWidth + 1;
    if (scrolls && !region.hasAttribute("tabindex")) region.setAttribute("tabindex", "0");
    if (!scrolls && region.getAttribute("tabindex") === "0") {
      region.removeAttribute("tabindex");
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  nameButtonsByWhatTheyShow();
  nameTheColourModeButton();
  sidebarIsALandmark();
  focusWhereItScrolls();
  window.addEventListener("resize", focusWhereItScrolls);
  window.addEventListener("load", focusWhereItScrolls);  // once fonts and maths are in
});
