// One More Round in the static page: the tape of Chapter 6's Transformer (act_model.js),
// reverse-mode differentiation in float64 as torch.autograd does it, on the few
// operations the Universal Transformer uses: nn.Linear, additions, rows gathered and
// scattered, torch.where, ReLU, the halting sigmoid, nn.LayerNorm and the banded
// attention of a window of one. With tape null an operation only computes, which is how
// the explorers and the check run the model.
//
// actTape(exact) returns the operations; their exp is exactMath's (exact_math.js),
// so that a seed trains the same model in every browser. It is a function, not a file's
// top level, so that a Web Worker can be made from its text (act_train.js).
"use strict";

function actTape(exact) {

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
  function twoSlotAttention(tape, qkv, active, low, relative, heads) {
    const D = qkv.cols / 3, HEADS = heads, DH = D / heads, c = 3 * D, n = active.length;
    const scale = Math.sqrt(DH);
    const OFFSETS = relative ? relative.cols : 0, M = (OFFSETS - 1) / 2; // offsets -M..M
    const mixed = new Float64Array(n * D), weights = new Float64Array(n * HEADS * 2);
    const bias = relative ? relative.v : null; // none without position="relative"
    for (let j = 0; j < n; j++) {
      const qi = active[j] * c, li = low[j] * c;
      for (let h = 0; h < HEADS; h++) {
        const hd = h * DH;
        let self = 0, below = 0;
        for (let k = 0; k < DH; k++) self += qkv.v[qi + hd + k] * qkv.v[qi + D + hd + k];
        self = self / scale + (bias ? bias[h * OFFSETS + M] : 0);
        let w0 = 0, w1 = 1;
        if (low[j] >= 0) {
          for (let k = 0; k < DH; k++) below += qkv.v[qi + hd + k] * qkv.v[li + D + hd + k];
          below = below / scale + (bias ? bias[h * OFFSETS + M + 1] : 0);
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
      const gq = qkv.needsGrad ? grad(qkv) : null, gr = relative && relative.needsGrad ? grad(relative) : null;
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

  return { constant, parameter, grad, record, backward, linear, add, gatherRows,
    scatterRows, addScaledAt, where, oneMinus, relu, sigmoid, layerNorm, twoSlotAttention };
}
