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
// The same round is written twice more in cell_model.js, for the trainer: forward keeps
// every round's inputs for the backward pass, and settledForward runs a whole batch of
// sums at once. tests/test_browser_train.py checks the three give the same states bit
// for bit; so that they do in every browser, all three take tanh from exact_math.js
// (loaded before this file).
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

Object.assign(window.OneMoreRound, { cellReadouts, deqReadout, additionBits });
