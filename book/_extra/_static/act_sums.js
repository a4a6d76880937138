// One More Round in the static page: the settings, draws and sums of Chapter 6's
// procedure, as recur.chapters.ch6_act_ut.train_book_act draws its batches and
// recur.chapters.ch6_check its sums. Each function names the Python it mirrors;
// tests/test_browser_act_check.py compares them with the library on the same seeds.
//
// actSums(scope) puts them on scope, where the check (actProcedure, act_check.js) and the
// trainer (act_train.js) read them; it reads scope.generator(seed) (mulberry32, from
// actModel) when it draws held-out pairs. The page's random numbers are its own, not
// PyTorch's or NumPy's: a seed here draws other sums than the same seed in the library,
// from the same distributions.
//
// A batch: { a, b, target: Uint8Array(size * n), size, n }, bits LSB first, sum e's bit
// i at e * n + i, n positions with the carry out on top (recur.core.tasks.AdditionBatch).
"use strict";

function actSums(scope) {
  // shared with the cell's trainer (train_kit.js)
  const { sumBits, part, batchFromBits, randomBatch, chainBatch, concatBatches } =
    trainKit(exactMath());
  // Every number of the procedure and its check, by the Python that sets it.
  const SETTINGS = {
    // recur.training.ut_recipe.BOOK_ACT and train_ut's TrainConfig
    nSteps: 1200, lr: 3e-3, lrDecay: "cosine", batchSize: 64, clipNorm: 1.0,
    minBits: 1, maxBits: 8, chainShare: 0.25, chainKillShare: 0.5,
    cap: 16, // n_rounds: ACT's step cap while training, and the held-out check's rounds
    lossWindow: 1, auxWarmup: 500, // ACT_RAMP_STEPS: the ponder cost's ramp
    ponderWeight: 0.1, haltNoise: 2.0, pause: 0.25, // BOOK_ACT.model (tau, noise, pause)
    evalEvery: 100, evalSize: 10000, stopAtExact: null,
    screen: 1000, // recur.training.loop._heldout_exact's quick screen
    // recur.chapters.ch6_act_ut.train_book_act's defaults and GIVE_UP_STEP
    firstCheck: 600, giveUp: 1000, maxAttempts: 3,
    // recur.chapters.ch6_check
    checkSums: 1000, // CHECK_SUMS
    checkBits: 8, // the check's sums are 8 bits wide
    heldoutSize: 10000, // HELDOUT_SIZE: a check counts held-out pairs only if all measured
    maxBeyond: 0.5, // MAX_BEYOND
    maxBudgetUsed: 0.99 / 8, // MAX_BUDGET_USED
    delay: 56, // DELAY
    minDelayed: 0.99, // MIN_DELAYED
    delayedKillShare: 0.5, // act_check's held-back sums: half end in a kill
    ringBits: 8, ringRounds: 8 + 56, // RING_ROUNDS = 8 + DELAY
    maxRingBudget: 0.5, // MAX_RING_BUDGET
    // recur.studies.seed_study: the widths a trained model is tested on, and how many
    // random sums (TEST_SUMS) and long chains / long waits (TEST_CHAINS) of each
    widths: [8, 16, 32, 64], widthSums: 300, widthChains: 100,
    chunk: 1000, // sums per call of the model (recur.training.evaluate.evaluate chunks too)
    // What a run adds to its seed for each draw (recur.core.seeds)
    seedOffsets: {
      heldoutPairs: 1000003, // HELDOUT_PAIRS
      checkLongChains: 2000003, // CHECK_LONG_CHAINS
      checkDelayed: 3000017, // CHECK_DELAYED
      checkRandom: 4000037, // CHECK_RANDOM
      restartStride: 1000, // RESTART_STRIDE
      batches: 7, // PAGE_BATCHES: the page's training batches
      killWaitSums: 1000000, // KILL_WAIT_SUMS: a widths row's long waits, no carry
      browserActSums: 20400000, // BROWSER_ACT_SUMS: the widths row of a run trained here
    },
  };
  // The settings by name, which the page's trainer and its study
  // (benchmarks/browser_act_train.py, column "variant") record; the book's is the one.
  const VARIANTS = {
    book: {},
  };
  function settingsFor(name = "book", overrides = {}) {
    if (!(name in VARIANTS)) throw new Error(`no settings called '${name}'`);
    return { ...SETTINGS, ...VARIANTS[name], ...overrides };
  }
  const full = (settings) => ({ ...SETTINGS, ...(settings || {}) });

  // ------------------------------------------------------------------ draws and batches

  // Python's round(): halves to even (recur.training.loop._training_batch's n_chain).
  function pyRound(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  // recur.core.tasks.twice_width_plus_one: the test-time cap 2 (n + 1).
  function twiceWidthPlusOne(nBits) {
    return 2 * (nBits + 1);
  }

  // recur.core.tasks.long_chain_batch: equal shares (the first ones one larger) with
  // chains of n/2, 3n/4 and n bits (fewer kinds at tiny widths); with killShare, that
  // share of them ends its run in a kill.
  function longChainBatch(rand, size, nBits, killShare = 0) {
    const lengths = [...new Set([Math.max(1, Math.floor(nBits / 2)),
      Math.max(1, Math.floor((3 * nBits) / 4)), nBits])].sort((x, y) => x - y);
    const parts = [];
    lengths.forEach((length, k) => {
      const share = Math.floor(size / lengths.length) + (k < size % lengths.length ? 1 : 0);
      if (share) parts.push(chainBatch(rand, share, nBits, length, killShare));
    });
    return concatBatches(...parts);
  }

  // recur.training.loop._training_batch: random sums of minBits..maxBits bits; the last
  // round(chainShare * batchSize) of them replaced by maxBits-bit sums whose longest
  // chain has one length, drawn for the batch from 1..maxBits, a chainKillShare of them
  // ending in a kill.
  function trainingBatch(rand, settings) {
    const s = full(settings);
    const nChain = pyRound(s.chainShare * s.batchSize);
    if (nChain === 0) return randomBatch(rand, s.batchSize, s.maxBits, s.minBits);
    const length = 1 + Math.floor(rand() * s.maxBits);
    const chains = chainBatch(rand, nChain, s.maxBits, length, s.chainKillShare);
    if (nChain === s.batchSize) return chains;
    return concatBatches(randomBatch(rand, s.batchSize - nChain, s.maxBits, s.minBits), chains);
  }

  // recur.training.loop._pair_keys: one number per pair, exact over every position
  // (a + 2^n b, bits LSB first; n up to 26 positions).
  function pairKey(batch, e) {
    const n = batch.n;
    if (n > 26) throw new Error(`pairKey holds sums of at most 26 positions, got ${n}`);
    let a = 0, b = 0;
    for (let i = n - 1; i >= 0; i--) {
      a = a * 2 + batch.a[e * n + i];
      b = b * 2 + batch.b[e * n + i];
    }
    return a + 2 ** n * b;
  }

  // recur.training.loop.heldout_pairs: the held-out keys; none when the pairs would be
  // a large part of all pairs (4 * evalSize > 2^(2 maxBits)).
  function heldoutKeys(pairs, maxBits) {
    const keys = new Set();
    if (4 * pairs.size > 2 ** (2 * maxBits)) return keys;
    for (let e = 0; e < pairs.size; e++) keys.add(pairKey(pairs, e));
    return keys;
  }

  // recur.training.loop.heldout_pairs: evalSize pairs of maxBits bits, drawn from
  // seed + HELDOUT_PAIRS, and the keys that keep them out of training.
  function heldoutPairs(seed, settings) {
    const s = full(settings);
    const rand = scope.generator(seed + s.seedOffsets.heldoutPairs);
    const pairs = randomBatch(rand, s.evalSize, s.maxBits, s.maxBits);
    return { pairs, heldout: heldoutKeys(pairs, s.maxBits) };
  }

  // recur.training.loop._not_held_out: 1 for the sums that may be trained on.
  function notHeldOut(batch, heldout) {
    return Uint8Array.from({ length: batch.size }, (_, e) => (heldout.has(pairKey(batch, e)) ? 0 : 1));
  }

  // recur.core.hardest._alternating: nBits alternating digits, the lowest first, MSB first.
  function alternating(nBits, first) {
    const other = first === "0" ? "1" : "0";
    let text = "";
    for (let k = 0; k < nBits; k++) text += (nBits - 1 - k) % 2 === 0 ? first : other;
    return text;
  }

  // recur.core.hardest.hardest_sums: the hardest nBits-bit sums by name (MSB-first
  // strings, as _pairs writes them) and their batch.
  function hardestSums(nBits) {
    if (!Number.isInteger(nBits) || nBits < 4) throw new Error(`nBits must be an integer >= 4, got ${nBits}`);
    const n = nBits;
    const ones = "1".repeat(n), zero = "0".repeat(n), one = "0".repeat(n - 1) + "1";
    const alt = alternating(n, "1"), altOther = alternating(n, "0");
    const top = "1" + "0".repeat(n - 1);
    const pairs = [
      ["all ones + 1", ones, one],
      ["1 + all ones", one, ones],
      ["1 + 1 under alternating propagates", alt, altOther.slice(0, -1) + "1"],
      ["0111…1 + 0000…1", "0" + ones.slice(1), one],
      ["all ones + 0", ones, zero],
      ["0 + all ones", zero, ones],
      ["alternating + its complement", alt, altOther],
      ["1111…0 + 0", ones.slice(0, -1) + "0", zero],
      ["all ones + all ones", ones, ones],
      ["0 + 0", zero, zero],
      ["alternating + 0", alt, zero],
      ["top bit + top bit", top, top],
    ];
    const size = pairs.length;
    const aBits = new Uint8Array(size * n), bBits = new Uint8Array(size * n);
    pairs.forEach(([, a, b], e) => {
      for (let i = 0; i < n; i++) {
        aBits[e * n + i] = a[n - 1 - i] === "1" ? 1 : 0; // LSB first
        bBits[e * n + i] = b[n - 1 - i] === "1" ? 1 : 0;
      }
    });
    return { names: pairs.map((p) => p[0]), pairs: pairs.map((p) => [p[1], p[2]]),
      batch: batchFromBits(aBits, bBits, size, n) };
  }

  // recur.core.seeds.RESTART_STRIDE, recur.training.config.attempt_seeds.
  function attemptSeeds(seed, maxAttempts) {
    if (maxAttempts < 1) throw new Error(`maxAttempts must be >= 1, got ${maxAttempts}`);
    return Array.from({ length: maxAttempts }, (_, k) => seed + SETTINGS.seedOffsets.restartStride * k);
  }

  Object.assign(scope, {
    SETTINGS, VARIANTS, settingsFor, fullSettings: full, pyRound, twiceWidthPlusOne, sumBits,
    batchFromBits, randomBatch, chainBatch, concatBatches, part, longChainBatch,
    trainingBatch, pairKey, heldoutKeys, heldoutPairs, notHeldOut, hardestSums, attemptSeeds,
  });
}

// In a page, after act_model.js: the sums beside the model, on the same scope.
if (typeof window !== "undefined") {
  window.OneMoreRound = window.OneMoreRound || { models: {} };
  window.OneMoreRound.act = window.OneMoreRound.act || {};
  actSums(window.OneMoreRound.act);
}
