// One More Round, Chapter 5 in the static page: ACT's halting arithmetic in JavaScript,
// so that the halting explorer works with no Python behind the page. Each
// function names the Python function it mirrors; the browser tests check them against
// recur.models.act.halting_weights.
"use strict";

// recur.models.act.halting_weights: Graves (2016), Eqs. 6-8, for one position's h_1..h_M.
function haltingWeights(h, eps) {
  if (!h.length) throw new Error("h needs at least one step");
  if (!(eps > 0 && eps < 1)) throw new Error(`eps must be in (0, 1), got ${eps}`);
  if (h.some((v) => v < 0 || v > 1)) {
    throw new Error("halting probabilities must lie in [0, 1]");
  }
  let total = 0;
  let last = h.length - 1; // Eq. 13: the cap, if the sum never reaches 1 - eps
  const totals = h.map((v) => (total += v)); // h_1 + ... + h_r
  const first = totals.findIndex((t) => t >= 1 - eps); // Eq. 7 (0-based)
  if (first >= 0) last = first;
  const remainder = 1 - (totals[last] - h[last]); // Eq. 8, computed as the library does
  const weights = h.map((v, r) => (r < last ? v : r === last ? remainder : 0)); // Eq. 6
  return { weights, nSteps: last + 1, remainder };
}

// recur.views.widgets.halting_explorer: sliders for h_1..h_M and epsilon; N, R, the weights
// and the ponder cost N + R (Eq. 10), with the weights drawn as bars.
function mountHaltingExplorer(root) {
  const h = JSON.parse(root.dataset.h);
  const slider = (name, value, min, max, step) =>
    `<label style="display:block">${name === "eps" ? "ε" : name} ` +
    `<input type="range" class="halt-${name}" ` +
    `min="${min}" max="${max}" step="${step}" value="${value}"> ` +
    `<span class="halt-${name}-value">${value}</span></label>`;
  root.innerHTML = h.map((v, r) => slider(`h${r + 1}`, v, 0, 1, 0.05)).join("") +
    slider("eps", root.dataset.eps, 0.01, 0.5, 0.01) +
    "<div class='halt-result'></div><div class='halt-bars'></div>";
  const read = (name) => Number(root.querySelector(`.halt-${name}`).value);
  const update = () => {
    const values = h.map((_, r) => read(`h${r + 1}`));
    const eps = read("eps");
    for (const name of [...values.keys()].map((r) => `h${r + 1}`).concat("eps")) {
      root.querySelector(`.halt-${name}-value`).textContent = read(name).toFixed(2);
    }
    const halt = haltingWeights(values, eps);
    const weights = halt.weights.map((p) => p.toFixed(2)).join(", ");
    const cost = (halt.nSteps + halt.remainder).toFixed(2);
    root.querySelector(".halt-result").innerHTML =
      `N = <b>${halt.nSteps}</b>, R = <b>${halt.remainder.toFixed(2)}</b>, weights ` +
      `p = [${weights}], ponder cost N + R = <b>${cost}</b>`;
    root.querySelector(".halt-bars").innerHTML = halt.weights.map((p, r) =>
      `<div style="display:flex;align-items:center;gap:6px"><span>p${r + 1}</span>` +
      `<span style="display:inline-block;height:0.9em;width:${(p * 20).toFixed(2)}em;` +
      `background:${root.dataset.color}"></span></div>`).join("");
  };
  root.querySelectorAll("input").forEach((input) => input.addEventListener("input", update));
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".halting-explorer").forEach(mountHaltingExplorer);
});
