// One More Round in the static page: the models trained while the book was built, run
// in the reader's browser. The weights come from _static/models/NAME.js
// (recur.views.export.write_model_script); each function below names the PyTorch code it
// mirrors, and the browser tests check them against it on the same weights. States are
// Float64Arrays of (positions x width), row-major; bits are least significant first,
// with the carry-out position on top (recur.core.tasks).
"use strict";
window.OneMoreRound = window.OneMoreRound || { models: {} };

// recur.views.export._unpacked: a packed weight (little-endian float32) -> its values, held
// as float64 (exactly the same numbers; the arithmetic below is float64 throughout).
function unpackWeight(packed) {
  const raw = atob(packed.data);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return Float64Array.from(new Float32Array(bytes.buffer));
}

// The weights of a spec, unpacked once: weights(spec)["block.attn.in_proj_weight"].
function weights(spec) {
  if (!spec.unpacked) {
    spec.unpacked = {};
    for (const [name, packed] of Object.entries(spec.weights)) {
      spec.unpacked[name] = unpackWeight(packed);
    }
  }
  return spec.unpacked;
}

// nn.Linear on one row: out[o] = b[o] + sum_k W[o, k] x[k], for W of shape (nOut, nIn).
function linear(w, b, x, xAt, nIn, out, outAt, nOut) {
  for (let o = 0; o < nOut; o++) {
    let sum = b[o];
    const row = o * nIn;
    for (let k = 0; k < nIn; k++) sum += w[row + k] * x[xAt + k];
    out[outAt + o] = sum;
  }
}

// nn.LayerNorm on one row of width d, in place (biased variance, eps inside the root).
function layerNorm(x, at, d, gain, bias, eps = 1e-5) {
  let mean = 0;
  for (let k = 0; k < d; k++) mean += x[at + k];
  mean /= d;
  let variance = 0;
  for (let k = 0; k < d; k++) variance += (x[at + k] - mean) ** 2;
  const scale = 1 / Math.sqrt(variance / d + eps);
  for (let k = 0; k < d; k++) x[at + k] = (x[at + k] - mean) * scale * gain[k] + bias[k];
}

// recur.core.tasks.batch_from_strings for one pair: a and b checked and padded (carry.js),
// as bits LSB first with a 0 + 0 position on top for the carry out.
function additionBits(a, b) {
  [a, b] = padPair(a, b);
  const n = a.length;
  const bitsA = new Uint8Array(n + 1);
  const bitsB = new Uint8Array(n + 1);
  for (let i = 0; i < n; i++) {
    bitsA[i] = Number(a[n - 1 - i]);
    bitsB[i] = Number(b[n - 1 - i]);
  }
  return { a, b, bitsA, bitsB, n: n + 1 };
}

// LocalCell.embed: E_i = W [a_i, b_i] + c, for every position.
function embed(w, prefix, bits, d) {
  const problem = new Float64Array(bits.n * d);
  const we = w[prefix + "embed.weight"];
  const be = w[prefix + "embed.bias"];
  for (let i = 0; i < bits.n; i++) {
    for (let o = 0; o < d; o++) {
      problem[i * d + o] = be[o] + we[2 * o] * bits.bitsA[i] + we[2 * o + 1] * bits.bitsB[i];
    }
  }
  return problem;
}

// ---------------------------------------------------------------- Chapter 2's cell

