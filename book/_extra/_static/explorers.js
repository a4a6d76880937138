// One More Round in the static page: the explorers of Chapters 2 and 6, computed in the
// reader's browser by models.js with the weights the build trained. Each
// mirrors a view of recur/views/widgets.py; bad input gets a message in the widget, and the
// widget keeps working.
"use strict";

// The folder of this script (.../_static/), to load the models next to it.
const STATIC_ROOT = document.currentScript
  ? document.currentScript.src.replace(/[^/]*$/, "")
  : "_static/";

// Load _static/models/NAME.js once (a script tag: works from a file:// page too).
function loadModel(name) {
  const models = window.OneMoreRound.models;
  if (models[name]) return Promise.resolve(models[name]);
  return new Promise((resolve, reject) => {
    const tag = document.createElement("script");
    tag.src = `${STATIC_ROOT}models/${name}.js`;
    tag.onload = () => resolve(window.OneMoreRound.models[name]);
    tag.onerror = () => reject(new Error(`the trained model ${name} is missing from this page`));
    document.head.appendChild(tag);
  });
}

function warning(box, text) {
  box.innerHTML = "";
  const warn = document.createElement("span");
  warn.style.color = "#b00";
  warn.textContent = "⚠ " + text;
  box.appendChild(warn);
}

// The fields and message line of recur.views.widgets.tabbed_explorer, plus a round
// slider.
function explorerParts(root) {
  const typed = ["a", "b"].map((k) => root.querySelector(`.explore-${k}`)?.value);
  root.innerHTML =
    "<label>a <input type='text' class='explore-a' size='24'></label> " +
    "<label>b <input type='text' class='explore-b' size='24'></label>" +
    "<div class='explore-message'></div>" +
    "<button type='button' class='explore-reveal'>how it ends</button>" +
    "<label class='explore-slider' style='display:block'>round " +
    "<input type='range' class='explore-round' min='1' value='1'> " +
    "<span class='explore-round-value'></span></label>" +
    "<div class='explore-view' style='overflow-x:auto'></div>";
  const part = (name) => root.querySelector(`.explore-${name}`);
  part("a").value = typed[0] ?? root.dataset.a; // a remount keeps the reader's sum
  part("b").value = typed[1] ?? root.dataset.b;
  return { a: part("a"), b: part("b"), message: part("message"), round: part("round"),
    roundValue: part("round-value"), view: part("view"), reveal: part("reveal") };
}

// Pairs checked as in recur.core.carry.pad_pair, with the width limit of this explorer and a
// note when one was padded.
function checkedPair(a, b, maxBits) {
  const [padA, padB] = padPair(a, b);
  if (padA.length > maxBits) {
    throw new Error(`this explorer takes sums of up to ${maxBits} bits; these have ` +
      `${padA.length}`);
  }
  const short = a.trim().length < b.trim().length ? "a" : "b";
  const padded = a.trim().length !== b.trim().length
    ? ` (${short} was padded with zeros to ${padA.length} bits)` : "";
  return { a: padA, b: padB, padded };
}

const rounds = (n) => `${n} round${n === 1 ? "" : "s"}`;

// Bits as a string, most significant first (positions n..0).
const msbFirst = (bits) => Array.from(bits).reverse().join("");

// A row of bits in monospace, wrong ones (against truth) on the palette's pink.
function bitRow(name, text, truth, colors, from = 0) {
  let spans = "";
  [...text].forEach((ch, k) => {
    const wrong = ch !== truth[from + k];
    spans += wrong ? `<span style="background:${colors.wrong}">${ch}</span>` : ch;
  });
  return `<tr><th style="text-align:right;padding-right:6px;vertical-align:top;` +
    `white-space:nowrap">${name}</th>` +
    `<td style="font-family:monospace;word-break:break-all">${spans}</td></tr>`;
}

// The bits a block of bitTable holds: as many as fit the box beside the row names (a
// character of the 13 px monospace is about 8 px wide), in whole bytes; 64 where the
// box has no width yet.
function bitsPerBlock(box) {
  const width = box.clientWidth;
  return width ? Math.max(8, 8 * Math.floor((width - 110) / 64)) : 64;
}

