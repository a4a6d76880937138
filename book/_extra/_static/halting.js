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

// Fig. 13 of Chapter 5 (recur.views.plots_halting.draw_halting) as an SVG: the h_r as grey
// bars, the weights p_r as coloured bars, the running sum h_1 + ... + h_r as a line with
// dots against the dashed line 1 - eps, and round N shaded. Its text alternative is
// built from the same numbers, so it says what the chart shows.
const HALT_CHART = { width: 420, height: 190, left: 34, right: 10, top: 10, bottom: 30 };

function runningSums(h) {
  let total = 0;
  return h.map((v) => (total += v));
}

function haltingChartText(h, eps, halt) {
  const sums = runningSums(h).map((t) => t.toFixed(2)).join(", ");
  const line = (1 - eps).toFixed(2);
  const crossed = runningSums(h)[halt.nSteps - 1] >= 1 - eps;
  const stop = crossed
    ? `it first reaches 1 − ε = ${line} at round ${halt.nSteps}, so N = ${halt.nSteps}`
    : `it never reaches 1 − ε = ${line}, so the cap stops at N = ${halt.nSteps}`;
  return `Running sum h_1 + … + h_r after each round: ${sums}; ${stop}, ` +
    `and the last weight is R = ${halt.remainder.toFixed(2)}.`;
}

function haltingChart(h, eps, halt, color) {
  const c = HALT_CHART, sums = runningSums(h);
  const top = Math.max(1.6, Math.max(...sums) + 0.1); // the y axis of Fig. 13
  const plotW = c.width - c.left - c.right, plotH = c.height - c.top - c.bottom;
  const slot = plotW / h.length;
  const x = (r) => c.left + slot * (r + 0.5); // r is 0-based
  const y = (v) => c.top + plotH * (1 - v / top);
  const bar = (r, v, shift, fill, cls) =>
    `<rect class="${cls}" x="${(x(r) + shift * slot - 0.2 * slot).toFixed(1)}" ` +
    `y="${y(v).toFixed(1)}" width="${(0.4 * slot).toFixed(1)}" ` +
    `height="${(y(0) - y(v)).toFixed(1)}" fill="${fill}" stroke="#555" stroke-width="0.5"/>`;
  const shade = `<rect class="halt-n" data-round="${halt.nSteps}" x="${(x(halt.nSteps - 1) - slot / 2).toFixed(1)}" ` +
    `y="${c.top}" width="${slot.toFixed(1)}" height="${plotH}" fill="#eee"/>`;
  const hBars = h.map((v, r) => bar(r, v, -0.2, "#bbbbbb", "halt-h-bar")).join("");
  const pBars = halt.weights.map((p, r) => bar(r, p, 0.2, color, "halt-p-bar")).join("");
  const points = sums.map((t, r) => `${x(r).toFixed(1)},${y(t).toFixed(1)}`).join(" ");
  const dots = sums.map((t, r) =>
    `<circle class="halt-sum-dot" data-sum="${t}" cx="${x(r).toFixed(1)}" ` +
    `cy="${y(t).toFixed(1)}" r="2.5" fill="#000"/>`).join("");
  const line = y(1 - eps).toFixed(1);
  const threshold = `<line class="halt-threshold" data-value="${1 - eps}" x1="${c.left}" x2="${c.width - c.right}" ` +
    `y1="${line}" y2="${line}" stroke="#000" stroke-dasharray="5 3"/>` +
    `<text x="${c.width - c.right}" y="${(y(1 - eps) - 4).toFixed(1)}" ` +
    `text-anchor="end" font-size="11">1 − ε = ${(1 - eps).toFixed(2)}</text>`;
  const rounds = h.map((_, r) => `<text x="${x(r).toFixed(1)}" y="${c.height - 14}" ` +
    `text-anchor="middle" font-size="11">${r + 1}</text>`).join("");
  const ticks = [0, 0.5, 1, 1.5].filter((v) => v <= top).map((v) =>
    `<text x="${c.left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" ` +
    `font-size="10">${v}</text>`).join("");
  const axes = `<line x1="${c.left}" x2="${c.width - c.right}" y1="${y(0)}" y2="${y(0)}" ` +
    `stroke="#555"/><text x="${c.left + plotW / 2}" y="${c.height - 2}" ` +
    `text-anchor="middle" font-size="11">round r</text>`;
  return `<svg class="halt-chart" role="img" viewBox="0 0 ${c.width} ${c.height}" ` +
    `style="width:100%;max-width:${c.width}px;height:auto" ` +
    `aria-label="${haltingChartText(h, eps, halt)}">` + shade + hBars + pBars +
    threshold + `<polyline class="halt-sum" points="${points}" fill="none" ` +
    `stroke="#000"/>` + dots + rounds + ticks + axes + "</svg>" +
    `<div class="halt-key" style="font-size:0.85em">grey: h_r (halting probability); ` +
    `coloured: p_r (ACT weight); line and dots: h_1 + … + h_r; dashed: 1 − ε; ` +
    `shaded: round N</div>`;
}

// recur.views.widgets.halting_explorer: sliders for h_1..h_M and epsilon; N, R, the weights
// and the ponder cost N + R (Eq. 10), drawn as Fig. 13 draws them.
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
    root.querySelector(".halt-bars").innerHTML =
      haltingChart(values, eps, halt, root.dataset.color);
  };
  root.querySelectorAll("input").forEach((input) => input.addEventListener("input", update));
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".halting-explorer").forEach(mountHaltingExplorer);
});