// LocalCell.step: z = s + E (injected), then s'_i = tanh(W2 relu(W1 [z_i, z_{i-1}])),
// snapped to -1 or +1 entry by entry for a holding cell, with a row of zeros under
// bit 0. ``loop`` holds the state one round back and, per position, whether the state
// moved since one and since two rounds back. A position whose own and lower states
// are what they were one round back gets the inputs it had then, so its new state is
// its state; if they are what they were two rounds back (a settled state that flips
// between two neighbouring floats), its new state is the one of one round back. Both
// are exact; they only save work once a region has settled.
// The same round is written twice more in cell_train.js (forward, settledForward): the
// trainer runs in a Web Worker made from its own text, which cannot reach this file.
// tests/test_browser_train.py checks the three give the same states; so that they do in
// every browser, all three take tanh from exact_math.js (loaded before this file).
const cellTanh = exactMath().tanh;
function cellStep(w, prefix, state, problem, n, d, inject, loop, snap = false) {
  const w1 = w[prefix + "update.0.weight"];
  const b1 = w[prefix + "update.0.bias"];
  const w2 = w[prefix + "update.2.weight"];
  const b2 = w[prefix + "update.2.bias"];
  const hiddenSize = b1.length;
  const z = (k) => (inject ? state[k] + problem[k] : state[k]); // s + E, as needed
  const pair = new Float64Array(2 * d);
  const hidden = new Float64Array(hiddenSize);
  const next = state.slice();
  const moved = new Uint8Array(n);
  const moved2 = new Uint8Array(n);
  const same = (flags, i) => !flags[i] && !(i > 0 && flags[i - 1]);
  for (let i = 0; i < n; i++) {
    if (same(loop.moved, i)) continue; // same inputs as one round back: same state
    if (same(loop.moved2, i)) { // same inputs as two rounds back
      for (let k = i * d; k < (i + 1) * d; k++) next[k] = loop.prev[k];
    } else {
      for (let k = 0; k < d; k++) {
        pair[k] = z(i * d + k);
        pair[d + k] = i > 0 ? z((i - 1) * d + k) : 0; // the state of the bit below
      }
      linear(w1, b1, pair, 0, 2 * d, hidden, 0, hiddenSize);
      for (let o = 0; o < d; o++) next[i * d + o] = b2[o];
      for (let j = 0; j < hiddenSize; j++) {
        const a = hidden[j];
        if (a <= 0) continue; // ReLU: a unit at 0 adds nothing to the next layer
        for (let o = 0; o < d; o++) next[i * d + o] += w2[o * hiddenSize + j] * a;
      }
      for (let k = i * d; k < (i + 1) * d; k++) next[k] = cellTanh(next[k]);
      if (snap) for (let k = i * d; k < (i + 1) * d; k++) next[k] = next[k] > 0 ? 1 : -1;
    }
    for (let k = i * d; k < (i + 1) * d; k++) {
      if (next[k] !== state[k]) moved[i] = 1;
      if (next[k] !== loop.prev[k]) moved2[i] = 1;
    }
  }
  return { next, loop: { prev: state, moved, moved2 } };
}

// The loop's history before round 1: everything moved.
function freshLoop(n, d) {
  return { prev: new Float64Array(n * d).fill(NaN), moved: new Uint8Array(n).fill(1),
    moved2: new Uint8Array(n).fill(1) };
}

// LocalCell.readout for every position: the sum bit's logit.
function cellLogits(w, prefix, state, n, d) {
  const logits = new Float64Array(n);
  linearRows(w[prefix + "readout.weight"], w[prefix + "readout.bias"], state, n, d, logits);
  return logits;
}
function linearRows(wr, br, state, n, d, out) {
  for (let i = 0; i < n; i++) linear(wr, br, state, i * d, d, out, i, 1);
}

// LocalCell.forward (recur.chapters.ch2_shared_update.learned_readouts): the readout bits after rounds
// 1..nRounds, each a Uint8Array (LSB first, carry out on top).
function cellReadouts(spec, a, b, nRounds) {
  if (!(nRounds >= 1)) throw new Error(`n_rounds must be >= 1, got ${nRounds}`);
  const w = weights(spec);
  const d = w["embed.bias"].length;
  const bits = additionBits(a, b);
  const problem = embed(w, "", bits, d);
  let state = spec.options.inject ? new Float64Array(problem.length) : problem.slice();
  let loop = freshLoop(bits.n, d);
  const sumBits = new Uint8Array(bits.n);
  const readout = new Float64Array(1);
  const rounds = [];
  for (let r = 0; r < nRounds; r++) {
    ({ next: state, loop } = cellStep(w, "", state, problem, bits.n, d, spec.options.inject, loop,
      spec.options.snap));
    for (let i = 0; i < bits.n; i++) { // LocalCell.readout, where the state moved
      if (!loop.moved[i]) continue;
      linear(w["readout.weight"], w["readout.bias"], state, i * d, d, readout, 0, 1);
      sumBits[i] = readout[0] > 0 ? 1 : 0;
    }
    rounds.push(sumBits.slice());
  }
  return { bits, rounds };
}

