// One More Round, Chapter 1 in the static page: the parallel-carry rule in JavaScript,
// so that a reader of the HTML book can type two numbers with no Python behind the page
//. Each function names the Python function of recur/core/carry.py (or
// recur/views/widgets.py) it mirrors; the browser tests check them against the library.
"use strict";

// recur.core.carry.check_bits: a non-empty string of 0s and 1s, else an Error that says why.
function checkBits(s, name) {
  s = s.trim();
  if (!s) throw new Error(`${name} is empty; type at least one binary digit`);
  const bad = [...new Set(s.replace(/[01]/g, ""))].sort();
  if (bad.length) {
    const listed = bad.map((c) => `'${c}'`).join(", ");
    throw new Error(`${name} '${s}' is not binary: it contains ${listed}`);
  }
  return s;
}

// recur.core.carry.pad_pair: both checked, the shorter left-padded with zeros.
function padPair(a, b) {
  a = checkBits(a, "a");
  b = checkBits(b, "b");
  const width = Math.max(a.length, b.length);
  return [a.padStart(width, "0"), b.padStart(width, "0")];
}

// recur.core.carry.parallel_add: every round of the rule, until the carries repeat.
// carries[r][i] is the carry into bit i after r rounds (bit 0 first; index n: out).
function parallelAdd(a, b) {
  [a, b] = padPair(a, b);
  const n = a.length;
  const bit = (s, i) => Number(s[n - 1 - i]); // bit i, least significant first
  let carry = new Array(n + 1).fill(0); // all carries 0 before round 1
  const carries = [carry];
  for (;;) {
    const next = new Array(n + 1).fill(0); // recur.core.carry.step
    for (let i = 0; i < n; i++) {
      const gen = bit(a, i) & bit(b, i);
      const prop = bit(a, i) ^ bit(b, i);
      next[i + 1] = gen | (prop & carry[i]);
    }
    carries.push(next);
    if (next.every((c, i) => c === carry[i])) break;
    carry = next;
  }
  return { a, b, carries };
}

// CarryTrace.readout: the n-bit readout after r rounds, most significant bit first.
function readout(trace, r) {
  const n = trace.a.length;
  let out = "";
  for (let i = n - 1; i >= 0; i--) {
    const prop = Number(trace.a[n - 1 - i]) ^ Number(trace.b[n - 1 - i]);
    out += String(prop ^ trace.carries[r][i]);
  }
  return out;
}

// CarryTrace.rounds_to_settle, .true_sum and .result.
function roundsToSettle(trace) {
  const same = (r) => trace.carries[r].every((c, i) => c === trace.carries[r - 1][i]);
  let r = 1;
  while (!same(r)) r++;
  return r - 1;
}
function trueSum(trace) {
  const total = BigInt("0b" + trace.a) + BigInt("0b" + trace.b);
  return total.toString(2).padStart(trace.a.length + 1, "0");
}
function result(trace) {
  const r = roundsToSettle(trace);
  const out = trace.carries[r][trace.a.length];
  return (out ? "1" : "") + readout(trace, r);
}

// recur.core.carry.longest_chain_span: [low, high] bit positions of the longest chain.
function longestChainSpan(trace) {
  const n = trace.a.length;
  let best = null;
  let start = null;
  for (let i = 0; i < n; i++) {
    const ai = trace.a[n - 1 - i];
    const bi = trace.b[n - 1 - i];
    if (ai === "1" && bi === "1") start = i; // generates
    else if (ai === bi) start = null; // kills
    const top = start === null ? null : i + 1; // the carry reaches bit i + 1
    if (top !== null && (!best || top - start > best[1] - best[0])) best = [start, top];
  }
  return best;
}

// recur.core.carry.wait_rounds on bits least significant first (the carry-out position
// included): the rounds before a rule that reads one bit below per round can know the
// carry into each position, at least 1 (recur.chapters.ch6_measures.batch_wait_rounds).
function waitRounds(bitsA, bitsB) {
  const wait = new Int32Array(bitsA.length);
  let lastStop = -1; // the highest position below i whose bits do not propagate
  for (let i = 0; i < bitsA.length; i++) {
    wait[i] = Math.max(i - Math.max(lastStop, 0), 1);
    if (bitsA[i] === bitsB[i]) lastStop = i;
  }
  return wait;
}

