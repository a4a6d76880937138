// One More Round in the static page: the pieces both trainers share (cell_train.js for
// Chapter 2's cell, act_model.js and act_check.js for Chapter 6's Transformer): the
// seeded generator, a sum's bits, a slice of a batch, gradient clipping and Adam. Each
// function names the Python it mirrors; the browser tests check both trainers against
// PyTorch. A trainer's Web Worker is made from the source of exactMath, trainKit and its
// own functions (the page loads this file after exact_math.js and before them).
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

  return { generator, sumBits, part, clipGradients, adamStep };
}
