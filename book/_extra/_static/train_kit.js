// One More Round in the static page: the pieces both trainers share (cell_model.js and
// cell_train.js for Chapter 2's cell, act_model.js and act_check.js for Chapter 6's
// Transformer): the seeded generator, a sum's bits, random and long-chain batches, a
// slice of a batch, gradient clipping and Adam. Each function names the Python it
// mirrors; the browser tests check both trainers against PyTorch, and the batches
// against the library's. A trainer's Web Worker is made from the source of exactMath,
// trainKit and its own functions (the page loads this file after exact_math.js and
// before them).
"use strict";

function trainKit(exact) {
  // mulberry32: a small seeded generator of uniform numbers in [0, 1).
  function generator(seed) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  // AdditionBatch.target: the bits of a + b, LSB first, the carry out on top.
  function sumBits(a, b, size, n) {
    const target = new Uint8Array(size * n);
    for (let e = 0; e < size; e++) {
      let carry = 0;
      for (let i = 0; i < n; i++) {
        const s = a[e * n + i] + b[e * n + i] + carry;
        target[e * n + i] = s & 1;
        carry = s >> 1;
      }
    }
    return target;
  }

  // AdditionBatch.part: sums from..to - 1 (views, no copy).
  function part(batch, from, to) {
    const n = batch.n;
    return { a: batch.a.subarray(from * n, to * n), b: batch.b.subarray(from * n, to * n),
      target: batch.target.subarray(from * n, to * n), size: to - from, n };
  }

  // torch.nn.utils.clip_grad_norm_: every gradient times min(1, max / (norm + 1e-6)),
  // the norm over the weights called `names`, in the model's order.
  function clipGradients(g, maxNorm, names) {
    let squares = 0;
    for (const name of names) for (const v of g[name]) squares += v * v;
    const norm = Math.sqrt(squares);
    const scale = Math.min(1, maxNorm / (norm + 1e-6));
    for (const name of names) for (let k = 0; k < g[name].length; k++) g[name][k] *= scale;
    return norm;
  }

  // torch.optim.Adam (betas 0.9, 0.999; eps 1e-8), one step of the weights `names`:
  // moments, their bias correction, and the step lr * m_hat / (sqrt(v_hat) + eps).
  function adamStep(w, g, state, lr, names) {
    const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
    state.step += 1;
    const correction1 = 1 - exact.power(beta1, state.step);
    const correction2 = 1 - exact.power(beta2, state.step);
    for (const name of names) {
      const m = (state.m[name] ??= new Float64Array(w[name].length));
      const v = (state.v[name] ??= new Float64Array(w[name].length));
      const p = w[name], gn = g[name];
      for (let k = 0; k < p.length; k++) {
        m[k] = beta1 * m[k] + (1 - beta1) * gn[k];
        v[k] = beta2 * v[k] + (1 - beta2) * gn[k] * gn[k];
        const denom = Math.sqrt(v[k]) / Math.sqrt(correction2) + eps;
        p[k] -= (lr / correction1) * m[k] / denom;
      }
    }
  }

  // recur.core.tasks.batch_from_bits: a batch from the bits of nBits-bit sums (arrays
  // of size * nBits, LSB first), with the carry-out position on top.
  function batchFromBits(aBits, bBits, size, nBits) {
    const n = nBits + 1;
    const a = new Uint8Array(size * n), b = new Uint8Array(size * n);
    for (let e = 0; e < size; e++) {
      for (let i = 0; i < nBits; i++) {
        a[e * n + i] = aBits[e * nBits + i];
        b[e * n + i] = bBits[e * nBits + i];
      }
    }
    return { a, b, size, n, target: sumBits(a, b, size, n) };
  }

  // recur.core.tasks.random_batch (min_bits: each sum's width uniform in
  // minBits..maxBits, zeros above it; without, minBits = maxBits), n = maxBits + 1.
  function randomBatch(rand, size, maxBits, minBits = maxBits) {
    if (size < 1 || maxBits < 1) throw new Error(`need size >= 1 and maxBits >= 1, got ${size}, ${maxBits}`);
    if (!(minBits >= 1 && minBits <= maxBits)) throw new Error(`minBits must be in 1..${maxBits}, got ${minBits}`);
    const aBits = new Uint8Array(size * maxBits), bBits = new Uint8Array(size * maxBits);
    for (let e = 0; e < size; e++) {
      const width = minBits + Math.floor(rand() * (maxBits - minBits + 1));
      for (let i = 0; i < width; i++) {
        aBits[e * maxBits + i] = rand() < 0.5 ? 1 : 0;
        bBits[e * maxBits + i] = rand() < 0.5 ? 1 : 0;
      }
    }
    return batchFromBits(aBits, bBits, size, maxBits);
  }

  // recur.core.tasks.chain_batch: nBits-bit sums whose longest carry chain is exactly
  // length. Bits drawn low to high as kill (0+0), generate (1+1) or propagate (1+0, 0+1),
  // uniformly among the kinds that keep every chain at most length long; one run of that
  // length planted at a random place, its bottom a generate, or with killShare (drawn
  // sum by sum) a kill: the bits above then wait as long, and no carry comes.
  function chainBatch(rand, size, nBits, length, killShare = 0) {
    if (size < 1 || nBits < 1) throw new Error(`need size >= 1 and nBits >= 1, got ${size}, ${nBits}`);
    if (!(length >= 0 && length <= nBits)) throw new Error(`length must be in 0..${nBits}, got ${length}`);
    if (!(killShare >= 0 && killShare <= 1)) throw new Error(`killShare must be in [0, 1], got ${killShare}`);
    const aBits = new Uint8Array(size * nBits), bBits = new Uint8Array(size * nBits);
    for (let e = 0; e < size; e++) {
      const start = Math.floor(rand() * (nBits - length + 1));
      const bottom = killShare > 0 && rand() < killShare ? 0 : 1; // 0 kill, 1 generate
      let run = 0; // the distance of the carry into the current bit
      for (let i = 0; i < nBits; i++) {
        const planted = i >= start && i < start + length;
        const mayPropagate = run === 0 || run < length; // a longer run stays legal
        let kind = Math.floor(rand() * 3); // 0 kill, 1 generate, 2 propagate
        if (length === 0 && kind === 1) kind = 0; // no carry may be generated anywhere
        if (kind === 2 && !mayPropagate) kind = 0;
        if (planted) kind = i === start ? bottom : 2;
        run = kind === 1 ? 1 : kind === 2 && run > 0 ? run + 1 : 0;
        const flip = rand() < 0.5 ? 1 : 0; // which operand holds a propagate's 1
        aBits[e * nBits + i] = kind === 1 || (kind === 2 && flip === 1) ? 1 : 0;
        bBits[e * nBits + i] = kind === 1 || (kind === 2 && flip === 0) ? 1 : 0;
      }
    }
    return batchFromBits(aBits, bBits, size, nBits);
  }

  // recur.core.tasks.concat_batches: the sums of every batch (of one width), in order.
  function concatBatches(...batches) {
    const n = batches[0].n;
    if (batches.some((x) => x.n !== n)) throw new Error("batches must have the same width");
    const size = batches.reduce((t, x) => t + x.size, 0);
    const out = { a: new Uint8Array(size * n), b: new Uint8Array(size * n), target: new Uint8Array(size * n), size, n };
    let at = 0;
    for (const x of batches) {
      for (const key of ["a", "b", "target"]) out[key].set(x[key].subarray(0, x.size * n), at);
      at += x.size * n;
    }
    return out;
  }

  // clipGradients and adamStep over one model's weights, `names` in its order.
  function optimiserFor(names) {
    return {
      clipGradients: (g, maxNorm) => clipGradients(g, maxNorm, names),
      adamStep: (w, g, state, lr) => adamStep(w, g, state, lr, names),
    };
  }

  return { generator, sumBits, part, batchFromBits, randomBatch, chainBatch, concatBatches,
    clipGradients, adamStep, optimiserFor };
}