// Rows of bits (name and text, most significant first) as one table in blocks that fit
// the box: a block holds the same positions of every row, one under the other, so the
// rule, the model and the true sum of a position line up; the blocks are cut at whole
// multiples of perBlock from position 0, each headed by the positions it spans.
function bitTable(rows, truth, colors, perBlock) {
  const n = truth.length;
  let html = "<table>";
  for (let start = 0; start < n;) {
    const end = start + ((n - start) % perBlock || perBlock);
    if (n > perBlock) {
      html += `<tr><td></td><th style="text-align:left;font-weight:normal">positions ` +
        `${n - 1 - start} to ${n - end}</th></tr>`;
    }
    for (const [name, text] of rows) {
      html += bitRow(name, text.slice(start, end), truth, colors, start);
    }
    start = end;
  }
  return html + "</table>";
}

// recur.views.explorers._learned_verdict: when the learned readout is first right, and whether
// it stays right to the end.
function learnedVerdict(readouts, truth) {
  const right = readouts.map((text, r) => (text === truth ? r + 1 : 0)).filter((r) => r);
  if (!right.length) return `is not right within ${rounds(readouts.length)}`;
  const stays = right[right.length - 1] === readouts.length &&
    right.length === readouts.length - right[0] + 1;
  return `is first right after ${rounds(right[0])}` + (stays ? " and stays right" : "");
}

// The loop every model explorer shares (recur.views.widgets.tabbed_explorer's update):
// check the typed pair (bad input: a message, and the last good sum stays), time the
// model's own run(pair), then describe(pair, out) gives the message's first part, the
// verdict and the rounds for the slider (0: no slider); draw(round) shows one round.
// The verdict answers the page's "Predict" prompt, so it waits until the reader moves
// the slider or clicks "how it ends".
function runExplorer(root, ui, run, describe, draw) {
  const maxBits = Number(root.dataset.maxBits);
  let ready = false;
  let said = null;
  const tell = () => {
    const { note, verdict, padded, nRounds } = said;
    const revealed = root.dataset.revealed === "yes";
    ui.message.textContent = `${note}${revealed ? verdict : ""}${padded}. Computed in your ` +
      `browser in ${root.dataset.ms} ms.` + (nRounds ? " Drag the slider:" : "");
    ui.reveal.hidden = revealed || !verdict;
  };
  const update = () => {
    let pair;
    try {
      pair = checkedPair(ui.a.value, ui.b.value, maxBits);
    } catch (err) {
      return warning(ui.message, err.message);
    }
    const start = performance.now();
    const out = run(pair);
    root.dataset.ms = (performance.now() - start).toFixed(1);
    said = { ...describe(pair, out), padded: pair.padded };
    if (said.nRounds) {
      ui.round.max = said.nRounds;
      ui.round.value = Math.min(Number(ui.round.value), said.nRounds);
    }
    tell();
    ready = true;
    draw(Number(ui.round.value));
  };
  const reveal = () => {
    root.dataset.revealed = "yes";
    if (said) tell();
  };
  ui.a.addEventListener("input", update);
  ui.b.addEventListener("input", update);
  ui.round.addEventListener("input", () => {
    reveal();
    if (ready) draw(Number(ui.round.value));
  });
  ui.reveal.addEventListener("click", () => {  // "how it ends": the verdict and the last round
    reveal();
    if (!said || !said.nRounds) return;
    ui.round.value = said.nRounds;
    draw(said.nRounds);
  });
  update();
}

// Above an explorer that runs a model the reader trained in the page (its spec has the
// seed): whose it is, and a button back to the book's model (loaded again by name).
function markWhose(root, spec, mount, noun) {
  if (spec.seed === undefined) return;
  const line = document.createElement("div");
  line.className = "explore-whose";
  line.textContent = `Your ${noun}, seed ${spec.seed}. `;
  const back = document.createElement("button");
  back.type = "button";
  back.textContent = `back to the book's ${noun}`;
  back.addEventListener("click", () => mountModelExplorer(root, mount));
  line.appendChild(back);
  root.prepend(line);
}

