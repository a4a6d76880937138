// One More Round in the static page: Chapter 2's cell (recur.models.cell.LocalCell) as
// the reader's browser trains it, with the settings, batches and optimiser step that
// recur.chapters.ch2_shared_update.train_cell trains it with: its initial weights, the
// forward pass that trains (every round's activations kept for the backward pass) and
// the one that measures (settled positions skipped), the loss, its gradient and one
// Adam step. Each function names the Python it mirrors; the browser tests check the
// loss, every gradient and fifty Adam steps against PyTorch on the same weights and
// batches. The page's random numbers are its own (mulberry32), not PyTorch's: a seed
// here starts another run than the same seed in the library.
//
// Everything lives inside cellModel(scope), which reads nothing from scope and puts its
// functions and SETTINGS there, so that the same source runs in the page (the tests call
// it there) and in a Web Worker made from the functions' own text (cell_train.js builds
// it, with its procedure, which reads the model from the same scope): a worker needs no
// file of its own, so it works from a file:// page too. It calls exactMath and trainKit
// (exact_math.js and train_kit.js, which the page loads first). Its exp, log1p, tanh and
// powers are exactMath's, not the engine's Math: a seed trains the same model in every
// browser.
"use strict";

function cellModel(scope) {
  const D = 16; // LocalCell's d_state
  const H = 32; // LocalCell's d_hidden
  const SHAPES = { // LocalCell.state_dict(): name -> [rows, columns] (bias: [rows])
    "embed.weight": [D, 2], "embed.bias": [D],
    "update.0.weight": [H, 2 * D], "update.0.bias": [H],
    "update.2.weight": [D, H], "update.2.bias": [D],
    "readout.weight": [1, D], "readout.bias": [1],
  };
  // One object for the model and the procedure (cellTrainer reads it from scope), so
  // that a run's settings, assigned into it, reach the model's steps as well.
  const SETTINGS = { // recur.training.config.TrainConfig, as train_cell sets it
    nSteps: 1500, batchSize: 128, lr: 1e-2, clipNorm: 1.0, minBits: 1, maxBits: 8,
    nRounds: 9, evalEvery: 50, evalSize: 10000, stayRounds: 64, maxAttempts: 3,
    // the holding recipe (recur.training.holding), off in Chapter 2's own procedure:
    // LocalCell's snap and hold_cost, TrainConfig's chain_share and chain_kill_share
    snap: false, holdCost: 0, chainShare: 0, chainKillShare: 0,
  };
  // the holding recipe's settings (recur.training.holding: HOLD_COST,
  // CHAIN_TRAINING, MAX_ATTEMPTS); recur.models.cell.HOLD_SLACK
  const HOLDING = { snap: true, holdCost: 1.0, chainShare: 0.25, chainKillShare: 0.5,
    maxAttempts: 5 };
  const HOLD_SLACK = 1;
  const exact = exactMath(); // rounded alike in every browser, unlike Math.exp and **
  const kit = trainKit(exact); // what both trainers share (train_kit.js)
  const { generator, randomBatch, chainBatch, concatBatches } = kit;
  // the weights in LocalCell's order
  const { clipGradients, adamStep } = kit.optimiserFor(Object.keys(SHAPES));

  // torch.nn.Linear's initial weights and biases: uniform in +-1/sqrt(fan_in)
  // (kaiming_uniform_ with a = sqrt(5)), in LocalCell's order of layers.
  function initialWeights(seed) {
    const rand = generator(seed);
    const w = {};
    for (const [name, shape] of Object.entries(SHAPES)) {
      const fanIn = name.endsWith("weight") ? shape[1] : SHAPES[name.replace("bias", "weight")][1];
      const bound = 1 / Math.sqrt(fanIn);
      w[name] = Float64Array.from({ length: shape.reduce((x, y) => x * y) },
        () => (2 * rand() - 1) * bound);
    }
    return w;
  }

  // recur.training.loop._training_batch: random sums, and with chainShare that share
  // of the batch replaced by chain sums of one length drawn from 1..maxBits.
  function trainingBatch(rand) {
    const { batchSize, maxBits, minBits, chainShare, chainKillShare } = SETTINGS;
    const nChain = Math.round(chainShare * batchSize);
    const batch = randomBatch(rand, batchSize - nChain, maxBits, minBits);
    if (nChain === 0) return batch;
    const length = 1 + Math.floor(rand() * maxBits);
    return concatBatches(batch, chainBatch(rand, nChain, maxBits, length, chainKillShare));
  }

  // recur.models.cell.waits: the rounds each position waits for its carry-in, the
  // position minus the highest kill or generate below it (at least 1).
  function waits(batch) {
    const { size, n } = batch;
    const wait = new Int32Array(size * n);
    for (let e = 0; e < size; e++) {
      let stop = -1; // the highest non-propagating position below i
      for (let i = 0; i < n; i++) {
        wait[e * n + i] = Math.max(i - Math.max(stop, 0), 1);
        if (batch.a[e * n + i] === batch.b[e * n + i]) stop = i;
      }
    }
    return wait;
  }

  // recur.models.cell.snapped: each entry to -1 or +1 (the gradient passes straight).
  function snapInPlace(s, from, to) {
    for (let k = from; k < to; k++) s[k] = s[k] > 0 ? 1 : -1;
  }

  // LocalCell.embed: E = W [a_i, b_i] + c at every position of every sum.
  function embedProblem(w, batch, rows) {
    const problem = new Float64Array(rows * D);
    const we = w["embed.weight"], be = w["embed.bias"];
    for (let p = 0; p < rows; p++) {
      for (let o = 0; o < D; o++) {
        problem[p * D + o] = be[o] + we[2 * o] * batch.a[p] + we[2 * o + 1] * batch.b[p];
      }
    }
    return problem;
  }

  // LocalCell.forward with every round's activations kept for the backward pass:
  // z = s + E (E = embed(bits)), pre = W1 [z_i, z_{i-1}] + b1, h = relu(pre),
  // s' = tanh(W2 h + b2); the readout of the last round. The round is written twice
  // more, in settledForward below and in models.js's cellStep: this file runs in a Web
  // Worker made from its own text, which cannot reach models.js, and the backward pass
  // needs every round's activations, which the other two do not keep.
  // tests/test_browser_train.py checks the three give the same states.
  function forward(w, batch, nRounds) {
    const { size, n } = batch;
    const rows = size * n;
    const problem = embedProblem(w, batch, rows);
    const states = [new Float64Array(rows * D)]; // s_0 = 0: the input is injected
    const zs = [], hidden = [], raws = []; // raws: each round's state before snapping
    const w1 = w["update.0.weight"], b1 = w["update.0.bias"];
    const w2 = w["update.2.weight"], b2 = w["update.2.bias"];
    for (let r = 0; r < nRounds; r++) {
      const s = states[r];
      const z = new Float64Array(rows * D);
      for (let k = 0; k < z.length; k++) z[k] = s[k] + problem[k]; // LocalCell.step
      const h = new Float64Array(rows * H);
      const next = new Float64Array(rows * D);
      for (let p = 0; p < rows; p++) {
        const below = p % n > 0; // a row of zeros under bit 0
        const ps = p * D, pb = ps - D, ph = p * H;
        for (let j = 0; j < H; j++) {
          let sum = b1[j];
          const row = j * 2 * D;
          for (let k = 0; k < D; k++) sum += w1[row + k] * z[ps + k];
          if (below) for (let k = 0; k < D; k++) sum += w1[row + D + k] * z[pb + k];
          h[ph + j] = sum > 0 ? sum : 0; // relu
        }
        for (let o = 0; o < D; o++) {
          let sum = b2[o];
          const row = o * H;
          for (let j = 0; j < H; j++) sum += w2[row + j] * h[ph + j];
          next[ps + o] = sum;
        }
        // tanh in a loop of its own: inlined into the sums' loop, it slows that loop
        for (let k = ps; k < ps + D; k++) next[k] = exact.tanh(next[k]);
      }
      zs.push(z);
      hidden.push(h);
      raws.push(next);
      if (SETTINGS.snap) {
        const snapped = next.slice();
        snapInPlace(snapped, 0, snapped.length);
        states.push(snapped);
      } else {
        states.push(next);
      }
    }

    const last = states[nRounds];
    const logits = new Float64Array(rows);
    const wr = w["readout.weight"], br = w["readout.bias"];
    for (let p = 0; p < rows; p++) {
      let sum = br[0];
      for (let k = 0; k < D; k++) sum += wr[k] * last[p * D + k];
      logits[p] = sum;
    }
    return { logits, states, zs, hidden, raws, problem };
  }

  // recur.models.cell.window_loss with window 1: binary cross-entropy on the
  // last round's logits, averaged over each sum's positions, then over the kept sums.
  function windowLoss(logits, batch, keep) {
    const { size, n } = batch;
    let total = 0, kept = 0;
    for (let e = 0; e < size; e++) {
      if (!keep[e]) continue;
      kept += 1;
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const x = logits[e * n + i], t = batch.target[e * n + i];
        sum += Math.max(x, 0) - x * t + exact.log1p(exact.exp(-Math.abs(x))); // with logits
      }
      total += sum / n;
    }
    return { loss: total / Math.max(kept, 1), kept: Math.max(kept, 1) };
  }

  // recur.models.cell.hold_loss, weighted by holdCost and averaged over the kept sums
  // (recur.training.loop._step): each sum's mean squared change of its positions'
  // unsnapped states from round to round, the rounds its news arrives left out; with
  // its gradient with respect to every round's unsnapped state (dRaw[r - 1]: round r).
  function holdCost(raws, batch, keep, kept) {
    const { size, n } = batch;
    const nRounds = raws.length;
    const wait = waits(batch);
    const dRaw = raws.map((x) => new Float64Array(x.length));
    let total = 0;
    for (let e = 0; e < size; e++) {
      if (!keep[e]) continue;
      let counted = 0;
      for (let r = 2; r <= nRounds; r++) {
        for (let i = 0; i < n; i++) {
          const wi = wait[e * n + i];
          if (!(r >= wi && r <= wi + HOLD_SLACK)) counted += 1;
        }
      }
      counted = Math.max(counted, 1);
      const scale = SETTINGS.holdCost / kept / counted;
      let sum = 0;
      for (let r = 2; r <= nRounds; r++) {
        const now = raws[r - 1], before = raws[r - 2];
        for (let i = 0; i < n; i++) {
          const wi = wait[e * n + i];
          if (r >= wi && r <= wi + HOLD_SLACK) continue; // news arrives: it may change
          const ps = (e * n + i) * D;
          let squares = 0;
          for (let k = ps; k < ps + D; k++) {
            const diff = now[k] - before[k];
            squares += diff * diff;
            dRaw[r - 1][k] += (2 * scale * diff) / D;
            dRaw[r - 2][k] -= (2 * scale * diff) / D;
          }
          sum += squares / D;
        }
      }
      total += scale * sum;
    }
    return { loss: total, dRaw };
  }

  function zerosLike(w) {
    const g = {};
    for (const name of Object.keys(SHAPES)) g[name] = new Float64Array(w[name].length);
    return g;
  }

  // loss.backward() through the unrolled rounds: the gradient of windowLoss with
  // respect to every weight, round by round from the last.
  function lossAndGradients(w, batch, keep, nRounds) {
    const { size, n } = batch;
    const rows = size * n;
    const run = forward(w, batch, nRounds);
    const task = windowLoss(run.logits, batch, keep);
    const { kept } = task;
    const hold = SETTINGS.holdCost && nRounds > 1 ? holdCost(run.raws, batch, keep, kept) : null;
    const loss = task.loss + (hold ? hold.loss : 0);
    const g = zerosLike(w);
    const wr = w["readout.weight"];
    let ds = new Float64Array(rows * D); // d loss / d s_R
    for (let p = 0; p < rows; p++) {
      const e = Math.floor(p / n);
      if (!keep[e]) continue;
      const x = run.logits[p];
      const dx = (1 / (1 + exact.exp(-x)) - batch.target[p]) / n / kept; // d loss / d logit
      g["readout.bias"][0] += dx;
      for (let k = 0; k < D; k++) {
        g["readout.weight"][k] += dx * run.states[nRounds][p * D + k];
        ds[p * D + k] = dx * wr[k];
      }
    }
    const w1 = w["update.0.weight"], w2 = w["update.2.weight"];
    const gw1 = g["update.0.weight"], gb1 = g["update.0.bias"];
    const gw2 = g["update.2.weight"], gb2 = g["update.2.bias"];
    const dproblem = new Float64Array(rows * D);
    const da = new Float64Array(D), dpre = new Float64Array(H);
    for (let r = nRounds; r >= 1; r--) {
      const s = run.raws[r - 1], z = run.zs[r - 1], h = run.hidden[r - 1];
      if (hold) for (let k = 0; k < ds.length; k++) ds[k] += hold.dRaw[r - 1][k];
      const dz = new Float64Array(rows * D);
      for (let p = 0; p < rows; p++) {
        const ps = p * D, ph = p * H;
        for (let o = 0; o < D; o++) {
          const v = s[ps + o];
          da[o] = ds[ps + o] * (1 - v * v); // tanh (a snap passes the gradient straight)
          gb2[o] += da[o];
        }
        for (let j = 0; j < H; j++) {
          const hj = h[ph + j];
          if (hj <= 0) { dpre[j] = 0; continue; } // relu: no gradient, no weight use
          let dh = 0;
          for (let o = 0; o < D; o++) {
            gw2[o * H + j] += da[o] * hj;
            dh += w2[o * H + j] * da[o];
          }
          dpre[j] = dh;
        }
        const below = p % n > 0;
        const pb = ps - D; // the bit below's row
        for (let j = 0; j < H; j++) {
          const dj = dpre[j];
          if (dj === 0) continue;
          gb1[j] += dj;
          const row = j * 2 * D;
          for (let k = 0; k < D; k++) {
            gw1[row + k] += dj * z[ps + k];
            dz[ps + k] += dj * w1[row + k];
          }
          if (!below) continue;
          for (let k = 0; k < D; k++) {
            gw1[row + D + k] += dj * z[pb + k];
            dz[pb + k] += dj * w1[row + D + k]; // the state of the bit below
          }
        }
      }
      for (let k = 0; k < dz.length; k++) dproblem[k] += dz[k];
      ds = dz; // z = s_{r-1} + E
    }
    for (let p = 0; p < rows; p++) {
      for (let o = 0; o < D; o++) {
        const dE = dproblem[p * D + o];
        g["embed.bias"][o] += dE;
        g["embed.weight"][2 * o] += dE * batch.a[p];
        g["embed.weight"][2 * o + 1] += dE * batch.b[p];
      }
    }
    return { loss, gradients: g };
  }

  // recur.training.loop._step: one optimiser step on one batch; returns the loss.
  function trainingStep(w, adam, batch, keep) {
    const { loss, gradients } = lossAndGradients(w, batch, keep, SETTINGS.nRounds);
    clipGradients(gradients, SETTINGS.clipNorm);
    adamStep(w, gradients, adam, SETTINGS.lr);
    return loss;
  }


  // LocalCell.forward for measuring: only the last state is kept, and a position
  // whose own state and the state below are what they were one round back gets the
  // state it had (the same inputs give the same output); once a sum has settled this
  // skips it (models.js's cellStep, the explorer's copy of the round, does the same for
  // one sum; forward above is the copy that keeps what the backward pass needs; the
  // worker cannot reach models.js). onRound(s, moved)
  // after each round.
  function settledForward(w, batch, nRounds, onRound) {
    const { size, n } = batch;
    const rows = size * n;
    const problem = embedProblem(w, batch, rows);
    const w1 = w["update.0.weight"], b1 = w["update.0.bias"];
    const w2 = w["update.2.weight"], b2 = w["update.2.bias"];
    let state = new Float64Array(rows * D);
    let moved = new Uint8Array(rows).fill(1);
    const z = new Float64Array(rows * D), h = new Float64Array(H);
    for (let r = 0; r < nRounds; r++) {
      for (let k = 0; k < z.length; k++) z[k] = state[k] + problem[k];
      const next = state.slice();
      const nowMoved = new Uint8Array(rows);
      for (let p = 0; p < rows; p++) {
        const below = p % n > 0; // a row of zeros under bit 0
        if (!moved[p] && !(below && moved[p - 1])) continue; // the same inputs
        const ps = p * D, pb = ps - D;
        for (let j = 0; j < H; j++) {
          let sum = b1[j];
          const row = j * 2 * D;
          for (let k = 0; k < D; k++) sum += w1[row + k] * z[ps + k];
          if (below) for (let k = 0; k < D; k++) sum += w1[row + D + k] * z[pb + k];
          h[j] = sum > 0 ? sum : 0; // relu
        }
        for (let o = 0; o < D; o++) {
          let sum = b2[o];
          const row = o * H;
          for (let j = 0; j < H; j++) sum += w2[row + j] * h[j];
          next[ps + o] = sum;
        }
        for (let k = ps; k < ps + D; k++) { // tanh in a loop of its own, as in forward
          next[k] = exact.tanh(next[k]);
          if (SETTINGS.snap) next[k] = next[k] > 0 ? 1 : -1;
          if (next[k] !== state[k]) nowMoved[p] = 1;
        }
      }
      state = next;
      moved = nowMoved;
      onRound(state, moved);
    }
  }

  Object.assign(scope, { SETTINGS, HOLDING, SHAPES, generator, initialWeights,
    randomBatch, chainBatch, trainingBatch, waits, holdCost, forward,
    windowLoss, lossAndGradients, clipGradients, adamStep, trainingStep,
    settledForward });
}

// In a page, the model on window.OneMoreRound.train, where cell_train.js's procedure
// and the tests read it.
window.OneMoreRound = window.OneMoreRound || { models: {} };
window.OneMoreRound.train = {};
cellModel(window.OneMoreRound.train);
