// One More Round in the static page: Chapter 6's procedure, its data and its check, as
// recur.chapters.ch6_act_ut.train_book_act trains BOOK_ACT and recur.chapters.ch6_check
// checks it. Each function names the Python it mirrors; tests/test_browser_act_check.py
// compares them with the library on the same sums.
//
// The model (actModel, act_model.js) puts its forward pass on the same scope; this file
// reads it from there when a measure runs: scope.generator(seed) (mulberry32),
// scope.actRun(w, batch, cap, { heldUntil, ring }) (recur.models.running.run_model of
// the UniversalTransformer, float64) and scope.BOOK_OPTIONS. The two texts run together
// in one Web Worker: nothing here touches the page.
//
// The page's random numbers are its own (mulberry32), not PyTorch's or NumPy's: a seed
// here draws other sums than the same seed in the library, from the same distributions.
//
// A batch: { a, b, target: Uint8Array(size * n), size, n }, bits LSB first, sum e's bit
// i at e * n + i, n positions with the carry out on top (recur.core.tasks.AdditionBatch).
"use strict";

function actProcedure(scope) {
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

  // ------------------------------------------------------------------ measures

  // recur.core.carry.carry_distance for every position of a batch (size * n): i - j
  // where bit j, the highest non-propagating bit below i, generates; else 0.
  function carryDistances(batch) {
    const { size, n, a, b } = batch;
    const distance = new Int32Array(size * n);
    for (let e = 0; e < size; e++) {
      let stop = -1;
      for (let i = 0; i < n; i++) {
        const p = e * n + i;
        distance[p] = stop >= 0 && a[e * n + stop] & b[e * n + stop] ? i - stop : 0;
        if ((a[p] ^ b[p]) === 0) stop = i;
      }
    }
    return distance;
  }

  // recur.chapters.ch6_measures.batch_wait_rounds (recur.core.carry.wait_rounds): the
  // rounds before a window of one can know each position's carry-in, i - j for the
  // highest non-propagating bit j below i (i when every bit below propagates), at least 1.
  function batchWaitRounds(batch) {
    const { size, n, a, b } = batch;
    const wait = new Int32Array(size * n);
    for (let e = 0; e < size; e++) {
      let stop = -1;
      for (let i = 0; i < n; i++) {
        const p = e * n + i;
        wait[p] = Math.max(i - Math.max(stop, 0), 1);
        if ((a[p] ^ b[p]) === 0) stop = i;
      }
    }
    return wait;
  }

  // scope.actRun on a batch in parts of chunk sums (the model runs each sum on its own),
  // the parts' outputs put together; a part that stopped sooner (every position halted)
  // gets h_r = 0 in the later rounds, as a halted position has in the library.
  function runModel(w, batch, cap, options = {}, chunk = SETTINGS.chunk) {
    if (batch.size <= chunk) return scope.actRun(w, batch, cap, options);
    const { size, n } = batch;
    const held = options.heldUntil;
    const stride = held ? held.length / size : 0;
    const logits = new Float64Array(size * n), steps = new Float64Array(size * n);
    const halting = [];
    for (let from = 0; from < size; from += chunk) {
      const to = Math.min(from + chunk, size);
      const opts = { ...options, heldUntil: held ? held.subarray(from * stride, to * stride) : null };
      const out = scope.actRun(w, part(batch, from, to), cap, opts);
      logits.set(out.logits, from * n);
      steps.set(out.steps, from * n);
      out.halting.forEach((h, r) => {
        if (!halting[r]) halting[r] = new Float64Array(size * n);
        halting[r].set(h, from * n);
      });
    }
    return { logits, steps, halting };
  }

  // recur.chapters.ch6_measures.steps_and_right: the steps per position, and whether
  // each sum came out right (every readout logit > 0 where the sum's bit is 1).
  function stepsAndRight(run, batch) {
    const { size, n, target } = batch;
    const right = new Uint8Array(size);
    for (let e = 0; e < size; e++) {
      let ok = 1;
      for (let p = e * n; p < (e + 1) * n && ok; p++) if ((run.logits[p] > 0 ? 1 : 0) !== target[p]) ok = 0;
      right[e] = ok;
    }
    return { steps: run.steps, right };
  }

  // recur.chapters.ch6_measures.ponder_by_position: the model run at the cap, then
  // stepsAndRight.
  function ponderByPosition(w, batch, cap, chunk) {
    return stepsAndRight(runModel(w, batch, cap, {}, chunk), batch);
  }

  // recur.chapters.ch6_measures.beyond_the_carry: the mean of steps - d over the
  // positions whose carry travelled d >= 1 (NaN if none did, as NumPy's empty mean).
  function beyondTheCarry(steps, batch) {
    const distance = carryDistances(batch);
    let total = 0, count = 0;
    for (let p = 0; p < distance.length; p++) {
      if (distance[p] >= 1) {
        total += steps[p] - distance[p];
        count += 1;
      }
    }
    return count ? total / count : NaN;
  }

  // recur.chapters.ch6_measures._halted_early: the share of positions that halted
  // before their carry-in could be known.
  function haltedEarly(steps, batch) {
    const wait = batchWaitRounds(batch);
    let early = 0;
    for (let p = 0; p < wait.length; p++) early += steps[p] < wait[p] ? 1 : 0;
    return early / wait.length;
  }

  // recur.chapters.ch6_check.budget_spent: from the model's output on batch, the largest
  // h_1 + ... + h_r over the rounds r before a waiting position's carry-in can be known
  // (r = wait - 1, at most the rounds run) at the positions with wait >= 2; 0 if none.
  function budgetSpent(run, batch) {
    const wait = batchWaitRounds(batch);
    const rounds = run.halting.length;
    let most = -Infinity, any = false;
    for (let p = 0; p < wait.length; p++) {
      if (wait[p] < 2) continue;
      const last = Math.min(Math.max(wait[p] - 2, 0), rounds - 1);
      let used = 0;
      for (let r = 0; r <= last; r++) used += run.halting[r][p];
      most = Math.max(most, used);
      any = true;
    }
    return any ? most : 0;
  }

  // recur.chapters.ch6_check.delayed_right's held_until: the positions that learn their
  // carry-in in round 2 (just above the lowest bit of a run of propagating bits) keep
  // their first round's state delay more rounds; with the floor bit, one more position
  // below bit 0, never held (size * (n + 1), the floor first).
  function heldUntil(batch, delay, floor) {
    const { size, n } = batch;
    const wait = batchWaitRounds(batch);
    const width = floor ? n + 1 : n, below = floor ? 1 : 0;
    const until = new Int32Array(size * width);
    for (let e = 0; e < size; e++) {
      for (let i = 0; i < n; i++) until[e * width + below + i] = wait[e * n + i] === 2 ? delay : 0;
    }
    return until;
  }

  // recur.chapters.ch6_check.delayed_right: whether each sum comes out right, and the
  // steps per position, with its carries held back delay rounds (heldUntil), at the cap
  // 2 n + delay (n positions: twice_width_plus_one(n - 1) + delay).
  function delayedRight(w, batch, delay, chunk) {
    const until = heldUntil(batch, delay, scope.BOOK_OPTIONS.floor);
    const cap = twiceWidthPlusOne(batch.n - 1) + delay;
    const { steps, right } = stepsAndRight(runModel(w, batch, cap, { heldUntil: until }, chunk), batch);
    return { right, steps };
  }

  // recur.chapters.ch6_check.propagating_rings: every pattern of nBits propagating pairs
  // (pattern k: a = the bits of k, b = 1 - a), nBits positions each, no carry-out place.
  function propagatingRings(nBits = 8) {
    if (!(Number.isInteger(nBits) && nBits >= 1 && nBits <= 16)) throw new Error(`nBits must be in 1..16, got ${nBits}`);
    const size = 2 ** nBits, n = nBits;
    const a = new Uint8Array(size * n), b = new Uint8Array(size * n);
    for (let k = 0; k < size; k++) {
      for (let i = 0; i < n; i++) {
        a[k * n + i] = (k >> i) & 1;
        b[k * n + i] = 1 - a[k * n + i];
      }
    }
    return { a, b, target: new Uint8Array(size * n), size, n };
  }

  // recur.chapters.ch6_check.halting_in_a_ring: the largest h_1 + ... + h_R (at most 1)
  // of any position when every pattern of nBits propagating pairs runs as a ring for
  // nRounds rounds.
  function haltingInARing(w, nBits = SETTINGS.ringBits, nRounds = SETTINGS.ringRounds, chunk) {
    const run = runModel(w, propagatingRings(nBits), nRounds, { ring: true }, chunk);
    const total = new Float64Array(run.steps.length);
    for (const h of run.halting) for (let p = 0; p < total.length; p++) total[p] += h[p];
    return Math.min(1, largest(total));
  }

  // The largest entry (no spread: an array of many thousands would overflow the stack).
  function largest(xs) {
    let most = -Infinity;
    for (const x of xs) most = x > most ? x : most;
    return most;
  }

  function share(right) {
    return right.reduce((t, x) => t + x, 0) / right.length;
  }

  // recur.training.loop._heldout_exact at the check's rounds (the cap): exact match on
  // the first screen pairs; once that reaches the target (stopAtExact, or 1; at the
  // last step always), on every held-out pair. { exact, pairs }: the pairs measured.
  function heldoutExact(w, pairs, settings, lastStep = false) {
    const s = full(settings);
    const target = lastStep ? null : s.stopAtExact || 1.0;
    const measured = (batch) => share(ponderByPosition(w, batch, s.cap, s.chunk).right);
    const first = Math.min(s.screen, pairs.size);
    let exact = measured(part(pairs, 0, first));
    let n = first;
    if (pairs.size > s.screen && (target === null || exact >= target)) {
      exact = measured(pairs);
      n = pairs.size;
    }
    return { exact, pairs: n };
  }

  // The check's sums, drawn from the page's generator seeded seed + CHECK_LONG_CHAINS,
  // CHECK_RANDOM and CHECK_DELAYED (as act_check draws them in the library).
  function checkSums(seed, settings) {
    const s = full(settings), o = s.seedOffsets, bits = s.checkBits;
    return {
      chains: longChainBatch(scope.generator(seed + o.checkLongChains), s.checkSums, bits),
      randoms: randomBatch(scope.generator(seed + o.checkRandom), s.checkSums, bits),
      waits: longChainBatch(scope.generator(seed + o.checkDelayed), s.checkSums, bits, s.delayedKillShare),
    };
  }

  // recur.chapters.ch6_check.act_check: ActCheck's fields after the training check that
  // wrote row ({ step, exact, pairs }). given: { chains, randoms, waits } instead of
  // the drawn sums (the tests pass the library's).
  function actCheck(w, row, seed, settings, given = null) {
    const s = full(settings);
    const { chains, randoms, waits } = given || checkSums(seed, s);
    const cap = twiceWidthPlusOne(s.checkBits);
    const out = runModel(w, chains, cap, {}, s.chunk); // one pass for all
    const { steps, right } = stepsAndRight(out, chains);
    const randomSteps = ponderByPosition(w, randoms, cap, s.chunk).steps;
    const x = beyondTheCarry(steps, chains), y = beyondTheCarry(randomSteps, randoms);
    const beyond = y > x ? y : x; // Python's max(x, y): the worse of the two
    const used = budgetSpent(out, chains);
    const delayed = share(delayedRight(w, waits, s.delay, s.chunk).right);
    const ring = haltingInARing(w, s.ringBits, s.ringRounds, s.chunk);
    const heldout = row.pairs >= s.heldoutSize ? row.exact : 0;
    return { step: row.step, heldout, long_chains: share(right), beyond, budget_used: used, delayed, ring };
  }

  // ActCheck.parts: each part of the check, whether it passed.
  function checkParts(check, settings) {
    const s = full(settings);
    return {
      "held-out pairs": check.heldout === 1,
      "long chains": check.long_chains === 1,
      "steps beyond the carry": check.beyond <= s.maxBeyond,
      "halting budget": check.budget_used <= s.maxBudgetUsed,
      "held-back carries": check.delayed >= s.minDelayed,
      "rings": check.ring <= s.maxRingBudget,
    };
  }

  // ActCheck.passed: every part.
  function checkPassed(check, settings) {
    return Object.values(checkParts(check, settings)).every(Boolean);
  }

  // ActCheck.score: larger is better, compared in order.
  function checkScore(check, settings) {
    return [checkPassed(check, settings) ? 1 : 0, check.heldout + check.long_chains, check.delayed,
      -check.ring, -check.budget_used, -check.beyond];
  }

  // check_a.score() > check_b.score(), as Python compares tuples: at the first entry
  // that differs (NaN differs from everything), whether a's is the larger.
  function betterCheck(a, b, settings) {
    const x = checkScore(a, settings), y = checkScore(b, settings);
    for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k] > y[k];
    return false;
  }

  // ------------------------------------------------------------------ the widths row

  // recur.chapters.ch6_hardest.hardest_columns without the answers' first right rounds
  // (news=False): whether every hardest sum came out right, the most rounds any position
  // ran past the round its carry-in could be known, and the wrong ones' names.
  function hardestColumns(w, nBits, cap, chunk) {
    const hard = hardestSums(nBits);
    const wait = batchWaitRounds(hard.batch);
    const { steps, right } = ponderByPosition(w, hard.batch, cap, chunk);
    let past = -Infinity;
    for (let p = 0; p < wait.length; p++) past = Math.max(past, steps[p] - wait[p]);
    return {
      "hardest sums right": right.every((x) => x === 1),
      "rounds past the carry, hardest sums": past,
      "hardest sums wrong": hard.names.filter((_, e) => !right[e]).join("; "),
    };
  }

  // The sums act_length_table tests a width on: widthSums random ones and widthChains
  // long chains (seeded seed + width), and as many long waits that all end in a kill
  // (seed + KILL_WAIT_SUMS + width; _kill_wait_column). For a run trained in the page
  // from training seed s, seed is s + BROWSER_ACT_SUMS (recur.core.seeds).
  function widthTestSums(seed, nBits, settings) {
    const s = full(settings), killed = seed + s.seedOffsets.killWaitSums + nBits;
    return {
      random: randomBatch(scope.generator(seed + nBits), s.widthSums, nBits),
      chains: longChainBatch(scope.generator(seed + nBits), s.widthChains, nBits),
      waits: longChainBatch(scope.generator(killed), s.widthChains, nBits, 1),
    };
  }

  // recur.chapters.ch6_measures.act_length_table (long chains and long waits without a
  // carry) and hardest_columns, at the cap 2 (n + 1), for each of settings.widths:
  // widthSums random sums (seeded seed + width), widthChains long chains (seed + width)
  // and as many long waits that end in a kill (seed + KILL_WAIT_SUMS + width). given:
  // { [width]: { random, chains, waits } } instead of the drawn sums.
  function widthsRow(w, seed, settings, given = null) {
    const s = full(settings);
    return s.widths.map((nBits) => {
      const cap = twiceWidthPlusOne(nBits);
      const sums = (given && given[nBits]) || widthTestSums(seed, nBits, s);
      const { steps, right } = ponderByPosition(w, sums.random, cap, s.chunk);
      const chains = ponderByPosition(w, sums.chains, cap, s.chunk);
      const waits = ponderByPosition(w, sums.waits, cap, s.chunk);
      const distance = carryDistances(sums.random);
      return {
        bits: nBits, cap, exact: share(right),
        "exact, long chains": share(chains.right),
        "halted before the carry, long chains": haltedEarly(chains.steps, sums.chains),
        "exact, long waits without a carry": share(waits.right),
        "mean steps": steps.reduce((t, x) => t + x, 0) / steps.length,
        "steps beyond the carry": beyondTheCarry(steps, sums.random),
        "max steps": largest(steps),
        "halted before the carry": haltedEarly(steps, sums.random),
        "longest chain": largest(distance),
        ...hardestColumns(w, nBits, cap, s.chunk),
      };
    });
  }

  Object.assign(scope, {
    SETTINGS, VARIANTS, settingsFor, pyRound, twiceWidthPlusOne, sumBits, batchFromBits,
    randomBatch, chainBatch, concatBatches, part, longChainBatch, trainingBatch, pairKey,
    heldoutKeys, heldoutPairs, notHeldOut, hardestSums, attemptSeeds,
    carryDistances, batchWaitRounds, runModel, stepsAndRight, ponderByPosition,
    beyondTheCarry, haltedEarly, budgetSpent, heldUntil, delayedRight, propagatingRings,
    haltingInARing, heldoutExact, checkSums, actCheck, checkParts, checkPassed, checkScore,
    betterCheck, hardestColumns, widthTestSums, widthsRow,
  });
}

// In a page, after act_model.js: the procedure beside the model, on the same scope.
if (typeof window !== "undefined") {
  window.OneMoreRound = window.OneMoreRound || { models: {} };
  window.OneMoreRound.act = window.OneMoreRound.act || {};
  actProcedure(window.OneMoreRound.act);
}