// recur.views.explorers.learned_explorer in the page: Chapter 2's trained cell, round by round
// for 2 (n + 1) rounds, beside the exact rule of Chapter 1.
function mountCellExplorer(root, spec) {
  const colors = JSON.parse(root.dataset.colors);
  const ui = explorerParts(root);
  markWhose(root, spec, mountCellExplorer, "cell");
  let shown = null;
  const run = (pair) => window.OneMoreRound.cellReadouts(spec, pair.a, pair.b,
    2 * (pair.a.length + 1)).rounds.map(msbFirst);
  const describe = (pair, learned) => {
    const rule = parallelAdd(pair.a, pair.b);
    const truth = trueSum(rule);
    shown = { rule, learned, truth };
    return { nRounds: learned.length, note: `sum ${result(rule)}`,
      verdict: `: the exact rule settles after ${rounds(roundsToSettle(rule))}; the ` +
        `learned cell ${learnedVerdict(learned, truth)}` };
  };
  const draw = (r) => {
    const { rule, learned, truth } = shown;
    const settled = Math.min(r, rule.carries.length - 1);
    const ruleText = String(rule.carries[settled][rule.a.length]) + readout(rule, settled);
    ui.roundValue.textContent = `${r} of ${learned.length}`;
    const rows = [["exact rule", ruleText], ["learned", learned[r - 1]], ["true sum", truth]];
    ui.view.innerHTML = bitTable(rows, truth, colors, bitsPerBlock(ui.view)) +
      `<p><span style="background:${colors.wrong}">&nbsp;&nbsp;&nbsp;</span> ` +
      "differs from the true sum</p>";
  };
  runExplorer(root, ui, run, describe, draw);
}

// A cell shaded by a value in [0, 1] (h_r or the running sum), the value as its tooltip.
// Halted positions get an empty cell.
function shade(value, color, cellStyle) {
  if (Number.isNaN(value)) return `<td style="${cellStyle}"></td>`;
  const alpha = Math.round(255 * Math.min(1, Math.max(0, value))).toString(16).padStart(2, "0");
  const text = value.toFixed(2).replace(/^0/, ""); // .73; 1.00 when it is 1
  return `<td style="${cellStyle};font-size:70%;background:${color}${alpha}" ` +
    `title="${value.toFixed(4)}">${text}</td>`;
}

// One round of the ACT explorer: per position (most significant first), the bits, the
// rounds before its carry can be known, the steps it ran once it has halted (pink: it
// stopped before its carry could be known), h_r in round r (blank once halted), the
// readout of its state after round r, the answer (the mixed output's readout) in the
// last round, and the sum. The steps and the answer wait for the rounds that settle
// them, as the page's "Predict" prompt asks.
function actRoundTable(shown, r, colors, cellStyle) {
  const { out, wait, truth, nPositions } = shown;
  const cols = [...Array(nPositions).keys()].reverse(); // positions n..0
  const head = "<tr><td></td>" + cols.map((i) =>
    `<th style="font-size:70%">${i === nPositions - 1 ? "out" : i}</th>`).join("") + "</tr>";
  const cells = (name, fn) => `<tr><th style="text-align:right;padding-right:6px;` +
    `white-space:nowrap">${name}</th>${cols.map(fn).join("")}</tr>`;
  const plain = (text, fill = "") => `<td style="${cellStyle}${fill ? ";background:" + fill : ""}">${text}</td>`;
  const bits = out.bits;
  const now = out.roundReadouts[r - 1]; // each position's readout after round r
  const sums = truth.split("").reverse(); // LSB first
  return "<table style='border-collapse:collapse'>" + head +
    cells("a", (i) => plain(bits.bitsA[i])) + cells("b", (i) => plain(bits.bitsB[i])) +
    cells("carry known after", (i) => plain(wait[i])) +
    cells("steps N", (i) => (out.steps[i] <= r  // halted by round r; "·" while it runs
      ? plain(out.steps[i], out.steps[i] < wait[i] ? colors.wrong : "") : plain("·"))) +
    cells(`h in round ${r}`, (i) => shade(out.halting[r - 1][i], colors.halting, cellStyle)) +
    cells(`readout, round ${r}`, (i) => plain(now[i], String(now[i]) !== sums[i] ? colors.wrong : "")) +
    cells("answer", (i) => (r < out.halting.length ? plain("·")  // the answers wait for the end
      : plain(out.readout[i], String(out.readout[i]) !== sums[i] ? colors.wrong : ""))) +
    cells("true sum", (i) => plain(sums[i])) + "</table>";
}