// ------------------------------------------------------------- Chapter 7's DEQ cell

// recur.models.fixedpoint._relative_residual for one example: |f(z) - z| / (|f(z)| + 1e-12).
function relativeResidual(fz, z) {
  let step = 0;
  let size = 0;
  for (let k = 0; k < z.length; k++) {
    step += (fz[k] - z[k]) ** 2;
    size += fz[k] ** 2;
  }
  return Math.sqrt(step) / (Math.sqrt(size) + 1e-12);
}

// EquilibriumCell.forward with plain iteration (recur.models.fixedpoint._iterate): z <- F(z + E)
// from zeros until the residual is below tol, at most max(2, cap) times; the readout at
// the fixed point. Also, per iteration (recur.models.running.solver_walk): the
// readout after it (``rounds``, LSB first) and the residual it left (``changes``).
function deqReadout(spec, a, b, cap) {
  const w = weights(spec);
  const d = w["cell.embed.bias"].length;
  const bits = additionBits(a, b);
  const problem = embed(w, "cell.", bits, d);
  let z = new Float64Array(problem.length);
  let nIter = 0;
  let residual = Infinity;
  let loop = freshLoop(bits.n, d);
  const sumBits = new Uint8Array(bits.n);
  const one = new Float64Array(1);
  const rounds = [];
  const changes = [];
  while (nIter < Math.max(2, cap)) {
    let fz;
    ({ next: fz, loop } = cellStep(w, "cell.", z, problem, bits.n, d, true, loop,
      spec.options.snap));
    residual = relativeResidual(fz, z);
    z = fz;
    nIter++;
    for (let i = 0; i < bits.n; i++) { // the readout, where the state moved
      if (!loop.moved[i]) continue;
      linear(w["cell.readout.weight"], w["cell.readout.bias"], z, i * d, d, one, 0, 1);
      sumBits[i] = one[0] > 0 ? 1 : 0;
    }
    rounds.push(sumBits.slice());
    changes.push(residual);
    if (residual < spec.options.tol) break;
  }
  const logits = cellLogits(w, "cell.", z, bits.n, d);
  return { bits, readout: Uint8Array.from(logits, (v) => (v > 0 ? 1 : 0)), nIter,
    converged: residual < spec.options.tol, rounds, changes };
}

// ------------------------------------------------------- Chapter 6's ACT Transformer

// recur.models.attention.banded_attention at position i: query i sees keys i - window .. i (slot j is
// key i - window + j, offset window - j), scores q.k / sqrt(d_head) plus the head's
// learned bias for that offset (UniversalTransformer.window_bias), softmax, values mixed.
function bandedAttention(w, qkv, i, d, opt, out, scratch) {
  const heads = opt.n_heads;
  const dHead = d / heads;
  const relative = w["relative"]; // absent without position="relative": no bias
  const offsets = relative ? relative.length / heads : 0;
  const { scores, mixed } = scratch;
  mixed.fill(0);
  for (let h = 0; h < heads; h++) {
    let top = -Infinity;
    for (let j = 0; j <= opt.window; j++) {
      const key = i - opt.window + j;
      if (key < 0) { scores[j] = -Infinity; continue; } // below bit 0: masked
      let dot = 0;
      for (let k = 0; k < dHead; k++) {
        dot += qkv[i * 3 * d + h * dHead + k] * qkv[key * 3 * d + d + h * dHead + k];
      }
      const offset = Math.min(opt.window - j, opt.max_offset) + opt.max_offset;
      scores[j] = dot / Math.sqrt(dHead) + (relative ? relative[h * offsets + offset] : 0);
      top = Math.max(top, scores[j]);
    }
    let total = 0;
    for (let j = 0; j <= opt.window; j++) total += (scores[j] = Math.exp(scores[j] - top));
    for (let j = 0; j <= opt.window; j++) {
      const key = i - opt.window + j;
      if (key < 0) continue;
      for (let k = 0; k < dHead; k++) {
        mixed[h * dHead + k] += (scores[j] / total) * qkv[key * 3 * d + 2 * d + h * dHead + k];
      }
    }
  }
  linear(w["block.attn.out_proj.weight"], w["block.attn.out_proj.bias"], mixed, 0, d, out, 0, d);
}

