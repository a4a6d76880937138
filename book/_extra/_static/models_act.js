// One More Round in the static page: Chapter 6's ACT Transformer as the explorers run
// it in the reader's browser, on the weights the chapter trained
// (_static/models/NAME.js). Each function names the PyTorch code it mirrors; the browser
// tests check them against it on the same weights. It uses models.js's shared pieces
// (weights, linear, layerNorm, embed, linearRows), which the page loads first.
"use strict";

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

Object.assign(window.OneMoreRound, { actForward });
