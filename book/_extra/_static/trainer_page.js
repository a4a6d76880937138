// One More Round in the static page: the controls both of the book's trainers show
// (Chapter 2's cell_train.js and Chapter 6's act_train.js): the seed field, its check,
// the seed in the page's address, Train, Stop, the progress bar and the message. Each
// trainer adds its own chart and words below them.
"use strict";

// recur.core.device.seed_everything's check, with the largest seed the page's restarts
// allow (top: seed + the restart stride times the later runs must stay a 31-bit seed).
function checkedSeed(text, top) {
  const value = String(text).trim();
  if (!/^-?\d+$/.test(value)) throw new Error(`seed must be an integer, got '${text}'`);
  const seed = Number(value);
  if (seed < 0 || seed > top) throw new Error(`seed must be in 0..${top}, got ${seed}`);
  return seed;
}

// The seed in the page's address, so that a link reproduces a run: a trainer reads
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

// The shared controls in root, then `more` (the trainer's own chart and tables, each
// with a class trainer-NAME); returns the parts by name: seed, train, stop, progress,
// message and each of `names`.
function trainerControls(root, more, names) {
  const expected = root.dataset.expected ?
    `<div class='trainer-expected'>${root.dataset.expected}</div>` : "";
  root.innerHTML =
    "<label>seed <input type='text' class='trainer-seed' size='10'></label> " +
    "<button type='button' class='trainer-train'>Train</button> " +
    "<button type='button' class='trainer-stop' disabled>Stop</button> " +
    "<progress class='trainer-progress' value='0' aria-label='training progress'></progress>" +
    expected + "<div class='trainer-message' aria-live='polite'></div>" + more;
  const part = (name) => root.querySelector(`.trainer-${name}`);
  part("seed").value = seedInAddress() ?? root.dataset.seed;
  const all = ["seed", "train", "stop", "progress", "message", ...names];
  return Object.fromEntries(all.map((name) => [name, part(name)]));
}
