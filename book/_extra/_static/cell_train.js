// One More Round in the static page: Chapter 2's cell trained in the reader's browser,
// as recur.chapters.ch2_shared_update.train_cell trains it (the same model, loss, optimiser
// and step size, rounds, training widths, check and restart). Each function names the
// Python it mirrors; the browser tests check the loss, every gradient and fifty Adam
// steps against PyTorch on the same weights and batches. The page's random numbers are
// its own (mulberry32), not PyTorch's: a seed here starts another run than the same
// seed in the library.
//
// Everything lives inside cellTrainer(scope), so that the same source runs in the page
// (the tests call it there) and in a Web Worker made from this function's own text,
// exactMath's and trainKit's (exact_math.js and train_kit.js, which the page loads
// first: a worker needs no file of its own, so it works from a file:// page too). Its exp, log1p, tanh and powers are
// exactMath's, not the engine's Math: a seed trains the same model in every browser.
"use strict";

function cellTrainer(scope) {
  const D = 16; // LocalCell's d_state
  const H = 32; // LocalCell's d_hidden
  const SHAPES = { // LocalCell.state_dict(): name -> [rows, columns] (bias: [rows])
    "embed.weight": [D, 2], "embed.bias": [D],
    "update.0.weight": [H, 2 * D], "update.0.bias": [H],
    "update.2.weight": [D, H], "update.2.bias": [D],
    "readout.weight": [1, D], "readout.bias": [1],
  };
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
  const SCREEN = 1000; // recur.training.loop._heldout_exact's quick screen
  // What a run adds to its seed for each draw: recur.core.seeds's HELDOUT_PAIRS,
  // PAGE_BATCHES and RESTART_STRIDE (tests/test_seed_literals.py compares them).
  const SEED_OFFSETS = { heldoutPairs: 1000003, batches: 7, restartStride: 1000 };
  const exact = exactMath(); // rounded alike in every browser, unlike Math.exp and **
  const kit = trainKit(exact); // what both trainers share (train_kit.js)
  const { generator, part, randomBatch, chainBatch, concatBatches } = kit;
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

  // A pair's key (maxBits 8: a + 256 b), for keeping held-out pairs out of training.
  function pairKey(batch, e) {
    let key = 0;
    for (let i = batch.n - 2; i >= 0; i--) key = key * 4 + batch.a[e * batch.n + i] * 2 + batch.b[e * batch.n + i];
    return key;
  }

  // recur.training.loop.heldout_pairs: evalSize pairs of maxBits bits, never trained on.
  function heldoutPairs(seed) {
    const pairs = randomBatch(generator(seed + SEED_OFFSETS.heldoutPairs), SETTINGS.evalSize, SETTINGS.maxBits, SETTINGS.maxBits);
    const heldout = new Uint8Array(4 ** SETTINGS.maxBits);
    for (let e = 0; e < pairs.size; e++) heldout[pairKey(pairs, e)] = 1;
    return { pairs, heldout };
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

  // recur.training.evaluate.evaluate: which sums are right after each round 1..R,
  // as one Uint8Array per round (1: every bit of that sum right).
  function rightByRound(w, batch, nRounds) {
    const { size, n } = batch;
    const wr = w["readout.weight"], br = w["readout.bias"];
    const out = [];
    settledForward(w, batch, nRounds, (s, moved) => {
      const right = out.length ? out[out.length - 1].slice() : new Uint8Array(size);
      for (let e = 0; e < size; e++) {
        let changed = out.length === 0;
        for (let i = 0; i < n && !changed; i++) changed = moved[e * n + i] === 1;
        if (!changed) continue; // no state of this sum moved: its readout is the same
        let ok = 1;
        for (let p = e * n; p < (e + 1) * n && ok; p++) {
          let sum = br[0];
          for (let k = 0; k < D; k++) sum += wr[k] * s[p * D + k];
          if ((sum > 0 ? 1 : 0) !== batch.target[p]) ok = 0;
        }
        right[e] = ok;
      }
      out.push(right);
    });
    return out;
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

  // recur.training.loop._heldout_exact at the trained rounds: the quick screen of
  // SCREEN pairs, then every held-out pair once the screen is all right.
  function heldoutExact(w, pairs) {
    const share = (batch) => rightByRound(w, batch, SETTINGS.nRounds)[SETTINGS.nRounds - 1]
      .reduce((x, y) => x + y, 0) / batch.size;
    const screen = share(part(pairs, 0, SCREEN));
    return screen < 1 ? { exact: screen, pairs: SCREEN } : { exact: share(pairs), pairs: pairs.size };
  }

  // recur.training.checked.stays_right: the share of the pairs right after the
  // trained rounds and after every round through stayRounds.
  function staysRight(w, pairs) {
    let stays = 0;
    for (let from = 0; from < pairs.size; from += 500) {
      const batch = part(pairs, from, Math.min(from + 500, pairs.size));
      const rounds = rightByRound(w, batch, SETTINGS.stayRounds);
      for (let e = 0; e < batch.size; e++) {
        let ok = 1;
        for (let r = SETTINGS.nRounds - 1; r < SETTINGS.stayRounds; r++) ok &= rounds[r][e];
        stays += ok;
      }
    }
    return stays / pairs.size;
  }

  // recur.training.checked._checking: the stay check runs only once every held-out
  // pair was measured (not only the screen) and every one is right ...
  function needsStayCheck(row, nPairs) {
    return row.pairs === nPairs && row.exact === 1;
  }

  // ... and the check passes (recur.training.checked.Check.passed) when it then finds
  // every pair right after the trained rounds and through stayRounds.
  function checkPasses(row, nPairs) {
    return needsStayCheck(row, nPairs) && row.stays === 1;
  }

  // One run of recur.training.checked.checked_training: train, and every evalEvery
  // steps check the held-out pairs; stop at the first check at which every one is right
  // and stays right. report({step, loss, ...}) is called after each step.
  function trainOnce(seed, report, stopped) {
    const w = initialWeights(seed);
    const rand = generator(seed + SEED_OFFSETS.batches);
    const { pairs, heldout } = heldoutPairs(seed);
    const adam = { step: 0, m: {}, v: {} };
    const start = Date.now();
    let last = null;
    for (let step = 1; step <= SETTINGS.nSteps; step++) {
      if (stopped()) return { w, seed, passed: false, stopped: true, step: step - 1, last, seconds: (Date.now() - start) / 1000 };
      const batch = trainingBatch(rand);
      const keep = Uint8Array.from({ length: batch.size }, (_, e) => 1 - heldout[pairKey(batch, e)]);
      const loss = trainingStep(w, adam, batch, keep);
      const row = { step, loss, seed, w };
      if (step % SETTINGS.evalEvery === 0 || step === SETTINGS.nSteps) {
        Object.assign(row, heldoutExact(w, pairs));
        if (needsStayCheck(row, pairs.size)) row.stays = staysRight(w, pairs);
        last = row;
      }
      report(row);
      if (checkPasses(row, pairs.size)) return { w, seed, passed: true, step, last, seconds: (Date.now() - start) / 1000 };
    }
    return { w, seed, passed: false, step: SETTINGS.nSteps, last, seconds: (Date.now() - start) / 1000 };
  }

  // recur.training.config.attempt_seeds: seed, seed + restartStride, ...,
  // maxAttempts in all.
  function attemptSeeds(seed, maxAttempts) {
    return Array.from({ length: maxAttempts }, (_, attempt) => seed + SEED_OFFSETS.restartStride * attempt);
  }

  // recur.chapters.ch2_shared_update.train_cell (recur.training.config.restarting): a
  // run from each of attemptSeeds in turn, until one passes its check.
  function trainCell(seed, report, stopped = () => false) {
    const runs = [];
    for (const [attempt, attemptSeed] of attemptSeeds(seed, SETTINGS.maxAttempts).entries()) {
      const run = trainOnce(attemptSeed, (row) => report({ ...row, attempt }), stopped);
      runs.push(run);
      if (run.passed || run.stopped) break;
    }
    const kept = runs[runs.length - 1];
    return { ...kept, attempts: runs.length, seconds: runs.reduce((t, r) => t + r.seconds, 0) };
  }

  Object.assign(scope, { SETTINGS, HOLDING, SCREEN, SHAPES, generator, initialWeights,
    randomBatch, chainBatch, trainingBatch, waits, holdCost, forward,
    windowLoss, lossAndGradients, clipGradients, adamStep, trainingStep, rightByRound,
    settledForward, heldoutPairs, heldoutExact, staysRight, needsStayCheck, checkPasses,
    attemptSeeds, trainOnce, trainCell });

  if (typeof WorkerGlobalScope !== "undefined" && scope instanceof WorkerGlobalScope) {
    // The page stops a run by ending the worker; so that it keeps what was trained,
    // each progress message (a few a second, and every check) carries the weights.
    scope.onmessage = (event) => {
      Object.assign(SETTINGS, event.data.settings || {});
      let lastPost = 0;
      const done = trainCell(event.data.seed, (row) => {
        if (row.exact === undefined && Date.now() - lastPost < 150) return;
        lastPost = Date.now();
        scope.postMessage({ progress: row });
      });
      scope.postMessage({ done });
    };
  }
}

window.OneMoreRound = window.OneMoreRound || { models: {} };
window.OneMoreRound.train = {};
cellTrainer(window.OneMoreRound.train);

// ------------------------------------------------------------------ the page's trainer

// recur.core.device.seed_everything's check, and the range this page's generator takes.
const MAX_SEED = 2 ** 31 - 1 - 1000 * (Math.max(cellTrainerSettings().maxAttempts,
  window.OneMoreRound.train.HOLDING.maxAttempts) - 1);
function cellTrainerSettings() { return window.OneMoreRound.train.SETTINGS; }
function checkedSeed(text) {
  const value = text.trim();
  if (!/^-?\d+$/.test(value)) throw new Error(`seed must be an integer, got '${text}'`);
  const seed = Number(value);
  if (seed < 0 || seed > MAX_SEED) throw new Error(`seed must be in 0..${MAX_SEED}, got ${seed}`);
  return seed;
}

// The seed in the page's address, so that a link reproduces a run: the trainer reads
// `?seed=31` (the query parameter "seed", e.g. .../02_shared_update.html?seed=31#train)
// when the page loads and shows it in the seed field as it is written, a seed that
// checkedSeed refuses included (Train then says why); Train writes the seed it runs
// into the address (history.replaceState: no new history entry, nothing reloaded).
const SEED_PARAMETER = "seed";
function seedInAddress() {
  return new URLSearchParams(window.location.search).get(SEED_PARAMETER);
}
function putSeedInAddress(seed) {
  const url = new URL(window.location.href);
  url.searchParams.set(SEED_PARAMETER, String(seed));
  try {
    window.history.replaceState(window.history.state, "", url.href);
  } catch {
    // a page whose address cannot change (some file:// pages, a sandbox): train anyway
  }
}

// A Web Worker running cellTrainer (and the exactMath it calls) from their own source,
// so the page stays responsive.
function trainerWorker() {
  const source = `"use strict";\n${exactMath}\n${trainKit}\n${cellTrainer}\ncellTrainer(self);\n`;
  return new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
}

// The loss so far as a line, log scale, steps along the bottom.
function drawLoss(svg, points, nSteps) {
  const [width, height] = [480, 140];
  const logs = points.map((p) => Math.log10(Math.max(p.loss, 1e-6)));
  const [low, high] = [Math.floor(Math.min(...logs, -3)), Math.ceil(Math.max(...logs, 0))];
  const xy = points.map((p, k) => `${(p.x / nSteps) * width},${height - ((logs[k] - low) / (high - low)) * height}`);
  svg.innerHTML = `<rect width="${width}" height="${height}" fill="none" stroke="#ccc"/>` +
    `<polyline fill="none" stroke="#1f4e79" stroke-width="1.5" points="${xy.join(" ")}"/>` +
    `<text x="4" y="15" font-size="14">loss, log scale: ${10 ** Math.round(high)} at the top, ` +
    `${10 ** Math.round(low)} at the bottom</text>` +
    `<text x="${width - 4}" y="${height - 4}" font-size="14" text-anchor="end">training steps, all runs</text>`;
}

function trainerParts(root) {
  root.innerHTML =
    "<label>seed <input type='text' class='trainer-seed' size='10'></label> " +
    "<button type='button' class='trainer-train'>Train</button> " +
    "<button type='button' class='trainer-stop' disabled>Stop</button> " +
    "<progress class='trainer-progress' value='0' aria-label='training progress'></progress>" +
    "<div class='trainer-message' aria-live='polite'></div>" +
    "<svg class='trainer-loss' viewBox='0 0 480 140' role='img' " +
    "aria-label='the training loss so far, step by step' " +
    "style='width:100%;max-width:480px;height:auto;display:block'></svg>";
  const part = (name) => root.querySelector(`.trainer-${name}`);
  part("seed").value = seedInAddress() ?? root.dataset.seed;
  return { seed: part("seed"), train: part("train"), stop: part("stop"),
    progress: part("progress"), message: part("message"), loss: part("loss") };
}

// What happened, from the run's own result (never assumed).
function trainerWords(done, seed, where) {
  const runs = done.attempts === 1 ? "one run" : `${done.attempts} runs`;
  const time = `${done.seconds.toFixed(0)} s`;
  if (done.passed) {
    return `Seed ${seed} passed its check at step ${done.step} of run ${done.attempts} ` +
      `(every held-out pair right after 9 rounds and through round 64), in ${runs} and ${time}. ` +
      `The explorer ${where} now runs the cell you trained.`;
  }
  const held = done.last ? ` (its last check: ${(100 * done.last.exact).toFixed(1)}% of ` +
    `${done.last.pairs} held-out pairs right)` : "";
  return `Seed ${seed} passed no check in ${runs} and ${time}${held}. The explorer ` +
    `${where} now runs the last run's weights, so you can see where it goes wrong.`;
}

// The explorer that runs a cell trained in the page: the chapter's own (the fading
// cell's explorer keeps its cell).
const TRAINED_EXPLORER = '.cell-explorer[data-model="ch2_cell"]';

function useTrainedCell(weights, seed, snap) {
  const spec = { kind: "cell", options: { inject: true, snap }, unpacked: weights, seed };
  window.OneMoreRound.trainedCell = spec;
  document.querySelectorAll(TRAINED_EXPLORER).forEach((explorer) => {
    window.OneMoreRound.mountCellExplorer(explorer, spec);
  });
}

// Where the page's cell explorer is, seen from the trainer: "above" or "below".
function explorerSide(root) {
  const explorer = document.querySelector(TRAINED_EXPLORER);
  if (!explorer) return "below";
  return root.compareDocumentPosition(explorer) & Node.DOCUMENT_POSITION_PRECEDING ? "above" : "below";
}

function mountCellTrainer(root) {
  const ui = trainerParts(root);
  const where = explorerSide(root);
  const settings = cellTrainerSettings();
  const overrides = JSON.parse(root.dataset.settings || "{}"); // the tests' short runs
  const nSteps = overrides.nSteps || settings.nSteps;
  let worker = null, points = [], latest = null, seed = null;
  const finish = () => {
    worker?.terminate();
    worker = null;
    ui.train.disabled = false;
    ui.stop.disabled = true;
  };
  ui.train.addEventListener("click", () => {
    try {
      seed = checkedSeed(ui.seed.value);
    } catch (err) {
      return warning(ui.message, err.message);
    }
    putSeedInAddress(seed);
    finish();
    points = [];
    latest = null;
    ui.progress.max = nSteps * (overrides.maxAttempts || settings.maxAttempts);
    ui.progress.value = 0;
    ui.train.disabled = true;
    ui.stop.disabled = false;
    ui.message.textContent = `Training from seed ${seed} in your browser…`;
    worker = trainerWorker();
    worker.onmessage = (event) => {
      const { progress, done } = event.data;
      if (progress) {
        latest = progress;
        const x = progress.attempt * nSteps + progress.step;
        points.push({ x, loss: progress.loss });
        ui.progress.value = x;
        drawLoss(ui.loss, points, nSteps * (progress.attempt + 1)); // this run's end
        const check = progress.exact === undefined ? "" :
          `; held-out pairs right: ${(100 * progress.exact).toFixed(1)}% of ${progress.pairs}`;
        ui.message.textContent = `Run ${progress.attempt + 1}, step ${progress.step}: ` +
          `loss ${progress.loss.toFixed(4)}${check}`;
      }
      if (done) {
        finish();
        ui.progress.value = ui.progress.max;
        ui.message.textContent = trainerWords(done, seed, where);
        if (points.length) drawLoss(ui.loss, points, points[points.length - 1].x); // all of it
        useTrainedCell(done.w, seed, Boolean(overrides.snap));
      }
    };
    worker.onerror = (event) => {
      finish();
      warning(ui.message, `training stopped with an error: ${event.message}`);
    };
    worker.postMessage({ seed, settings: overrides });
  });
  ui.stop.addEventListener("click", () => {
    finish();
    if (!latest) return (ui.message.textContent = "Stopped before the first step.");
    ui.message.textContent = `Stopped at step ${latest.step} of run ${latest.attempt + 1}. ` +
      `The explorer ${where} now runs the weights trained so far.`;
    useTrainedCell(latest.w, seed, Boolean(overrides.snap));
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".cell-trainer").forEach(mountCellTrainer);
});
