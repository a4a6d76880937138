// One More Round in the static page: Chapter 6's procedure run in the reader's browser,
// as recur.chapters.ch6_act_ut.train_book_act runs it: BOOK_ACT trained (act_model.js),
// checked from step 600 on with Chapter 6's check (act_check.js), the best checkpoint
// kept, a run that has not passed by step 1,000 given up while another may follow, at
// most three runs. The page's random numbers are its own (mulberry32): a seed here
// starts another run than the same seed in the library.
//
// actTrainer(scope) reads the model, the sums and the check from scope; the page's Web
// Worker is made from the text of their functions (actTape, actModel, actSums,
// actProcedure), of this one, and of exactMath and trainKit, which they call (no second
// file: it works from file:// too).
"use strict";

function actTrainer(scope) {
  const now = () => (typeof performance !== "undefined" ? performance.now() : Date.now());
  const copyWeights = (w) => Object.fromEntries(Object.entries(w).map(([k, v]) => [k, v.slice()]));

  // One step's loss and gradients (loss.backward()), the batch cut into two halves of
  // its sums, each half's gradient computed on its own and the two added: by this
  // worker, or the second half by a helper worker when there is one. The numbers are
  // the same either way: a seed gives the same run on one worker or two.
  async function stepGradients(w, step, auxWeight, s, helper) {
    const { batch, keep } = step, half = Math.ceil(batch.size / 2);
    let kept = 0;
    for (const k of keep) kept += k;
    const norm = { kept: Math.max(kept, 1), count: batch.size * batch.n };
    const job = (from, to) => ({ part: scope.sumsPart(step, from, to), norm, auxWeight, cap: s.cap });
    const gradient = (job) => scope.lossAndGradients(w, job.part.batch, job.part.keep,
      { auxWeight: job.auxWeight, draws: job.part.draws, cap: job.cap, norm: job.norm });
    const second = helper ? helper.gradient(w, job(half, batch.size)) : null;
    const one = gradient(job(0, half));
    const two = second ? await second : gradient(job(half, batch.size));
    const gradients = {};
    for (const name of Object.keys(one.gradients)) {
      const g = one.gradients[name], other = two.gradients[name];
      for (let k = 0; k < g.length; k++) g[k] += other[k];
      gradients[name] = g;
    }
    const rounds = (one.rounds * half + two.rounds * (batch.size - half)) / batch.size;
    return { loss: one.loss + two.loss, gradients, rounds };
  }

  // recur.chapters.ch6_act_ut._attempt inside recur.training.loop.train: one run from
  // seed; every evalEvery steps the held-out pairs, and from step firstCheck on the
  // check, keeping the best checkpoint; it stops at the first check that passes, or
  // gives up at the first failing one from step giveUp on (null: never).
  // report(row) after each step; stopped() ends the run where it is.
  async function trainOnce(seed, giveUp, settings, report, stopped, helper) {
    const s = settings, start = now();
    const w = scope.initialWeights(seed);
    const rand = scope.generator(seed + s.seedOffsets.batches);
    const { pairs, heldout } = scope.heldoutPairs(seed, s);
    const adam = { step: 0, m: {}, v: {} };
    let best = null, last = null;
    const end = (how, step) => ({ ...how, seed, step, last, w: best ? best.w : w, kept: best ? best.check : null,
      seconds: (now() - start) / 1000 });
    for (let step = 1; step <= s.nSteps; step++) {
      if (stopped()) return end({ stopped: true }, step - 1);
      const batch = scope.trainingBatch(rand, s);
      const keep = scope.notHeldOut(batch, heldout);
      const draws = scope.trainingDraws(rand, batch.size * (batch.n + 1), s.cap);
      const auxWeight = scope.auxScale(step, s.auxWarmup);
      const { loss, gradients, rounds } = await stepGradients(w, { batch, keep, draws }, auxWeight, s, helper);
      scope.clipGradients(gradients, s.clipNorm);
      scope.adamStep(w, gradients, adam, scope.stepSize(step, s.lr, s.nSteps));
      const row = { step, loss, rounds, seed, w };
      if (step % s.evalEvery === 0 || step === s.nSteps) {
        // Before the first check the held-out share steers nothing (train_book_act's
        // check starts at firstCheck, and BOOK_ACT stops at no share): the page
        // measures only the quick screen then, for the progress it shows.
        const early = step < s.firstCheck;
        Object.assign(row, scope.heldoutExact(w, early ? scope.part(pairs, 0, s.screen) : pairs, s,
          step === s.nSteps));
        last = row;
        if (step >= s.firstCheck) {
          const check = scope.actCheck(w, row, seed, s);
          row.check = check;
          row.passed = scope.checkPassed(check, s);
          if (!best || scope.betterCheck(check, best.check, s)) best = { check, w: copyWeights(w) };
        }
      }
      report(row);
      if (row.passed) return end({ passed: true }, step);
      if (row.check && giveUp !== null && step >= giveUp) return end({ gaveUp: true }, step);
    }
    return end({}, s.nSteps);
  }

  // recur.chapters.ch6_act_ut.train_book_act: runs from the seeds of attemptSeeds
  // (seed, seed + 1000, ...) until one passes its check; the last never gives up.
  // The weights kept: the best checkpoint of the last run (its last weights if it made
  // no check). report(row) gets the run's number in row.attempt (0-based).
  async function trainBookAct(seed, settings, report, stopped = () => false, helper = null) {
    const s = settings, seeds = scope.attemptSeeds(seed, s.maxAttempts), runs = [];
    for (const [attempt, attemptSeed] of seeds.entries()) {
      const giveUp = attempt === seeds.length - 1 ? null : s.giveUp;
      const run = await trainOnce(attemptSeed, giveUp, s, (row) => report({ ...row, attempt }), stopped, helper);
      runs.push(run);
      if (run.passed || run.stopped) break;
    }
    const kept = runs[runs.length - 1];
    return { ...kept, passed: Boolean(kept.passed), attempts: runs.length,
      seconds: runs.reduce((t, r) => t + r.seconds, 0) };
  }

  // The lead worker's side of a helper worker reached through a MessagePort: each
  // gradient job goes out with an id and comes back with it.
  function helperAt(port) {
    const waiting = new Map();
    let next = 0;
    port.onmessage = (event) => {
      const { id, result } = event.data;
      waiting.get(id)(result);
      waiting.delete(id);
    };
    return {
      gradient: (w, job) => new Promise((resolve) => {
        waiting.set(next, resolve);
        port.postMessage({ id: next, w, job: { ...job, part: { ...job.part, draws: job.part.draws.raw } } });
        next += 1;
      }),
    };
  }

  // The helper worker's side: the gradient of each job that comes in.
  function serveGradients(port) {
    port.onmessage = (event) => {
      const { id, w, job } = event.data;
      const result = scope.lossAndGradients(w, job.part.batch, job.part.keep,
        { auxWeight: job.auxWeight, draws: scope.drawsOf(job.part.draws), cap: job.cap, norm: job.norm });
      const buffers = Object.values(result.gradients).map((g) => g.buffer);
      port.postMessage({ id, result }, buffers);
    };
  }

  Object.assign(scope, { trainOnce, trainBookAct, stepGradients, helperAt, serveGradients });

  if (typeof WorkerGlobalScope !== "undefined" && scope instanceof WorkerGlobalScope) {
    // The page stops a run by ending the worker; so that it keeps what was trained,
    // each progress message (a few a second, and every check) carries the weights.
    // A message with serve: true makes this worker a helper on the port it brings.
    scope.onmessage = async (event) => {
      if (event.data.serve) return serveGradients(event.data.port);
      const settings = scope.settingsFor(event.data.variant, event.data.settings || {});
      const helper = event.data.port ? helperAt(event.data.port) : null;
      let lastPost = 0;
      const done = await trainBookAct(event.data.seed, settings, (row) => {
        if (row.exact === undefined && now() - lastPost < 150) return;
        lastPost = now();
        scope.postMessage({ progress: row });
      }, () => false, helper);
      scope.postMessage({ done });
      if (!event.data.widths) return;
      // the page's test sums of width n: seed + BROWSER_ACT_SUMS + n (recur.core.seeds)
      const sumsSeed = event.data.seed + settings.seedOffsets.browserActSums;
      const widths = scope.widthsRow(done.w, sumsSeed, settings);
      scope.postMessage({ widths });
    };
  }
}

