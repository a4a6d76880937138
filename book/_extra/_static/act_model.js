// One More Round in the static page: Chapter 6's ACT Universal Transformer
// (recur.training.ut_recipe.BOOK_ACT) as the reader's browser trains it, in float64:
// its weights, the one forward pass of the page's Transformer, which trains (recording
// a tape, act_tape.js), measures (the check) or explores (models_act.js runs it with a
// model's own options), the loss and its gradient, gradient clipping and Adam. Each
// function names the Python it mirrors; tests/test_browser_act_model.py checks the
// loss, every gradient and fifty Adam steps against PyTorch in float64 on the same
// weights, batches and random draws, and tests/test_browser_models.py the explorers'
// runs against the library's trained models.
//
// Everything lives inside actModel(scope), so that the same source runs in the page and
// in a Web Worker made from the functions' own text (act_train.js builds it). Its exp,
// log, log1p, cos and powers are exactMath's (exact_math.js, loaded before it), not the
// engine's Math: a seed trains the same model in every browser.
"use strict";

function actModel(scope) {
  // recur.models.ut.UTOptions as BOOK_ACT sets them (tests compare them).
  const OPTIONS = {
    d_model: 32, n_heads: 4, d_ff: 64, window: 1, act_eps: 0.01, ponder_weight: 0.1,
    halt_noise: 2.0, pause: 0.25, max_offset: 16, floor: true, pair_as_set: true,
    inject: true, position: "relative", round_signal: false,
  };
  const D = OPTIONS.d_model, HEADS = OPTIONS.n_heads, FF = OPTIONS.d_ff;
  const OFFSETS = 2 * OPTIONS.max_offset + 1; // the learned bias's offsets -16..16
  const exact = exactMath(); // rounded alike in every browser, unlike Math.exp and **
  const kit = trainKit(exact); // what both trainers share (train_kit.js)
  const generator = kit.generator;
  const SHAPES = { // UniversalTransformer.state_dict(): name -> [rows, columns]
    "embed.weight": [D, 2], "embed.bias": [D],
    "block.attn.in_proj_weight": [3 * D, D], "block.attn.in_proj_bias": [3 * D],
    "block.attn.out_proj.weight": [D, D], "block.attn.out_proj.bias": [D],
    "block.norm_attn.weight": [D], "block.norm_attn.bias": [D],
    "block.transition.0.weight": [FF, D], "block.transition.0.bias": [FF],
    "block.transition.2.weight": [D, FF], "block.transition.2.bias": [D],
    "block.norm_out.weight": [D], "block.norm_out.bias": [D],
    "halting.linear.weight": [1, D], "halting.linear.bias": [1],
    "relative": [HEADS, OFFSETS],
    "readout.weight": [1, D], "readout.bias": [1],
  };
  // the weights in UniversalTransformer's order
  const { clipGradients, adamStep } = kit.optimiserFor(Object.keys(SHAPES));

  // A standard normal draw (Box-Muller) from a uniform generator.
  function normal(rand) {
    const u = 1 - rand(); // in (0, 1]: the logarithm stays finite
    return Math.sqrt(-2 * exact.log(u)) * exact.cos(2 * Math.PI * rand());
  }

  // The initial weights as torch draws them (their distributions; the page's own
  // numbers): nn.Linear uniform in +-1/sqrt(fan_in) (kaiming_uniform_ with a = sqrt(5),
  // its bias too); MultiheadAttention's in_proj Xavier-uniform, its biases 0;
  // LayerNorm 1 and 0; the halting bias 1 (HaltingUnit, Graves's Section 3); the
  // relative bias 0.
  function initialWeights(seed) {
    const rand = generator(seed);
    const uniform = (length, bound) => Float64Array.from({ length }, () => (2 * rand() - 1) * bound);
    const w = {};
    for (const [name, shape] of Object.entries(SHAPES)) {
      const length = shape.reduce((x, y) => x * y);
      const fanIn = (SHAPES[name.replace(/bias$/, "weight")] || shape)[1];
      if (name === "block.attn.in_proj_weight") w[name] = uniform(length, Math.sqrt(6 / (D + 3 * D)));
      else if (name.startsWith("block.norm") || name === "relative") {
        w[name] = new Float64Array(length).fill(name.endsWith("weight") ? 1 : 0);
      } else if (name === "halting.linear.bias") w[name] = new Float64Array(1).fill(1);
      else if (name === "block.attn.in_proj_bias" || name === "block.attn.out_proj.bias") {
        w[name] = new Float64Array(length);
      } else w[name] = uniform(length, 1 / Math.sqrt(fanIn));
    }
    return w;
  }

  const { constant, parameter, grad, record, backward, linear, add, gatherRows,
    scatterRows, addScaledAt, where, oneMinus, relu, sigmoid, layerNorm, twoSlotAttention } =
    actTape(exact); // the operations and their gradients (act_tape.js)

  // ------------------------------------------------------------- the model

  // The weights as tape tensors: parameters when training, constants when measuring.
  // A model without position="relative" has no "relative" (its attention adds no bias).
  function tensors(w, training) {
    const t = {};
    for (const [name, shape] of Object.entries(SHAPES)) {
      if (!(name in w) && name === "relative") continue;
      const [rows, cols] = shape.length === 2 ? shape : [1, shape[0]];
      t[name] = training ? parameter(w[name], rows, cols) : constant(w[name], rows, cols);
    }
    return t;
  }

  // UniversalTransformer.prepare: with floor, a 0 + 0 position under bit 0 (not in a
  // ring); with pair_as_set, each pair read as a set (min, max), so that 1 + 0 and
  // 0 + 1 give the model one input; embedded: E (size * N x d), N = n + floor.
  function embedded(tape, p, batch, floor, opt) {
    const N = batch.n + floor, rows = batch.size * N, x = new Float64Array(rows * 2);
    for (let e = 0; e < batch.size; e++) {
      for (let i = 0; i < batch.n; i++) {
        const a = batch.a[e * batch.n + i], b = batch.b[e * batch.n + i], at = (e * N + i + floor) * 2;
        x[at] = opt.pair_as_set ? Math.min(a, b) : a;
        x[at + 1] = opt.pair_as_set ? Math.max(a, b) : b;
      }
    }
    return linear(tape, constant(x, rows, 2), p["embed.weight"], p["embed.bias"]);
  }

  // UTBlock.forward on the positions `active` of x = H^{r-1} + P^r + E (rows of all
  // positions): banded attention (the keys of `kv`, which hold every active position
  // and the one below each), residual and LayerNorm (Eq. 5), the transition, residual
  // and LayerNorm (Eq. 4). Returns the new states of the active positions.
  function block(tape, p, x, active, low, kv, heads) {
    const xKV = gatherRows(tape, x, kv.rows);
    const qkv = linear(tape, xKV, p["block.attn.in_proj_weight"], p["block.attn.in_proj_bias"]);
    const activeAt = active.map((row) => kv.at[row]);
    const lowAt = low.map((row) => (row >= 0 ? kv.at[row] : -1));
    const mixed = twoSlotAttention(tape, qkv, activeAt, lowAt, p["relative"] || null, heads);
    const attended = linear(tape, mixed, p["block.attn.out_proj.weight"], p["block.attn.out_proj.bias"]);
    const xActive = gatherRows(tape, xKV, activeAt);
    const a = layerNorm(tape, add(tape, xActive, attended), p["block.norm_attn.weight"], p["block.norm_attn.bias"]);
    const hidden = relu(tape, linear(tape, a, p["block.transition.0.weight"], p["block.transition.0.bias"]));
    const back = linear(tape, hidden, p["block.transition.2.weight"], p["block.transition.2.bias"]);
    return layerNorm(tape, add(tape, a, back), p["block.norm_out.weight"], p["block.norm_out.bias"]);
  }

  // The rows whose keys the active positions read: each active position and the one
  // below it (in a ring, position 0's is the top one; else none for position 0).
  function positionsBelow(active, N, ring, rows) {
    const low = active.map((row) => (row % N > 0 ? row - 1 : ring ? row + N - 1 : -1));
    const wanted = new Uint8Array(rows), at = new Int32Array(rows).fill(-1), kvRows = [];
    for (const row of active) wanted[row] = 1;
    for (const row of low) if (row >= 0) wanted[row] = 1;
    for (let row = 0; row < rows; row++) {
      if (wanted[row]) { at[row] = kvRows.length; kvRows.push(row); }
    }
    return { low, kv: { rows: kvRows, at } };
  }

  // The input of round r at every position: H^{r-1} + P^r + E (UT Eq. 5's input with
  // the problem re-fed, UTOptions.inject), P^r from signal(r) (N x d, one sum's
  // positions: UniversalTransformer.signal; BOOK_ACT has none), E only with inject.
  function roundInput(tape, state, problem, r, opt, signal) {
    let x = state;
    const one = signal ? signal(r) : null;
    if (one) {
      const tiled = new Float64Array(state.v.length);
      for (let at = 0; at < tiled.length; at += one.length) tiled.set(one, at);
      x = add(tape, x, constant(tiled, state.rows, state.cols));
    }
    return opt.inject ? add(tape, x, problem) : x;
  }

  // The rows' values rounded to float32 in place (a measuring run that keeps ACT's sums
  // as the library keeps them in float32; nothing is on a tape then).
  function toFloat32(t) {
    for (let k = 0; k < t.v.length; k++) t.v[k] = Math.fround(t.v[k]);
    return t;
  }

  // UniversalTransformer.forward with ACT (recur.models.act.act_loop with rows_only,
  // which BOOK_ACT's train_rows_only asks for in training too). Each round runs the
  // block on the positions still running only: a halted position's new state, h_r and
  // p_r are discarded by the library (p_r = 0, its state copied), so leaving them out
  // changes no value and no gradient; its keys and values, which the position above
  // reads, are computed as the library computes them.
  //   training: draws.paused(r) (size * N, 1: the position keeps H^{r-1}: the pause)
  //     and draws.noise(r) (size * N standard normals for the halting logits).
  //   heldUntil (measuring): the last round through which each position keeps the
  //     state of its first round; ring: the positions of each sum form a ring.
  //   options: the model's UTOptions (BOOK_ACT's unless given); signal(r): P^r.
  //   float32 (measuring): h_r, its running sum and R in float32, as the library's
  //     float32 model keeps them, so that each position halts where the library's does.
  //   everyRound: also the readout of every real position's state after each round.
  // Returns the tensors of the mixed output's readout (size * n, the floor left out),
  // the ponder cost N + R per position, per round the h_r of the real positions (0
  // where halted), and with everyRound, per round the readouts' bits.
  function forward(tape, p, batch, cap, { draws = null, heldUntil = null, ring = false,
    options = OPTIONS, signal = null, float32 = false, everyRound = false } = {}) {
    if (!(cap >= 1)) throw new Error(`max_steps must be >= 1, got ${cap}`);
    if (options.window !== 1) throw new Error(`the page runs a window of 1, got ${options.window}`);
    if (float32 && tape) throw new Error("float32 is for measuring, not training");
    const f32 = float32 ? toFloat32 : (t) => t;
    const floor = options.floor && !ring ? 1 : 0, N = batch.n + floor, rows = batch.size * N;
    const D = p["embed.bias"].cols;
    const problem = embedded(tape, p, batch, floor, options);
    // H^0: zeros when the problem is injected every round, else E
    let state = options.inject ? constant(new Float64Array(rows * D), rows, D) : problem;
    let output = constant(new Float64Array(rows * D), rows, D); // sum_r p_r s_r
    let total = constant(new Float64Array(rows), rows, 1); // h_1 + ... + h_r
    let remainder = constant(new Float64Array(rows), rows, 1); // R
    const steps = new Float64Array(rows), halting = [], readouts = [];
    const limit = float32 ? Math.fround(1 - options.act_eps) : 1 - options.act_eps;
    const real = [];
    for (let e = 0; e < batch.size; e++) for (let i = 0; i < batch.n; i++) real.push(e * N + i + floor);
    for (let r = 0; r < cap; r++) {
      const active = [];
      for (let row = 0; row < rows; row++) if (total.v[row] < limit) active.push(row);
      if (!active.length) break;
      const x = roundInput(tape, state, problem, r, options, signal);
      const { low, kv } = positionsBelow(active, N, ring, rows);
      let fresh = block(tape, p, x, active, low, kv, options.n_heads);
      const old = gatherRows(tape, state, active);
      const paused = draws ? draws.paused(r) : null;
      const keep = active.map((row) => (paused && paused[row]) ||
        (heldUntil && r >= 1 && heldUntil[row] >= r) ? 1 : 0);
      if (keep.includes(1)) fresh = where(tape, keep, old, fresh); // paused or held
      const noise = draws ? draws.noise(r) : null;
      const logit = linear(tape, fresh, p["halting.linear.weight"], p["halting.linear.bias"]);
      const h = f32(sigmoid(tape, logit, noise && active.map((row) => options.halt_noise * noise[row])));
      const before = gatherRows(tape, total, active);
      const sum = float32 ? (j) => Math.fround(before.v[j] + h.v[j]) : (j) => before.v[j] + h.v[j];
      const halts = active.map((row, j) => sum(j) >= limit || r === cap - 1 ? 1 : 0);
      const rem = where(tape, halts, f32(oneMinus(tape, before)), null); // Eq. 8
      const weight = where(tape, halts.map((x) => 1 - x), h, rem); // Eq. 6
      remainder = addScaledAt(tape, remainder, active, null, rem);
      total = f32(addScaledAt(tape, total, active, null, weight));
      output = addScaledAt(tape, output, active, weight, fresh); // Eq. 9
      state = scatterRows(tape, state, active, fresh);
      for (const row of active) steps[row] += 1;
      const hs = new Float64Array(batch.size * batch.n); // h_r of the running real positions
      active.forEach((row, j) => {
        const i = row % N - floor;
        if (i >= 0) hs[Math.floor(row / N) * batch.n + i] = h.v[j];
      });
      halting.push(hs);
      // a halted position keeps its state, so its readout stays (readouts_by_round)
      if (everyRound) readouts.push(bitsOf(linear(null, gatherRows(null, state, real), p["readout.weight"], p["readout.bias"])));
    }
    const logits = linear(tape, gatherRows(tape, output, real), p["readout.weight"], p["readout.bias"]);
    const realRemainder = gatherRows(tape, remainder, real);
    const realSteps = Float64Array.from(real, (row) => steps[row]);
    return { logits, remainder: realRemainder, steps: realSteps, halting, readouts };
  }

  // The bits a readout's logits stand for: 1 where the logit is above 0.
  function bitsOf(logits) {
    return Uint8Array.from(logits.v, (v) => (v > 0 ? 1 : 0));
  }

  // The loss, recur.training.loop._step: binary cross-entropy with logits averaged over
  // each sum's positions, then over the kept sums (window_loss, window 1), plus
  // auxWeight * tau * the mean ponder cost N + R over every real position
  // (UniversalTransformer.forward's aux_loss; only R carries a gradient, Eq. 14).
  // norm: { kept, count } of the whole batch when this is a part of it (the page
  // splits a batch between two workers), so that the parts' losses add up to the whole.
  function trainingLoss(tape, run, batch, keep, auxWeight, norm = null) {
    const { logits, remainder, steps } = run, n = batch.n;
    let kept = 0;
    for (let e = 0; e < batch.size; e++) kept += keep[e];
    kept = norm ? norm.kept : Math.max(kept, 1);
    let task = 0, ponder = 0;
    const bce = new Float64Array(batch.size);
    for (let e = 0; e < batch.size; e++) {
      for (let i = 0; i < n; i++) {
        const x = logits.v[e * n + i], t = batch.target[e * n + i];
        bce[e] += Math.max(x, 0) - x * t + exact.log1p(exact.exp(-Math.abs(x)));
      }
      task += (bce[e] / n) * keep[e];
    }
    for (let k = 0; k < steps.length; k++) ponder += steps[k] + remainder.v[k];
    const tau = OPTIONS.ponder_weight, count = norm ? norm.count : steps.length;
    const loss = constant(Float64Array.of(task / kept + auxWeight * (tau * (ponder / count))), 1, 1);
    return record(tape, loss, [logits, remainder], (g) => {
      const gl = grad(logits), gr = grad(remainder);
      for (let e = 0; e < batch.size; e++) {
        if (!keep[e]) continue;
        for (let i = 0; i < n; i++) {
          const x = logits.v[e * n + i];
          gl[e * n + i] += (g[0] * (1 / (1 + exact.exp(-x)) - batch.target[e * n + i])) / n / kept;
        }
      }
      for (let k = 0; k < steps.length; k++) gr[k] += (g[0] * auxWeight * tau) / count;
    });
  }

  // loss.backward(): the loss of one training step and the gradient of every weight.
  function lossAndGradients(w, batch, keep, { auxWeight, draws, cap, norm = null }) {
    const tape = [], p = tensors(w, true);
    const run = forward(tape, p, batch, cap, { draws });
    const loss = trainingLoss(tape, run, batch, keep, auxWeight, norm);
    backward(tape, loss);
    const gradients = Object.fromEntries(Object.keys(SHAPES).map((name) => [name, p[name].g]));
    const rounds = run.steps.reduce((x, y) => x + y, 0) / run.steps.length; // mean N
    return { loss: loss.v[0], gradients, rounds };
  }

  // recur.models.running.run_model: the model measured (eval mode, no tape): the
  // readout logits, the steps N and the h_r of every round, per real position.
  // Sums the model sees alike (each pair as a set; the same held-back rounds) give the
  // same numbers, sum by sum, so each is run once: a ring check's 256 patterns of
  // propagating pairs are one input to a model that reads pairs as sets.
  function actRun(w, batch, cap, { heldUntil = null, ring = false } = {}) {
    const { unique, of } = distinctSums(batch, heldUntil, ring);
    const few = unique.length < batch.size;
    const sub = few ? sumsOf(batch, unique) : batch;
    const held = few && heldUntil ? heldOf(heldUntil, unique, batch.size) : heldUntil;
    const run = forward(null, tensors(w, false), sub, cap, { heldUntil: held, ring });
    if (!few) return { logits: run.logits.v, steps: run.steps, halting: run.halting };
    const spread = (values) => {
      const out = new Float64Array(batch.size * batch.n);
      for (let e = 0; e < batch.size; e++) {
        out.set(values.subarray(of[e] * batch.n, (of[e] + 1) * batch.n), e * batch.n);
      }
      return out;
    };
    return { logits: spread(run.logits.v), steps: spread(run.steps), halting: run.halting.map(spread) };
  }

  // The distinct sums of a batch as the model reads them: unique (the first sum of each
  // kind) and of[e] (the kind of sum e, an index into unique).
  function distinctSums(batch, heldUntil, ring) {
    const { size, n } = batch, N = n + (OPTIONS.floor && !ring ? 1 : 0);
    const kinds = new Map(), unique = [], of = new Int32Array(size);
    for (let e = 0; e < size; e++) {
      let key = "";
      for (let i = 0; i < n; i++) {
        const a = batch.a[e * n + i], b = batch.b[e * n + i];
        key += OPTIONS.pair_as_set ? a + b : 2 * a + b;
      }
      if (heldUntil) key += ":" + heldUntil.subarray(e * N, (e + 1) * N).join(",");
      if (!kinds.has(key)) { kinds.set(key, unique.length); unique.push(e); }
      of[e] = kinds.get(key);
    }
    return { unique, of };
  }

  function sumsOf(batch, rows) {
    const n = batch.n, pick = (bits) => {
      const out = new Uint8Array(rows.length * n);
      rows.forEach((e, j) => out.set(bits.subarray(e * n, (e + 1) * n), j * n));
      return out;
    };
    return { a: pick(batch.a), b: pick(batch.b), target: pick(batch.target), size: rows.length, n };
  }

  function heldOf(heldUntil, rows, size) {
    const N = heldUntil.length / size, out = new Int32Array(rows.length * N);
    rows.forEach((e, j) => out.set(heldUntil.subarray(e * N, (e + 1) * N), j * N));
    return out;
  }

  // recur.training.config.step_size with lr_decay="cosine" and aux_scale (1-based).
  function stepSize(step, lr, nSteps) {
    return (lr * (1 + exact.cos((Math.PI * (step - 1)) / nSteps))) / 2;
  }

  function auxScale(step, warmup) {
    return warmup <= 0 ? 1 : Math.min(1, (step - 1) / warmup);
  }

  // The training draws of one step from the page's generator, every round's drawn up
  // front (so that a batch can be split between workers): per round r < cap, which
  // positions pause (chance OPTIONS.pause), then the halting logits' standard normals.
  function trainingDraws(rand, rows, cap) {
    const paused = [], noise = [];
    for (let r = 0; r < cap; r++) {
      paused.push(Uint8Array.from({ length: rows }, () => (rand() < OPTIONS.pause ? 1 : 0)));
      noise.push(Float64Array.from({ length: rows }, () => normal(rand)));
    }
    return drawsOf({ paused, noise });
  }

  // The forward pass's view of drawn arrays: draws.paused(r), draws.noise(r).
  function drawsOf(raw) {
    return { raw, paused: (r) => raw.paused[r], noise: (r) => raw.noise[r] };
  }

  // The sums from..to of a training step (batch, keep, draws; N positions a sum).
  function sumsPart(step, from, to) {
    const { batch, keep, draws } = step, n = batch.n, N = draws.raw.paused[0].length / batch.size;
    const cut = (x, width) => x.slice(from * width, to * width);
    return {
      batch: { a: cut(batch.a, n), b: cut(batch.b, n), target: cut(batch.target, n), size: to - from, n },
      keep: keep.slice(from, to),
      draws: drawsOf({ paused: draws.raw.paused.map((x) => cut(x, N)), noise: draws.raw.noise.map((x) => cut(x, N)) }),
    };
  }

  Object.assign(scope, { BOOK_OPTIONS: OPTIONS, ACT_SHAPES: SHAPES, generator, normal,
    initialWeights, forward, lossAndGradients, actRun, clipGradients, adamStep,
    stepSize, auxScale, trainingDraws, drawsOf, sumsPart, tensors });
}

if (typeof window !== "undefined") {
  window.OneMoreRound = window.OneMoreRound || { models: {} };
  window.OneMoreRound.act = window.OneMoreRound.act || {};
  actModel(window.OneMoreRound.act);
}