// recur.views.widgets.round_html: the state after r rounds as a table.
function roundTable(trace, r, colors, cell) {
  const n = trace.a.length;
  const truth = trueSum(trace);
  const span = longestChainSpan(trace);
  const carriesHigh = [...trace.carries[r]].reverse().join(""); // out, n-1, ..., 0
  const before = r ? [...trace.carries[r - 1]].reverse() : null;
  const rows = [
    ["a", " " + trace.a],
    ["b", " " + trace.b],
    ["carry in", carriesHigh],
    ["readout", String(trace.carries[r][n]) + readout(trace, r)],
  ];
  let head = "<tr><td></td><th style='font-size:70%'>out</th>";
  for (let i = n - 1; i >= 0; i--) head += `<th style='font-size:70%'>${i}</th>`;
  let body = "";
  for (const [name, text] of rows) {
    body += `<tr><th style="text-align:right;padding-right:6px">${name}</th>`;
    [...text].forEach((ch, col) => {
      let fill = ch === "1" ? colors.one : colors.zero;
      if (name === "carry in" && before && Number(ch) !== before[col]) fill = colors.moved;
      else if (name === "readout" && ch !== truth[col]) fill = colors.wrong;
      const position = n - col;
      const chain = name === "readout" && span && span[0] <= position && position <= span[1];
      const edge = chain ? `;border-bottom:4px solid ${colors.chain}` : "";
      body += `<td style="${cell};background:${fill}${edge}">${ch}</td>`;
    });
    body += "</tr>";
  }
  const longest = span ? span[1] - span[0] : 0;
  const rounds = trace.carries.length - 1;
  return `<table>${head}</tr>${body}</table><p>after <b>${r}</b> of ${rounds} rounds; ` +
    `longest chain: ${longest}</p>`;
}

// recur.views.widgets.carry_explorer, for the static page: two fields, a message, round tabs.
function mountCarryExplorer(root) {
  const colors = JSON.parse(root.dataset.colors);
  const cell = root.dataset.cell; // recur.views.widgets.CELL: one style for both explorers
  const maxBits = Number(root.dataset.maxBits);
  root.innerHTML =
    "<label>a <input type='text' class='carry-a'></label> " +
    "<label>b <input type='text' class='carry-b'></label>" +
    "<div class='carry-message'></div><div class='carry-tabs'></div>" +
    "<div class='carry-round'></div>";
  const [fieldA, fieldB] = [root.querySelector(".carry-a"), root.querySelector(".carry-b")];
  [fieldA.value, fieldB.value] = [root.dataset.a, root.dataset.b];
  const message = root.querySelector(".carry-message");
  const tabs = root.querySelector(".carry-tabs");
  const shown = root.querySelector(".carry-round");
  const update = () => {
    let trace;
    try {
      trace = parallelAdd(fieldA.value, fieldB.value);
      if (trace.a.length > maxBits) {
        throw new Error(`the explorer shows sums of up to ${maxBits} bits; these have ` +
          `${trace.a.length} (call the library directly)`);
      }
    } catch (err) {
      message.innerHTML = "";
      const warn = document.createElement("span");
      warn.style.color = "#b00";
      warn.textContent = "⚠ " + err.message; // the last good sum stays on screen
      message.appendChild(warn);
      return;
    }
    const sum = result(trace);
    message.textContent = `sum ${sum} = ${BigInt("0b" + sum)}; settles after ` +
      `${roundsToSettle(trace)} rounds. Click a round:`;
    tabs.innerHTML = "";
    trace.carries.forEach((_, r) => {
      const button = document.createElement("button");
      button.textContent = `round ${r}`;
      button.className = "carry-tab";
      button.onclick = () => { shown.innerHTML = roundTable(trace, r, colors, cell); };
      tabs.appendChild(button);
    });
    shown.innerHTML = roundTable(trace, 0, colors, cell);
  };
  fieldA.addEventListener("input", update);
  fieldB.addEventListener("input", update);
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".carry-explorer").forEach(mountCarryExplorer);
});