if (typeof window !== "undefined") {
  window.OneMoreRound = window.OneMoreRound || { models: {} };
  window.OneMoreRound.act = window.OneMoreRound.act || {};
  actTrainer(window.OneMoreRound.act);
}

// ------------------------------------------------------------------ the page's trainer

// The largest seed whose restarts stay 31-bit seeds (checkedSeed, trainer_page.js).
function actSeedTop() {
  const settings = window.OneMoreRound.act.SETTINGS;
  return 2 ** 31 - 1 - settings.seedOffsets.restartStride * (settings.maxAttempts - 1);
}

// A Web Worker running the model (with the exactMath and the kit it calls), the sums,
// the check and the procedure from their own source.
function actTrainerWorker() {
  const source = `"use strict";\n${exactMath}\n${trainKit}\n${actTape}\n${actModel}\n${actSums}\n` +
    `${actProcedure}\n${actTrainer}\nactModel(self);\nactSums(self);\nactProcedure(self);\nactTrainer(self);\n`;
  return new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
}

// The workers of one training: a lead, and on a machine with two cores or more a
// helper that computes half of each step's gradient. start(message) sends the lead
// its seed; stop() ends both.
function actTrainerWorkers(count = Math.min(2, navigator.hardwareConcurrency || 1)) {
  const lead = actTrainerWorker();
  const helper = count > 1 ? actTrainerWorker() : null;
  const channel = helper ? new MessageChannel() : null;
  if (helper) helper.postMessage({ serve: true, port: channel.port2 }, [channel.port2]);
  return {
    lead,
    start: (message) => lead.postMessage(helper ? { ...message, port: channel.port1 } : message,
      helper ? [channel.port1] : []),
    stop: () => { lead.terminate(); helper?.terminate(); },
  };
}

