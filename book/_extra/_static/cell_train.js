// One More Round in the static page: Chapter 2's procedure as
// recur.chapters.ch2_shared_update.train_cell runs it (the held-out pairs, the check
// every evalEvery steps, the restarts), and the page's trainer that runs it in a Web
// Worker (the seed, Train and Stop, the loss so far). Each function names the Python it
// mirrors; tests/test_browser_cell_procedure.py compares them with the library.
//
// cellTrainer(scope) reads the cell from scope, where cellModel (cell_model.js, which
// the page loads first) put it: SETTINGS, SHAPES, initialWeights, trainingBatch,
// trainingStep and settledForward. SETTINGS is the model's own object, so that a run's
// settings, assigned into it, reach the model's steps too. The procedure's functions go
// on the same scope, beside the model's. The Web Worker is made from the text of
// exactMath, trainKit, cellModel and cellTrainer (a worker needs no file of its own, so
// it works from a file:// page too).
"use strict";

function cellTrainer(scope) {
  const { SETTINGS, SHAPES, initialWeights, trainingBatch, trainingStep, settledForward } = scope;
  const { generator, part, randomBatch } = trainKit(exactMath()); // as cellModel's
  const D = SHAPES["embed.bias"][0]; // LocalCell's d_state
  const SCREEN = 1000; // recur.training.loop._heldout_exact's quick screen
  // What a run adds to its seed for each draw: recur.core.seeds's HELDOUT_PAIRS,
  // PAGE_BATCHES and RESTART_STRIDE (tests/test_seed_literals.py compares them).
  const SEED_OFFSETS = { heldoutPairs: 1000003, batches: 7, restartStride: 1000 };

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

  Object.assign(scope, { SCREEN, rightByRound, heldoutPairs, heldoutExact, staysRight,
    needsStayCheck, checkPasses, attemptSeeds, trainOnce, trainCell });

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

// In a page, after cell_model.js: the procedure beside the model, on the same scope.
cellTrainer(window.OneMoreRound.train);

// ------------------------------------------------------------------ the page's trainer

// The largest seed whose restarts stay 31-bit seeds (checkedSeed, trainer_page.js).
const MAX_SEED = 2 ** 31 - 1 - 1000 * (Math.max(cellTrainerSettings().maxAttempts,
  window.OneMoreRound.train.HOLDING.maxAttempts) - 1);
function cellTrainerSettings() { return window.OneMoreRound.train.SETTINGS; }

// A Web Worker running cellModel and cellTrainer (and the exactMath and trainKit they
// call) from their own source, so the page stays responsive; the procedure reads the
// model from the worker's scope, so the model goes on it first.
function trainerWorker() {
  const source = `"use strict";\n${exactMath}\n${trainKit}\n${cellModel}\n${cellTrainer}\n` +
    "cellModel(self);\ncellTrainer(self);\n";
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
  return trainerControls(root, "<svg class='trainer-loss' viewBox='0 0 480 140' role='img' " +
    "aria-label='the training loss so far, step by step' " +
    "style='width:100%;max-width:480px;height:auto;display:block'></svg>", ["loss"]);
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
      seed = checkedSeed(ui.seed.value, MAX_SEED);
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
