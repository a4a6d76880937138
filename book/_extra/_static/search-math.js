// One More Round: search results show a snippet of each page's text, which Sphinx reads
// from the page's HTML, where maths is still raw TeX ("\(d \ge 1\)"). This turns the
// maths in a snippet into plain text ("d ≥ 1") before it is shown.
"use strict";

const TEX_WORDS = {
  ge: "≥", le: "≤", ne: "≠", approx: "≈", cdot: "·", times: "×", varepsilon: "ε",
  epsilon: "ε", tau: "τ", lambda: "λ", rho: "ρ", beta: "β", sum: "Σ", prod: "Π",
  partial: "∂", infty: "∞", to: "→", mid: "|", lceil: "⌈", rceil: "⌉", dots: "…",
  ldots: "…", top: "⊤", star: "*", in: "∈",
};

// TeX to readable text: known commands become symbols, wrappers like \text{x} and
// \mathcal{L} keep their letters, spacing commands and braces go.
function texToText(tex) {
  return tex
    .replace(/\\(?:operatorname|text|mathrm|mathcal|mathbb|mathbf)\{([^}]*)\}/g, "$1")
    .replace(/\\([a-zA-Z]+)/g, (_, word) => TEX_WORDS[word] ?? "")
    .replace(/\\[,;:! ]/g, " ")
    .replace(/\\\|/g, "‖")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function plainMaths(text) {
  return text
    .replace(/\\\(([\s\S]*?)\\\)/g, (_, tex) => texToText(tex))
    .replace(/\\\[([\s\S]*?)\\\]/g, (_, tex) => texToText(tex));
}

document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const original = Search.htmlToText;
  Search.htmlToText = (html, anchor) => plainMaths(original(html, anchor));
});