// The held-out share right at each check so far (0 to 100%), against the training
// steps of all runs; the labels sit above and below the plot, never on its line.
function drawShare(svg, points, nSteps) {
  const [width, top, height] = [480, 20, 120]; // the plot between y = 20 and 140
  const xy = points.map((p) => `${(p.x / nSteps) * width},${top + (1 - p.share) * height}`);
  svg.innerHTML = `<rect y="${top}" width="${width}" height="${height}" fill="none" ` +
    `stroke="#ccc"/><polyline fill="none" stroke="#1f4e79" stroke-width="1.5" ` +
    `points="${xy.join(" ")}"/>` +
    `<text x="4" y="14" font-size="14">held-out pairs right: 100% at the top of the box, ` +
    "0% at the bottom</text>" +
    `<text x="${width - 4}" y="156" font-size="14" text-anchor="end">training steps, ` +
    "all runs</text>";
}

function actTrainerParts(root) {
  return trainerControls(root, "<svg class='trainer-loss' viewBox='0 0 480 160' role='img' " +
    "aria-label='the share of held-out pairs right at each check so far' " +
    "style='width:100%;max-width:480px;height:auto;display:block'></svg>" +
    "<div class='trainer-widths'></div>", ["loss", "widths"]);
}

// What happened, from the run's own result (never assumed).
function actTrainerWords(done, seed) {
  const time = `${done.seconds.toFixed(0)} s`;
  if (done.passed) {
    return `Seed ${seed} passed Chapter 6's check at step ${done.step.toLocaleString("en-US")} ` +
      `of run ${done.attempts}, after ${time}. The explorer above now runs your model.`;
  }
  const runs = done.attempts === 1 ? "one run" : `${done.attempts} runs`;
  const best = done.kept ? " The explorer above now runs its best checkpoint, by the check's " +
    `ranking (step ${done.kept.step.toLocaleString("en-US")}); it fails the check. Try another seed.` :
    " The explorer above now runs its last weights.";
  return `Seed ${seed} passed no check in ${runs} and ${time}.${best}`;
}

// The widths row as a table (widthsRow's rows): per width, the share right of each kind
// of sum, and the hardest sums.
function widthsTable(rows, settings) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const body = rows.map((row) => `<tr><td>${row.bits}</td><td>${pct(row.exact)}</td>` +
    `<td>${pct(row["exact, long chains"])}</td>` +
    `<td>${pct(row["exact, long waits without a carry"])}</td>` +
    `<td>${hardestCell(row)}</td></tr>`).join("");
  return "<table class='trainer-widths-table'><caption>Your model on sums of 8 to 64 bits " +
    `(it trained on at most 8): the share right of ${settings.widthSums} random sums, ` +
    `${settings.widthChains} long chains and ${settings.widthChains} long waits that end ` +
    "without a carry of each width, and its hardest sums</caption>" +
    "<tr><th scope='col'>bits</th><th scope='col'>random sums right</th>" +
    "<th scope='col'>long chains right</th><th scope='col'>long waits right</th>" +
    "<th scope='col'>hardest sums</th></tr>" + body + "</table>";
}

