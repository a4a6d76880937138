// One More Round in the static page: Chapter 6's ACT Transformer as the explorers run
// it in the reader's browser, on the weights the chapter trained (_static/models/NAME.js).
// The forward pass is the trainer's (act_model.js's forward, on the page's
// window.OneMoreRound.act), run without a tape on one sum, with the model's own options,
// its position and round signal, and ACT's sums in float32 as the library keeps them;
// the browser tests check it against PyTorch on the same weights. This file adds what
// only the explorer needs: the sinusoids and the shape of its answer. It uses
// models.js's weights and additionBits, which the page loads first.
"use strict";

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

// recur.models.running.run_model of the UniversalTransformer with ACT on one sum, with
// a cap of `cap` rounds. Returns the bits, the readout and its logits, the readout of
// the state after each round, the steps N each position ran and its h_r per round
// (NaN once halted), the floor position left out.
function actForward(spec, a, b, cap) {
  const act = window.OneMoreRound.act;
  const opt = spec.options, w = weights(spec), d = w["embed.bias"].length;
  const bits = additionBits(a, b);
  const n = bits.n, floor = opt.floor ? 1 : 0;
  const batch = { a: bits.bitsA, b: bits.bitsB, target: new Uint8Array(n), size: 1, n };
  const run = act.forward(null, act.tensors(w, false), batch, cap, { options: opt,
    signal: (r) => roundSignal(opt, n + floor, d, r), float32: true, everyRound: true });
  const logits = run.logits.v;
  return {
    bits,
    logits,
    readout: Uint8Array.from(logits, (v) => (v > 0 ? 1 : 0)),
    roundReadouts: run.readouts,
    steps: Int32Array.from(run.steps),
    halting: run.halting.map((hs, r) => hs.map((h, i) => (run.steps[i] > r ? h : NaN))),
  };
}

Object.assign(window.OneMoreRound, { actForward });