// UTBlock.forward at position i of x = H^{r-1} + E: Eq. 5 (attention, residual,
// LayerNorm), then Eq. 4 (transition, residual, LayerNorm). Writes the new state to out.
function blockAt(w, x, qkv, i, d, opt, out, scratch) {
  const { attended, hidden, back } = scratch;
  bandedAttention(w, qkv, i, d, opt, attended, scratch);
  for (let k = 0; k < d; k++) out[k] = x[i * d + k] + attended[k];
  layerNorm(out, 0, d, w["block.norm_attn.weight"], w["block.norm_attn.bias"]); // Eq. 5
  const ff = hidden.length;
  linear(w["block.transition.0.weight"], w["block.transition.0.bias"], out, 0, d, hidden, 0, ff);
  for (let k = 0; k < ff; k++) hidden[k] = Math.max(0, hidden[k]);
  linear(w["block.transition.2.weight"], w["block.transition.2.bias"], hidden, 0, ff, back, 0, d);
  for (let k = 0; k < d; k++) out[k] += back[k];
  layerNorm(out, 0, d, w["block.norm_out.weight"], w["block.norm_out.bias"]); // Eq. 4
}

// recur.models.act.step_weights for one position, in float32 as the library keeps its sums:
// p_r = h_r while it goes on, R = 1 - (h_1 + ... + h_{r-1}) when it halts (Eqs. 6, 8).
function stepWeight(h, total, threshold, last) {
  const halts = Math.fround(total + h) >= threshold || last;
  return { halts, p: halts ? Math.fround(1 - total) : h };
}

// The bits with a 0 + 0 position under bit 0 (UniversalTransformer.prepare's floor).
function withFloor(real, floor) {
  const n = real.n + floor;
  const bits = { bitsA: new Uint8Array(n), bitsB: new Uint8Array(n), n };
  bits.bitsA.set(real.bitsA, floor);
  bits.bitsB.set(real.bitsB, floor);
  return bits;
}

// Each pair read as a set, (min, max) = (a AND b, a OR b): UniversalTransformer.prepare
// with pair_as_set, so that 1 + 0 and 0 + 1 give the model one input.
function pairsAsSets(bits) {
  const bitsA = bits.bitsA.map((x, i) => Math.min(x, bits.bitsB[i]));
  const bitsB = bits.bitsA.map((x, i) => Math.max(x, bits.bitsB[i]));
  return { ...bits, bitsA, bitsB };
}

// recur.models.attention.sinusoid of one position (Eqs. 6-7), in float32 steps as torch.
function sinusoidRow(position, d) {
  const row = new Float64Array(d);
  for (let j = 0; j < d; j += 2) {
    const angle = Math.fround(position / Math.fround(Math.pow(10000, Math.fround(j / d))));
    row[j] = Math.fround(Math.sin(angle));
    if (j + 1 < d) row[j + 1] = Math.fround(Math.cos(angle));
  }
  return row;
}

// UniversalTransformer.signal: P^r for positions 0..n-1, (n x d), or null without one:
// the sinusoid of the position (position="sinusoid") plus that of the round r, counted
// from 0 as the library counts it (round_signal); a float32 sum, as in torch.
function roundSignal(opt, n, d, r) {
  const sinusoid = opt.position === "sinusoid";
  if (!sinusoid && !opt.round_signal) return null;
  const out = new Float64Array(n * d);
  const round = opt.round_signal ? sinusoidRow(r, d) : null;
  for (let i = 0; i < n; i++) {
    const place = sinusoid ? sinusoidRow(i, d) : null;
    for (let k = 0; k < d; k++) {
      out[i * d + k] = Math.fround((place ? place[k] : 0) + (round ? round[k] : 0));
    }
  }
  return out;
}