// "all right", or how many of the width's hardest sums came out wrong (their names on
// hover: recur.core.hardest's names).
function hardestCell(row) {
  const total = window.OneMoreRound.act.hardestSums(row.bits).names.length;
  if (row["hardest sums right"]) return `all ${total} right`;
  const wrong = row["hardest sums wrong"].split("; ");
  return `<span title="${wrong.join("; ")}">${wrong.length} of ${total} wrong</span>`;
}

function useTrainedAct(weights, seed) {
  const options = { ...window.OneMoreRound.act.BOOK_OPTIONS };
  const spec = { kind: "act_ut", options, unpacked: weights, seed };
  window.OneMoreRound.trainedAct = spec;
  document.querySelectorAll(".act-explorer[data-model='ch6_act']").forEach((explorer) => {
    mountActExplorer(explorer, spec);
  });
}

function mountActTrainer(root) {
  const ui = actTrainerParts(root);
  const settings = window.OneMoreRound.act.settingsFor(root.dataset.variant || "book",
    JSON.parse(root.dataset.settings || "{}")); // the tests' short runs
  let worker = null, points = [], latest = null, seed = null;
  const finish = () => {
    worker?.stop();
    worker = null;
    ui.train.disabled = false;
    ui.stop.disabled = true;
  };
  ui.train.addEventListener("click", () => {
    try {
      seed = checkedSeed(ui.seed.value, actSeedTop());
    } catch (err) {
      return warning(ui.message, err.message);
    }
    finish();
    putSeedInAddress(seed);
    [points, latest] = [[], null];
    ui.widths.innerHTML = "";
    ui.progress.max = settings.nSteps * settings.maxAttempts;
    ui.progress.value = 0;
    ui.train.disabled = true;
    ui.stop.disabled = false;
    ui.message.textContent = `Training from seed ${seed} in your browser…`;
    worker = actTrainerWorkers(Number(root.dataset.workers) || undefined);
    worker.lead.onmessage = (event) => {
      const { progress, done, widths } = event.data;
      if (progress) {
        latest = progress;
        const x = progress.attempt * settings.nSteps + progress.step;
        if (progress.exact !== undefined) points.push({ x, share: progress.exact });
        ui.progress.value = x;
        drawShare(ui.loss, points, settings.nSteps * (progress.attempt + 1));
        const check = progress.exact === undefined ? "" :
          `; held-out pairs right: ${(100 * progress.exact).toFixed(1)}% of ` +
          progress.pairs.toLocaleString("en-US") +
          (progress.check ? (progress.passed ? "; check passed" : "; check not passed yet") : "");
        const restart = progress.attempt ? ` (run ${progress.attempt} passed no check by step ` +
          `${settings.giveUp.toLocaleString("en-US")}, so this run starts from another seed)` : "";
        ui.message.textContent = `Run ${progress.attempt + 1}${restart}, step ${progress.step}: ` +
          `loss ${progress.loss.toFixed(4)}, ${progress.rounds.toFixed(1)} rounds per position ` +
          `on average${check}`;
      }
      if (done) {
        ui.progress.value = ui.progress.max;
        ui.message.textContent = actTrainerWords(done, seed);
        if (points.length) drawShare(ui.loss, points, points[points.length - 1].x);
        useTrainedAct(done.w, seed);
        ui.stop.disabled = true;
        ui.widths.textContent = "Testing your model on 8 to 64 bits…";
      }
      if (widths) {
        finish();
        ui.widths.innerHTML = widthsTable(widths, settings);
      }
    };
    worker.lead.onerror = (event) => {
      finish();
      warning(ui.message, `training stopped with an error: ${event.message}`);
    };
    worker.start({ seed, variant: root.dataset.variant || "book",
      settings: JSON.parse(root.dataset.settings || "{}"), widths: true });
  });
  ui.stop.addEventListener("click", () => {
    finish();
    if (!latest) return (ui.message.textContent = "Stopped before the first step.");
    ui.message.textContent = `Stopped at step ${latest.step} of run ${latest.attempt + 1}. ` +
      "The explorer above now runs the weights trained so far.";
    useTrainedAct(latest.w, seed);
  });
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll(".act-trainer").forEach(mountActTrainer);
  });
}
