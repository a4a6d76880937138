// One More Round in the static page: Chapter 6's ACT Universal Transformer
// (recur.training.ut_recipe.BOOK_ACT) as the reader's browser trains it, in float64:
// its weights, one forward pass that trains (recording a tape) or measures, the loss,
// its gradient by reverse-mode differentiation over the tape, gradient clipping and
// Adam. Each function names the Python it mirrors; tests/test_browser_act_model.py
// checks the loss, every gradient and fifty Adam steps against PyTorch in float64 on
// the same weights, batches and random draws.
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
  const D = OPTIONS.d_model, HEADS = OPTIONS.n_heads, DH = D / HEADS, FF = OPTIONS.d_ff;
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

  // ---------------------------------------------------------------- the tape
  // A tensor is { v: Float64Array, rows, cols }; one that a gradient must reach also has
  // g (its gradient, made on first use) and back(g) (adds g's share to its inputs').
  // Each operation below records itself on the tape when an input needs a gradient;
  // backward() runs the tape from the end, as torch.autograd does.

  function constant(v, rows, cols) {
    return { v, rows, cols, needsGrad: false };
  }

  function parameter(v, rows, cols) {
    return { v, rows, cols, needsGrad: true, g: new Float64Array(v.length) };
  }

  function grad(t) {
    return (t.g ??= new Float64Array(t.v.length));
  }

  function record(tape, out, inputs, back) {
    if (!tape || !inputs.some((t) => t && t.needsGrad)) return out;
    out.needsGrad = true;
    out.back = back;
    tape.push(out);
    return out;
  }

  function backward(tape, loss) {
    grad(loss)[0] = 1;
    for (let k = tape.length - 1; k >= 0; k--) if (tape[k].g) tape[k].back(tape[k].g);
  }

  // nn.Linear: Y = X W^T + b, X (rows x in), W (out x in).
  function linear(tape, x, weight, bias) {
    const [rows, nIn, nOut] = [x.rows, x.cols, weight.rows];
    const y = new Float64Array(rows * nOut);
    const W = weight.v, b = bias.v, X = x.v;
    const blocked = nOut - (nOut % 4);
    for (let i = 0; i < rows; i++) {
      const xi = i * nIn, yi = i * nOut;
      // four outputs at once: four independent sums, each added in the order of k
      for (let o = 0; o < blocked; o += 4) {
        let s0 = b[o], s1 = b[o + 1], s2 = b[o + 2], s3 = b[o + 3];
        const w0 = o * nIn, w1 = w0 + nIn, w2 = w1 + nIn, w3 = w2 + nIn;
        for (let k = 0; k < nIn; k++) {
          const xk = X[xi + k];
          s0 += W[w0 + k] * xk;
          s1 += W[w1 + k] * xk;
          s2 += W[w2 + k] * xk;
          s3 += W[w3 + k] * xk;
        }
        y[yi + o] = s0;
        y[yi + o + 1] = s1;
        y[yi + o + 2] = s2;
        y[yi + o + 3] = s3;
      }
      for (let o = blocked; o < nOut; o++) {
        let sum = b[o];
        const wo = o * nIn;
        for (let k = 0; k < nIn; k++) sum += W[wo + k] * X[xi + k];
        y[yi + o] = sum;
      }
    }
    const out = constant(y, rows, nOut);
    return record(tape, out, [x, weight, bias], (g) => {
      if (bias.needsGrad) {
        const gb = grad(bias);
        for (let i = 0; i < rows; i++) for (let o = 0; o < nOut; o++) gb[o] += g[i * nOut + o];
      }
      if (x.needsGrad) timesWeight(g, W, rows, nOut, nIn, grad(x));
      if (weight.needsGrad) outerSums(g, X, rows, nOut, nIn, grad(weight));
    });
  }

  // gX += G W for G (rows x nOut) and W (nOut x nIn): W transposed once, then four
  // columns of gX at a time, as linear computes four outputs at a time.
  function timesWeight(G, W, rows, nOut, nIn, gX) {
    const WT = new Float64Array(nIn * nOut);
    for (let o = 0; o < nOut; o++) for (let k = 0; k < nIn; k++) WT[k * nOut + o] = W[o * nIn + k];
    const blocked = nIn - (nIn % 4);
    for (let i = 0; i < rows; i++) {
      const gi = i * nOut, xi = i * nIn;
      for (let k = 0; k < blocked; k += 4) {
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        const t0 = k * nOut, t1 = t0 + nOut, t2 = t1 + nOut, t3 = t2 + nOut;
        for (let o = 0; o < nOut; o++) {
          const go = G[gi + o];
          s0 += go * WT[t0 + o];
          s1 += go * WT[t1 + o];
          s2 += go * WT[t2 + o];
          s3 += go * WT[t3 + o];
        }
        gX[xi + k] += s0;
        gX[xi + k + 1] += s1;
        gX[xi + k + 2] += s2;
        gX[xi + k + 3] += s3;
      }
      for (let k = blocked; k < nIn; k++) {
        let sum = 0;
        for (let o = 0; o < nOut; o++) sum += G[gi + o] * WT[k * nOut + o];
        gX[xi + k] += sum;
      }
    }
  }

  // gW += G^T X for G (rows x nOut) and X (rows x nIn): four rows at a time, so that
  // each entry of gW is loaded and stored once per four rows.
  function outerSums(G, X, rows, nOut, nIn, gW) {
    let i = 0;
    for (; i + 3 < rows; i += 4) {
      const x0 = i * nIn, x1 = x0 + nIn, x2 = x1 + nIn, x3 = x2 + nIn;
      for (let o = 0; o < nOut; o++) {
        const g0 = G[i * nOut + o], g1 = G[(i + 1) * nOut + o];
        const g2 = G[(i + 2) * nOut + o], g3 = G[(i + 3) * nOut + o];
        if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0) continue; // relu, halted
        const wo = o * nIn;
        for (let k = 0; k < nIn; k++) {
          gW[wo + k] += g0 * X[x0 + k] + g1 * X[x1 + k] + g2 * X[x2 + k] + g3 * X[x3 + k];
        }
      }
    }
    for (; i < rows; i++) {
      for (let o = 0; o < nOut; o++) {
        const go = G[i * nOut + o];
        if (go === 0) continue;
        for (let k = 0; k < nIn; k++) gW[o * nIn + k] += go * X[i * nIn + k];
      }
    }
  }

  function add(tape, a, b) {
    const v = new Float64Array(a.v.length), av = a.v, bv = b.v;
    for (let k = 0; k < v.length; k++) v[k] = av[k] + bv[k];
    const out = constant(v, a.rows, a.cols);
    return record(tape, out, [a, b], (g) => {
      for (const t of [a, b]) if (t.needsGrad) { const gt = grad(t); for (let k = 0; k < g.length; k++) gt[k] += g[k]; }
    });
  }

  // x[idx]: the rows idx of x.
  function gatherRows(tape, x, idx) {
    const c = x.cols, v = new Float64Array(idx.length * c), xv = x.v;
    for (let j = 0; j < idx.length; j++) {
      const from = idx[j] * c, to = j * c;
      for (let k = 0; k < c; k++) v[to + k] = xv[from + k];
    }
    return record(tape, constant(v, idx.length, c), [x], (g) => {
      const gx = grad(x);
      idx.forEach((row, j) => { for (let k = 0; k < c; k++) gx[row * c + k] += g[j * c + k]; });
    });
  }

  // base.index_copy(0, idx, sub): base with its rows idx replaced by those of sub.
  function scatterRows(tape, base, idx, sub) {
    const c = base.cols, v = base.v.slice(), sv = sub.v;
    for (let j = 0; j < idx.length; j++) {
      const to = idx[j] * c, from = j * c;
      for (let k = 0; k < c; k++) v[to + k] = sv[from + k];
    }
    return record(tape, constant(v, base.rows, c), [base, sub], (g) => {
      if (base.needsGrad) {
        const gb = grad(base), replaced = new Uint8Array(base.rows);
        for (const row of idx) replaced[row] = 1;
        for (let row = 0; row < base.rows; row++) {
          if (!replaced[row]) for (let k = 0; k < c; k++) gb[row * c + k] += g[row * c + k];
        }
      }
      if (sub.needsGrad) {
        const gs = grad(sub);
        idx.forEach((row, j) => { for (let k = 0; k < c; k++) gs[j * c + k] += g[row * c + k]; });
      }
    });
  }

  // base with p[j] * x[j] added to its row idx[j] (act_loop's output + p_r s_r, Eq. 9;
  // with x of one column, the running sums of h and R).
  function addScaledAt(tape, base, idx, p, x) {
    const c = base.cols, v = base.v.slice();
    idx.forEach((row, j) => {
      const pj = p ? p.v[j] : 1;
      for (let k = 0; k < c; k++) v[row * c + k] += pj * x.v[j * c + k];
    });
    return record(tape, constant(v, base.rows, c), [base, p, x], (g) => {
      if (base.needsGrad) { const gb = grad(base); for (let k = 0; k < g.length; k++) gb[k] += g[k]; }
      const gp = p && p.needsGrad ? grad(p) : null, gx = x.needsGrad ? grad(x) : null;
      idx.forEach((row, j) => {
        const pj = p ? p.v[j] : 1;
        let dp = 0;
        for (let k = 0; k < c; k++) {
          const gk = g[row * c + k];
          dp += gk * x.v[j * c + k];
          if (gx) gx[j * c + k] += pj * gk;
        }
        if (gp) gp[j] += dp;
      });
    });
  }

  // torch.where(mask[..., None], a, b) by rows; b null: zeros.
  function where(tape, mask, a, b) {
    const c = a.cols, v = new Float64Array(a.v.length);
    for (let row = 0; row < a.rows; row++) {
      const from = mask[row] ? a.v : b ? b.v : null;
      if (from) for (let k = 0; k < c; k++) v[row * c + k] = from[row * c + k];
    }
    return record(tape, constant(v, a.rows, c), [a, b], (g) => {
      for (let row = 0; row < a.rows; row++) {
        const to = mask[row] ? a : b;
        if (!to || !to.needsGrad) continue;
        const gt = grad(to);
        for (let k = 0; k < c; k++) gt[row * c + k] += g[row * c + k];
      }
    });
  }

  // 1 - x, elementwise.
  function oneMinus(tape, x) {
    const v = new Float64Array(x.v.length);
    for (let k = 0; k < v.length; k++) v[k] = 1 - x.v[k];
    return record(tape, constant(v, x.rows, x.cols), [x], (g) => {
      const gx = grad(x);
      for (let k = 0; k < g.length; k++) gx[k] -= g[k];
    });
  }

  function relu(tape, x) {
    const v = new Float64Array(x.v.length), xv = x.v;
    for (let k = 0; k < v.length; k++) v[k] = xv[k] > 0 ? xv[k] : 0;
    return record(tape, constant(v, x.rows, x.cols), [x], (g) => {
      const gx = grad(x);
      for (let k = 0; k < g.length; k++) if (x.v[k] > 0) gx[k] += g[k];
    });
  }

  // sigmoid(x + noise): HaltingUnit.forward's h from its logit (noise: null or added).
  function sigmoid(tape, x, noise) {
    const v = new Float64Array(x.v.length);
    for (let k = 0; k < v.length; k++) v[k] = 1 / (1 + exact.exp(-(noise ? x.v[k] + noise[k] : x.v[k])));
    return record(tape, constant(v, x.rows, x.cols), [x], (g) => {
      const gx = grad(x);
      for (let k = 0; k < g.length; k++) gx[k] += g[k] * v[k] * (1 - v[k]);
    });
  }

  // nn.LayerNorm over each row: (x - mean) / sqrt(var + 1e-5) * gain + bias, the
  // variance biased; backward by the usual formula through the mean and the variance.
  function layerNorm(tape, x, gain, bias) {
    const { rows, cols } = x, v = new Float64Array(x.v.length);
    const xhat = new Float64Array(x.v.length), rstd = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      let mean = 0, sq = 0;
      for (let k = 0; k < cols; k++) mean += x.v[i * cols + k];
      mean /= cols;
      for (let k = 0; k < cols; k++) {
        const d = x.v[i * cols + k] - mean;
        sq += d * d;
      }
      rstd[i] = 1 / Math.sqrt(sq / cols + 1e-5);
      for (let k = 0; k < cols; k++) {
        xhat[i * cols + k] = (x.v[i * cols + k] - mean) * rstd[i];
        v[i * cols + k] = xhat[i * cols + k] * gain.v[k] + bias.v[k];
      }
    }
    return record(tape, constant(v, rows, cols), [x, gain, bias], (g) => {
      const gg = grad(gain), gb = grad(bias), gx = x.needsGrad ? grad(x) : null;
      for (let i = 0; i < rows; i++) {
        let sumG = 0, sumGX = 0;
        for (let k = 0; k < cols; k++) {
          const gk = g[i * cols + k], dxhat = gk * gain.v[k];
          gg[k] += gk * xhat[i * cols + k];
          gb[k] += gk;
          sumG += dxhat;
          sumGX += dxhat * xhat[i * cols + k];
        }
        if (!gx) continue;
        for (let k = 0; k < cols; k++) {
          const dxhat = g[i * cols + k] * gain.v[k];
          gx[i * cols + k] += (rstd[i] / cols) * (cols * dxhat - sumG - xhat[i * cols + k] * sumGX);
        }
      }
    });
  }

  // recur.models.attention.two_slots, the banded attention of a window of one, for
  // the positions `active`: query j (row active[j] of qkv) sees the key and value of
  // its own row and of row low[j] (its position minus one; -1: below bit 0, masked).
  // Scores q.k / sqrt(d_head) plus the head's learned bias for the offset (slot 0:
  // offset 1, slot 1: offset 0; UniversalTransformer.window_bias), a softmax over the
  // two slots, the values mixed: (active x d), heads side by side.
  function twoSlotAttention(tape, qkv, active, low, relative) {
    const n = active.length, c = 3 * D, scale = Math.sqrt(DH), M = OPTIONS.max_offset;
    const mixed = new Float64Array(n * D), weights = new Float64Array(n * HEADS * 2);
    const bias = relative.v;
    for (let j = 0; j < n; j++) {
      const qi = active[j] * c, li = low[j] * c;
      for (let h = 0; h < HEADS; h++) {
        const hd = h * DH;
        let self = 0, below = 0;
        for (let k = 0; k < DH; k++) self += qkv.v[qi + hd + k] * qkv.v[qi + D + hd + k];
        self = self / scale + bias[h * OFFSETS + M];
        let w0 = 0, w1 = 1;
        if (low[j] >= 0) {
          for (let k = 0; k < DH; k++) below += qkv.v[qi + hd + k] * qkv.v[li + D + hd + k];
          below = below / scale + bias[h * OFFSETS + M + 1];
          const top = Math.max(self, below);
          const e0 = exact.exp(below - top), e1 = exact.exp(self - top);
          w0 = e0 / (e0 + e1);
          w1 = e1 / (e0 + e1);
        }
        weights[(j * HEADS + h) * 2] = w0;
        weights[(j * HEADS + h) * 2 + 1] = w1;
        for (let k = 0; k < DH; k++) {
          mixed[j * D + hd + k] = (low[j] >= 0 ? qkv.v[li + 2 * D + hd + k] * w0 : 0) +
            qkv.v[qi + 2 * D + hd + k] * w1;
        }
      }
    }
    return record(tape, constant(mixed, n, D), [qkv, relative], (g) => {
      const gq = qkv.needsGrad ? grad(qkv) : null, gr = relative.needsGrad ? grad(relative) : null;
      for (let j = 0; j < n; j++) {
        const qi = active[j] * c, li = low[j] * c;
        for (let h = 0; h < HEADS; h++) {
          const hd = h * DH, w0 = weights[(j * HEADS + h) * 2], w1 = weights[(j * HEADS + h) * 2 + 1];
          let dw0 = 0, dw1 = 0;
          for (let k = 0; k < DH; k++) {
            const gk = g[j * D + hd + k];
            dw1 += gk * qkv.v[qi + 2 * D + hd + k];
            if (gq) gq[qi + 2 * D + hd + k] += gk * w1; // v_i
            if (low[j] >= 0) {
              dw0 += gk * qkv.v[li + 2 * D + hd + k];
              if (gq) gq[li + 2 * D + hd + k] += gk * w0; // v_{i-1}
            }
          }
          const mean = w0 * dw0 + w1 * dw1; // softmax backward: ds = w (dw - sum w dw)
          const ds1 = w1 * (dw1 - mean), ds0 = w0 * (dw0 - mean);
          if (gr) {
            gr[h * OFFSETS + M] += ds1;
            if (low[j] >= 0) gr[h * OFFSETS + M + 1] += ds0;
          }
          if (!gq) continue;
          for (let k = 0; k < DH; k++) {
            gq[qi + hd + k] += (ds1 * qkv.v[qi + D + hd + k] +
              (low[j] >= 0 ? ds0 * qkv.v[li + D + hd + k] : 0)) / scale; // q_i
            gq[qi + D + hd + k] += ds1 * qkv.v[qi + hd + k] / scale; // k_i
            if (low[j] >= 0) gq[li + D + hd + k] += ds0 * qkv.v[qi + hd + k] / scale; // k_{i-1}
          }
        }
      }
    });
  }

  // ------------------------------------------------------------- the model

  // The weights as tape tensors: parameters when training, constants when measuring.
  function tensors(w, training) {
    const t = {};
    for (const [name, shape] of Object.entries(SHAPES)) {
      const [rows, cols] = shape.length === 2 ? shape : [1, shape[0]];
      t[name] = training ? parameter(w[name], rows, cols) : constant(w[name], rows, cols);
    }
    return t;
  }

  // UniversalTransformer.prepare: a 0 + 0 floor bit under bit 0 (not in a ring), each
  // pair read as a set (min, max), embedded: E (size * N x d), N = n + floor.
  function embedded(tape, p, batch, floor) {
    const N = batch.n + floor, rows = batch.size * N, x = new Float64Array(rows * 2);
    for (let e = 0; e < batch.size; e++) {
      for (let i = 0; i < batch.n; i++) {
        const a = batch.a[e * batch.n + i], b = batch.b[e * batch.n + i], at = (e * N + i + floor) * 2;
        x[at] = OPTIONS.pair_as_set ? Math.min(a, b) : a;
        x[at + 1] = OPTIONS.pair_as_set ? Math.max(a, b) : b;
      }
    }
    return linear(tape, constant(x, rows, 2), p["embed.weight"], p["embed.bias"]);
  }

  // UTBlock.forward on the positions `active` of x = H^{r-1} + E (rows of all
  // positions): banded attention (the keys of `kv`, which hold every active position
  // and the one below each), residual and LayerNorm (Eq. 5), the transition, residual
  // and LayerNorm (Eq. 4). Returns the new states of the active positions.
  function block(tape, p, x, active, low, kv) {
    const xKV = gatherRows(tape, x, kv.rows);
    const qkv = linear(tape, xKV, p["block.attn.in_proj_weight"], p["block.attn.in_proj_bias"]);
    const activeAt = active.map((row) => kv.at[row]);
    const lowAt = low.map((row) => (row >= 0 ? kv.at[row] : -1));
    const mixed = twoSlotAttention(tape, qkv, activeAt, lowAt, p["relative"]);
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
  // Returns the tensors of the mixed output's readout (size * n, the floor left out),
  // the ponder cost N + R per position, and per round the h_r of the real positions.
  function forward(tape, p, batch, cap, { draws = null, heldUntil = null, ring = false } = {}) {
    if (!(cap >= 1)) throw new Error(`max_steps must be >= 1, got ${cap}`);
    const floor = OPTIONS.floor && !ring ? 1 : 0, N = batch.n + floor, rows = batch.size * N;
    const problem = embedded(tape, p, batch, floor);
    let state = constant(new Float64Array(rows * D), rows, D); // H^0 = 0: the input is injected
    let output = constant(new Float64Array(rows * D), rows, D); // sum_r p_r s_r
    let total = constant(new Float64Array(rows), rows, 1); // h_1 + ... + h_r
    let remainder = constant(new Float64Array(rows), rows, 1); // R
    const steps = new Float64Array(rows), halting = [], limit = 1 - OPTIONS.act_eps;
    for (let r = 0; r < cap; r++) {
      const active = [];
      for (let row = 0; row < rows; row++) if (total.v[row] < limit) active.push(row);
      if (!active.length) break;
      const x = add(tape, state, problem); // H^{r-1} + E: no position or round signal
      const { low, kv } = positionsBelow(active, N, ring, rows);
      let fresh = block(tape, p, x, active, low, kv);
      const old = gatherRows(tape, state, active);
      const paused = draws ? draws.paused(r) : null;
      const keep = active.map((row) => (paused && paused[row]) ||
        (heldUntil && r >= 1 && heldUntil[row] >= r) ? 1 : 0);
      if (keep.includes(1)) fresh = where(tape, keep, old, fresh); // paused or held
      const noise = draws ? draws.noise(r) : null;
      const logit = linear(tape, fresh, p["halting.linear.weight"], p["halting.linear.bias"]);
      const h = sigmoid(tape, logit, noise && active.map((row) => OPTIONS.halt_noise * noise[row]));
      const before = gatherRows(tape, total, active);
      const halts = active.map((row, j) => before.v[j] + h.v[j] >= limit || r === cap - 1 ? 1 : 0);
      const rem = where(tape, halts, oneMinus(tape, before), null); // Eq. 8
      const weight = where(tape, halts.map((x) => 1 - x), h, rem); // Eq. 6
      remainder = addScaledAt(tape, remainder, active, null, rem);
      total = addScaledAt(tape, total, active, null, weight);
      output = addScaledAt(tape, output, active, weight, fresh); // Eq. 9
      state = scatterRows(tape, state, active, fresh);
      for (const row of active) steps[row] += 1;
      const hs = new Float64Array(batch.size * batch.n); // h_r of the running real positions
      active.forEach((row, j) => {
        const i = row % N - floor;
        if (i >= 0) hs[Math.floor(row / N) * batch.n + i] = h.v[j];
      });
      halting.push(hs);
    }
    const real = [];
    for (let e = 0; e < batch.size; e++) for (let i = 0; i < batch.n; i++) real.push(e * N + i + floor);
    const logits = linear(tape, gatherRows(tape, output, real), p["readout.weight"], p["readout.bias"]);
    const realRemainder = gatherRows(tape, remainder, real);
    const realSteps = Float64Array.from(real, (row) => steps[row]);
    return { logits, remainder: realRemainder, steps: realSteps, halting };
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