// One round of recur.models.act.act_loop at every position still running: the block, h_r
// (Eq. 5 of Graves 2016), p_r (Eqs. 6, 8) and the mixed state (Eq. 9); a halted
// position keeps its state (UT, Section 2.2), and its keys and values stay as they were.
// Returns h_r per position (NaN where halted), or null once every position has halted.
function actRound(w, opt, run, r, cap) {
  const { n, d, problem, qkv, total, steps, output, scratch } = run;
  const running = Array.from(total, (t) => t < run.threshold);
  if (!running.includes(true)) return null;
  const signal = roundSignal(opt, n, d, r); // P^r, or null
  const x = run.state.map((v, k) => v + (signal ? signal[k] : 0) +
    (opt.inject ? problem[k] : 0)); // H^{r-1} + P^r + E
  for (let i = 0; i < n; i++) {
    // a round signal changes every position's keys each round, halted or not
    if (run.moved[i] || opt.round_signal) linear(w["block.attn.in_proj_weight"], w["block.attn.in_proj_bias"], x, i * d, d, qkv, i * 3 * d, 3 * d);
  }
  const hs = new Float64Array(n).fill(NaN);
  const next = run.state.slice();
  const logit = new Float64Array(1);
  for (let i = 0; i < n; i++) {
    if (!running[i]) continue;
    blockAt(w, x, qkv, i, d, opt, scratch.newState, scratch);
    linear(w["halting.linear.weight"], w["halting.linear.bias"], scratch.newState, 0, d, logit, 0, 1);
    const h = Math.fround(1 / (1 + Math.exp(-logit[0]))); // Eq. 5
    const { p } = stepWeight(h, total[i], run.threshold, r === cap - 1);
    hs[i] = h;
    total[i] = Math.fround(total[i] + p);
    steps[i] += 1;
    for (let k = 0; k < d; k++) {
      output[i * d + k] += p * scratch.newState[k]; // Eq. 9
      next[i * d + k] = scratch.newState[k];
    }
  }
  run.state = next;
  run.moved = running;
  return hs;
}

// UniversalTransformer.forward with ACT: every position runs the shared block until its
// h_1 + h_2 + ... reaches 1 - eps (or the cap). Returns the readout, the readout of the
// state after each round, the steps N each position ran and its h_r per round (NaN once
// halted).
function actForward(spec, a, b, cap) {
  if (!(cap >= 1)) throw new Error(`max_steps must be >= 1, got ${cap}`);
  const w = weights(spec);
  const opt = spec.options;
  const d = w["embed.bias"].length;
  const real = additionBits(a, b);
  const floor = opt.floor ? 1 : 0; // a bit under bit 0 that no one reads out
  const n = real.n + floor;
  const floored = withFloor(real, floor);
  const problem = embed(w, "", opt.pair_as_set ? pairsAsSets(floored) : floored, d);
  const run = {
    n, d, problem,
    state: opt.inject ? new Float64Array(n * d) : problem.slice(), // H^0
    output: new Float64Array(n * d), // the mixed state
    total: new Float64Array(n), // h_1 + ... so far, in float32 steps
    steps: new Int32Array(n),
    threshold: Math.fround(1 - opt.act_eps),
    qkv: new Float64Array(n * 3 * d), // queries, keys, values of every position
    moved: Array(n).fill(true), // whose state changed in the last round
    scratch: { scores: new Float64Array(opt.window + 1), mixed: new Float64Array(d),
      attended: new Float64Array(d), back: new Float64Array(d), newState: new Float64Array(d),
      hidden: new Float64Array(w["block.transition.0.bias"].length) }, // reused buffers
  };
  const halting = [];
  const roundReadouts = []; // the readout of each position's state after each round
  const stateLogits = new Float64Array(n);
  for (let r = 0; r < cap; r++) {
    const hs = actRound(w, opt, run, r, cap);
    if (!hs) break;
    halting.push(hs.slice(floor));
    // a halted position keeps its state, so its readout stays (readouts_by_round)
    linearRows(w["readout.weight"], w["readout.bias"], run.state, n, d, stateLogits);
    roundReadouts.push(Uint8Array.from(stateLogits.slice(floor), (v) => (v > 0 ? 1 : 0)));
  }
  const logits = new Float64Array(n);
  linearRows(w["readout.weight"], w["readout.bias"], run.output, n, d, logits);
  return {
    bits: real,
    logits: logits.slice(floor),
    readout: Uint8Array.from(logits.slice(floor), (v) => (v > 0 ? 1 : 0)),
    roundReadouts,
    steps: run.steps.slice(floor),
    halting,
  };
}

Object.assign(window.OneMoreRound, { cellReadouts, deqReadout, actForward, additionBits });