// recur.views.explorers.act_explorer in the page: Chapter 6's ACT Universal Transformer on a
// typed sum, with a cap of 2 (n + 1) rounds.
function mountActExplorer(root, spec) {
  const colors = JSON.parse(root.dataset.colors);
  const cellStyle = root.dataset.cell;
  const ui = explorerParts(root);
  markWhose(root, spec, mountActExplorer, "model");
  let shown = null;
  const run = (pair) =>
    window.OneMoreRound.actForward(spec, pair.a, pair.b, 2 * (pair.a.length + 1));
  const describe = (pair, out) => {
    const wait = waitRounds(out.bits.bitsA, out.bits.bitsB);
    const truth = trueSum(parallelAdd(pair.a, pair.b));
    shown = { out, wait, truth, nPositions: out.steps.length };
    const wrong = [...msbFirst(out.readout)].filter((ch, k) => ch !== truth[k]).length;
    const early = Array.from(out.steps).filter((n, i) => n < wait[i]).length;
    return { nRounds: out.halting.length, note: `The model ran ${rounds(out.halting.length)}`,
      verdict: " and " + (wrong ? `got ${wrong} of ${truth.length} bits wrong`
        : "added the sum right") +
        `; ${early} of ${truth.length} positions stopped before their carry could be known` };
  };
  const draw = (r) => {
    ui.roundValue.textContent = `${r} of ${shown.out.halting.length}`;
    ui.view.innerHTML = actRoundTable(shown, r, colors, cellStyle);
  };
  runExplorer(root, ui, run, describe, draw);
}

// recur.views.explorers.deq_explorer in the page: Chapter 7's DEQ cell iterates from zeros
// until its state stops moving (cap 2 (n + 1)); the readout at that fixed point, and a
// slider through the iterations: the readout after each beside the exact rule after as
// many rounds (the carry walking) and how much the state moved in it (the settling).
function mountDeqExplorer(root, spec) {
  const colors = JSON.parse(root.dataset.colors);
  const ui = explorerParts(root);
  root.querySelector(".explore-slider").firstChild.textContent = "iteration ";
  let shown = null;
  const run = (pair) =>
    window.OneMoreRound.deqReadout(spec, pair.a, pair.b, 2 * (pair.a.length + 1));
  const describe = (pair, out) => {
    const rule = parallelAdd(pair.a, pair.b);
    const span = longestChainSpan(rule);
    const truth = trueSum(rule);
    shown = { out, rule, truth, tol: spec.options.tol };
    const fixed = msbFirst(out.readout);
    const wrong = [...fixed].filter((ch, k) => ch !== truth[k]).length;
    const cap = 2 * (pair.a.length + 1);
    return { nRounds: out.nIter, note: `The solver stopped after ${out.nIter} iterations ` +
      (out.converged ? "(the state had settled)" : `(the cap, ${cap}: it had not settled)`),
      verdict: `; the longest carry chain is ${span ? span[1] - span[0] : 0}; the readout ` +
        (out.converged ? "at the fixed point " : "where the solver stopped ") +
        (wrong ? `has ${wrong} wrong bits` : "is the true sum") };
  };
  const draw = (k) => {
    const { out, rule, truth, tol } = shown;
    const settled = Math.min(k, rule.carries.length - 1);
    const ruleText = String(rule.carries[settled][rule.a.length]) + readout(rule, settled);
    ui.roundValue.textContent = `${k} of ${out.nIter}`;
    const rows = [[`exact rule, round ${k}`, ruleText],
      [`DEQ, iteration ${k}`, msbFirst(out.rounds[k - 1])], ["true sum", truth]];
    ui.view.innerHTML = bitTable(rows, truth, colors, bitsPerBlock(ui.view)) +
      `<p>In iteration ${k} the state moved by <span class="deq-change" ` +
      `title="${out.changes[k - 1]}">${out.changes[k - 1].toExponential(1)}</span> of its size; the solver stops once ` +
      `that is below ${tol}. <span style="background:${colors.wrong}">&nbsp;&nbsp;&nbsp;</span>` +
      " differs from the true sum</p>";
  };
  runExplorer(root, ui, run, describe, draw);
}

function mountModelExplorer(root, mount) {
  loadModel(root.dataset.model)
    .then((spec) => mount(root, spec))
    .catch((err) => warning(root, err.message));
}

window.OneMoreRound.mountCellExplorer = mountCellExplorer; // for the page's trainer

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".cell-explorer").forEach((root) => mountModelExplorer(root, mountCellExplorer));
  document.querySelectorAll(".act-explorer").forEach((root) => mountModelExplorer(root, mountActExplorer));
  document.querySelectorAll(".deq-explorer").forEach((root) => mountModelExplorer(root, mountDeqExplorer));
});
