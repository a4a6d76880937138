// One More Round in the static page: Chapter 6's check and the measures it is made of,
// as recur.chapters.ch6_check checks BOOK_ACT and recur.studies.seed_study tests a
// trained model's widths. Each function names the Python it mirrors;
// tests/test_browser_act_check.py compares them with the library on the same sums.
//
// actProcedure(scope) reads from scope what actModel (act_model.js) and actSums
// (act_sums.js) put there: scope.actRun(w, batch, cap, { heldUntil, ring })
// (recur.models.running.run_model of the UniversalTransformer, float64),
// scope.BOOK_OPTIONS, the settings and the sums. The three texts run together in one
// Web Worker: nothing here touches the page.
"use strict";

function actProcedure(scope) {
  const { SETTINGS, fullSettings: full, twiceWidthPlusOne, longChainBatch, hardestSums, part,
    randomBatch } = scope; // the settings and the sums (act_sums.js)

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
    carryDistances, batchWaitRounds, runModel, stepsAndRight, ponderByPosition,
    beyondTheCarry, haltedEarly, budgetSpent, heldUntil, delayedRight, propagatingRings,
    haltingInARing, heldoutExact, checkSums, actCheck, checkParts, checkPassed,
    checkScore, betterCheck, hardestColumns, widthTestSums, widthsRow,
  });
}

// In a page, after act_model.js and act_sums.js: the check beside them, on the same scope.
if (typeof window !== "undefined") {
  window.OneMoreRound = window.OneMoreRound || { models: {} };
  window.OneMoreRound.act = window.OneMoreRound.act || {};
  actProcedure(window.OneMoreRound.act);
}
