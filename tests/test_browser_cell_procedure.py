"""Chapter 2's page trainer (``_static/cell_train.js``, with its settings in
``_static/cell_model.js``) runs the library's procedure
(:func:`recur.chapters.ch2_shared_update.train_cell`), not only its arithmetic: the same
settings, the same rule for a passing check, the same seeds for its restarts. And the
seed of a run travels in the page's address (``?seed=31``), so that a link reproduces
it. Each comparison is also run on a copy of the scripts with a bug planted, and must
then go red.

The arithmetic (loss, gradients, Adam) is compared in ``test_browser_train.py``. The
tests of the page as a reader uses it load the built chapter (``make book``) with its
``cell_model.js`` and ``cell_train.js`` answered from the source tree, so that they
test the scripts as they are, not as the book was last built."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from urllib.parse import parse_qs, urlparse

import pytest

import recur.training.checked as checked
from recur.chapters.ch2_shared_update import train_cell
from recur.core.device import seed_everything
from recur.models.cell import LocalCell
from recur.training.checked import STAY_ROUNDS, _checking
from recur.training.config import TrainConfig, attempt_seeds
from recur.training.loop import SCREEN_PAIRS
from test_browser_train import MODEL, SCRIPT


def _sources() -> dict[str, str]:
    """The trainer's scripts by name in the page's order: the controls both trainers
    share, the cell's model, its procedure."""
    paths = (SCRIPT.parent / "trainer_page.js", MODEL, SCRIPT)
    return {path.name: path.read_text() for path in paths}


def _load(page, sources: dict[str, str] | None = None) -> None:
    """The trainer alone in a fresh blank page (``sources``: the cell's scripts, one
    of them planted); a fresh one, since a second script declares the first's names
    again."""
    page.goto("about:blank")
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=(SCRIPT.parent / "exact_math.js").read_text())
    page.add_script_tag(content=(SCRIPT.parent / "train_kit.js").read_text())
    for text in (sources or _sources()).values():
        page.add_script_tag(content=text)


def _planted(old: str, new: str) -> dict[str, str]:
    """The cell's scripts with ``old`` replaced in the one script that has it."""
    sources = _sources()
    having = [name for name, text in sources.items() if old in text]
    assert len(having) == 1, f"the planted line is in {having or 'no script'}: {old}"
    sources[having[0]] = sources[having[0]].replace(old, new, 1)
    return sources


# ----------------------------------------------------------- the library's procedure


def _library_runs(monkeypatch, seed: int) -> list[TrainConfig]:
    """The TrainConfig of every run train_cell(seed) starts when no check passes (its
    training replaced by one that never passes, so every restart is made)."""
    configs = []

    def never_passes(model, cfg, done):
        configs.append(cfg)
        return SimpleNamespace(reached=False)

    monkeypatch.setattr(checked, "train", never_passes)
    train_cell(seed)
    return configs


def _max_attempts() -> int:
    return inspect.signature(train_cell).parameters["max_attempts"].default


# TrainConfig field -> the page's SETTINGS name, for what the page implements
MIRRORED = {
    "n_steps": "nSteps",
    "batch_size": "batchSize",
    "lr": "lr",
    "clip_norm": "clipNorm",
    "min_bits": "minBits",
    "max_bits": "maxBits",
    "eval_every": "evalEvery",
    "eval_size": "evalSize",
    "chain_share": "chainShare",
    "chain_kill_share": "chainKillShare",
}
# ... and what the page does not implement, which train_cell must leave off
LEFT_OFF = {
    "lr_decay": "none",
    "max_rounds": None,
    "loss_window": 1,
    "aux_warmup": 0,
    "stop_at_exact": None,  # the check decides, never exact match alone
}

SETTINGS_JS = """() => ({ ...window.OneMoreRound.train.SETTINGS,
  screen: window.OneMoreRound.train.SCREEN })"""


def _settings_gaps(page, monkeypatch) -> list[str]:
    """Where the page's SETTINGS differ from the TrainConfig train_cell trains with."""
    got = page.evaluate(SETTINGS_JS)
    cfg = _library_runs(monkeypatch, 0)[0]
    want = {page_name: getattr(cfg, name) for name, page_name in MIRRORED.items()}
    want |= {
        "nRounds": cfg.rounds(),
        "stayRounds": STAY_ROUNDS,
        "maxAttempts": _max_attempts(),
    }
    cell = LocalCell()  # the cell train_cell builds: the holding recipe's pieces off
    want |= {"snap": cell.snap, "holdCost": cell.hold_cost}
    gaps = [f"{k}: page {got.get(k)!r}, library {v!r}" for k, v in want.items()
            if got.get(k) != v]  # fmt: skip
    gaps += [f"the library sets {k}={getattr(cfg, k)!r}, which the page lacks"
             for k, off in LEFT_OFF.items() if getattr(cfg, k) != off]  # fmt: skip
    if cfg.eval_rounds() != cfg.rounds():
        gaps.append("the library checks after more rounds than it trains")
    # recur.training.loop._heldout_exact screens the first SCREEN_PAIRS pairs
    if got["screen"] != SCREEN_PAIRS:
        gaps.append(
            f"the page screens {got['screen']} pairs, the library {SCREEN_PAIRS}"
        )
    extra = set(got) - set(want) - {"screen"}
    return gaps + [f"the page has a setting the library lacks: {k}" for k in extra]


def test_the_pages_settings_are_train_cells(page, monkeypatch):
    """SETTINGS is the TrainConfig train_cell builds for each run (as checked_training
    builds it), with the check's rounds and its number of runs; and whatever the
    library could switch on that the page does not implement is off."""
    _load(page)
    assert _settings_gaps(page, monkeypatch) == []


SETTINGS_PLANTED = {
    "one more attempt": ("maxAttempts: 3", "maxAttempts: 4"),
    "a shorter stay": ("stayRounds: 64", "stayRounds: 32"),
    "a larger step": ("lr: 1e-2", "lr: 2e-2"),
    "a setting of its own": ("maxAttempts: 3,", "maxAttempts: 3, warmup: 10,"),
}


@pytest.mark.parametrize("bug", SETTINGS_PLANTED)
def test_a_planted_setting_goes_red(page, monkeypatch, bug):
    _load(page, _planted(*SETTINGS_PLANTED[bug]))
    assert _settings_gaps(page, monkeypatch) != []


# --------------------------------------------------------------- the pass rule

N_PAIRS = 10_000  # the held-out pairs (TrainConfig.eval_size)
# (held-out share right, pairs it was measured on, share that stays right)
SITUATIONS = [
    (1.0, N_PAIRS, 1.0),  # passes
    (1.0, N_PAIRS, 0.9999),  # one pair leaves the answer before round 64
    (1.0, N_PAIRS, 0.0),
    (0.9999, N_PAIRS, 1.0),  # one pair wrong after the trained rounds
    (0.999, N_PAIRS, 0.999),
    (1.0, 1000, 1.0),  # only the screen measured, all right
    (0.999, 1000, 1.0),
    (0.5, 1000, 0.5),
]

RULE_JS = """([situations, nPairs]) => situations.map(([exact, pairs, stays]) => {
  const train = window.OneMoreRound.train, row = { step: 50, loss: 0.1, exact, pairs };
  const checks = train.needsStayCheck(row, nPairs);
  if (checks) row.stays = stays;  // trainOnce measures it only then
  return [checks, train.checkPasses(row, nPairs)];
})"""


def _library_rule(situation) -> list[bool]:
    """recur.training.checked's decision: whether the stay check runs, and whether
    the check passes (its check replaced by one that returns ``stays``)."""
    exact, pairs, stays = situation
    cfg = TrainConfig(max_bits=8, stop_at_exact=None)
    assert cfg.eval_size == N_PAIRS
    checks = []
    done = _checking(lambda model, heldout, cfg: stays, cfg, checks)
    passed = done(None, {"step": 50, "loss": 0.1, "exact": exact, "pairs": pairs})
    return [len(checks) == 1, passed]


@pytest.fixture(scope="module")
def library_rule() -> list[list[bool]]:
    return [_library_rule(s) for s in SITUATIONS]


def _page_rule(page) -> list[list[bool]]:
    return page.evaluate(RULE_JS, [SITUATIONS, N_PAIRS])


def test_the_pages_pass_rule_is_the_librarys(page, library_rule):
    """For each situation, whether the stay check runs and whether the check passes,
    on the page and in recur.training.checked: the same. Exactly one passes."""
    _load(page)
    assert _page_rule(page) == library_rule
    assert [passed for _, passed in library_rule] == [True] + [False] * 7


RULE_PLANTED = {
    "a looser share": ("row.exact === 1", "row.exact >= 0.999"),
    "the screen taken for the whole set": ("row.pairs === nPairs && ", ""),
    "a looser stay": ("row.stays === 1", "row.stays >= 0.999"),
}


@pytest.mark.parametrize("bug", RULE_PLANTED)
def test_a_planted_pass_rule_goes_red(page, library_rule, bug):
    _load(page, _planted(*RULE_PLANTED[bug]))
    assert _page_rule(page) != library_rule


def test_the_training_run_stops_on_the_rule(page):
    """trainOnce itself decides by checkPasses: with the page's rule a run of four
    steps (a check every two) passes no check and runs them all; with a rule planted
    that passes any check, it stops at the first."""
    stops = """() => { const train = window.OneMoreRound.train;
      Object.assign(train.SETTINGS, { nSteps: 4, evalEvery: 2 });
      return train.trainOnce(3, () => {}, () => false).step; }"""
    _load(page)
    assert page.evaluate(stops) == 4  # no check passed: all the steps ran
    _load(page, _planted("return needsStayCheck(row, nPairs) && row.stays === 1;",
                         "return row.exact !== undefined;"))  # fmt: skip
    assert page.evaluate(stops) == 2  # the first check


# ----------------------------------------------------------------- the restarts

RESTART_JS = """async ([seed]) => {
  const train = window.OneMoreRound.train;
  Object.assign(train.SETTINGS, { nSteps: 2, evalEvery: 1 });  // short runs: no pass
  const rows = [];
  const done = train.trainCell(seed, (row) => rows.push(
    { attempt: row.attempt, seed: row.seed, step: row.step, loss: row.loss }));
  const alone = train.attemptSeeds(seed, train.SETTINGS.maxAttempts).map(
    (s) => train.trainOnce(s, () => {}, () => false).last.loss);
  return { rows, attempts: done.attempts, passed: done.passed, alone,
    listed: train.attemptSeeds(seed, train.SETTINGS.maxAttempts) };
}"""


def _restarts(page, seed: int) -> dict:
    got = page.evaluate(RESTART_JS, [seed])
    seeds = [row["seed"] for row in got["rows"] if row["step"] == 1]
    last = [row["loss"] for row in got["rows"] if row["step"] == 2]
    return {
        "attempt seeds": seeds,
        "listed": got["listed"],
        "attempts": got["attempts"],
        "attempt numbers": sorted({row["attempt"] for row in got["rows"]}),
        "each run as alone": last == got["alone"],
        "passed": got["passed"],
    }


@pytest.mark.parametrize("seed", [0, 31, 123_456])
def test_the_restarts_draw_the_librarys_seeds(page, monkeypatch, seed):
    """Runs that pass no check: the page starts its runs from the seeds train_cell
    starts from (each TrainConfig's seed), which are attempt_seeds(seed,
    max_attempts), as many runs as the library makes; and each is the run that seed
    gives alone."""
    _load(page)
    library = [cfg.seed for cfg in _library_runs(monkeypatch, seed)]
    assert library == attempt_seeds(seed, _max_attempts())
    got = _restarts(page, seed)
    assert got == {
        "attempt seeds": library,
        "listed": library,
        "attempts": len(library),
        "attempt numbers": list(range(len(library))),
        "each run as alone": True,
        "passed": False,
    }, got


RESTART_PLANTED = {
    "a restart seed of its own": (
        "seed + SEED_OFFSETS.restartStride * attempt",
        "seed + 7 * attempt",
    ),
    "the listed seeds not used": ("trainOnce(attemptSeed,", "trainOnce(seed + 7,"),
    "one run fewer": ("maxAttempts: 3", "maxAttempts: 2"),
}


@pytest.mark.parametrize("bug", RESTART_PLANTED)
def test_a_planted_restart_goes_red(page, monkeypatch, bug):
    _load(page, _planted(*RESTART_PLANTED[bug]))
    library = [cfg.seed for cfg in _library_runs(monkeypatch, 31)]
    got = _restarts(page, 31)
    assert got["attempt seeds"] != library or got["attempts"] != len(library), got


# ------------------------------------------------------------- the seed in the URL

CHAPTER = "book/02_shared_update.html"


def _open(page, site, query: str = "", sources: dict[str, str] | None = None):
    """Chapter 2's page at ``?query``, its cell scripts answered from the source tree
    (or ``sources``, one of them planted); the trainer, once mounted."""
    bodies = sources or _sources()

    def answer(route) -> None:
        name = urlparse(route.request.url).path.rsplit("/", 1)[-1]
        if name in bodies:
            route.fulfill(body=bodies[name], content_type="text/javascript")
        else:
            route.fallback()

    page.route("**/_static/cell_*.js*", answer)
    page.route("**/_static/trainer_page.js*", answer)
    page.goto(f"{site}/{CHAPTER}{query}", wait_until="load")
    root = page.locator(".cell-trainer").first
    root.locator(".trainer-message").wait_for(state="attached")
    return root


def _seed_in_url(page) -> list[str]:
    return parse_qs(urlparse(page.url).query).get("seed", [])


def _train_and_stop(page, root) -> None:
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-progress').value >= 1", timeout=60000
    )
    root.locator(".trainer-stop").click()


def _url_round_trip(page, site, sources: dict[str, str] | None = None) -> dict:
    """Open ``?seed=31``, train; type 47, train; reload: what the page showed."""
    root = _open(page, site, "?seed=31", sources)
    seen = {"field at load": root.locator(".trainer-seed").input_value()}
    history = page.evaluate("history.length")
    _train_and_stop(page, root)
    seen["trained seed"] = page.evaluate("window.OneMoreRound.trainedCell.seed")
    root.locator(".trainer-seed").fill("47")
    _train_and_stop(page, root)
    seen["url after Train"] = _seed_in_url(page)
    seen["trained seed, typed"] = page.evaluate("window.OneMoreRound.trainedCell.seed")
    seen["new history entries"] = page.evaluate("history.length") - history
    page.reload(wait_until="load")
    root = page.locator(".cell-trainer").first
    root.locator(".trainer-message").wait_for(state="attached")
    seen["field after reload"] = root.locator(".trainer-seed").input_value()
    return seen


ROUND_TRIP = {
    "field at load": "31",
    "trained seed": 31,
    "url after Train": ["47"],
    "trained seed, typed": 47,
    "new history entries": 0,
    "field after reload": "47",
}


def test_a_link_with_a_seed_reproduces_the_run(page, site):
    """The seed in the address fills the field and is the one trained; Train writes
    the seed it runs into the address (no new history entry), so that the address,
    reloaded or shared, shows that seed again. A page without one shows the chapter's
    default seed."""
    assert _url_round_trip(page, site) == ROUND_TRIP
    assert not page.errors, page.errors
    root = _open(page, site)
    assert root.locator(".trainer-seed").input_value() == root.get_attribute(
        "data-seed"
    )


URL_PLANTED = {
    "the address not read": (
        "seedInAddress() ?? root.dataset.seed",
        "root.dataset.seed",
    ),
    "the address not written": ("    putSeedInAddress(seed);\n", ""),
}


@pytest.mark.parametrize("bug", URL_PLANTED)
def test_a_planted_url_bug_goes_red(page, site, bug):
    assert _url_round_trip(page, site, _planted(*URL_PLANTED[bug])) != ROUND_TRIP


def _library_message(text: str) -> str:
    with pytest.raises(ValueError) as refused:
        seed_everything(text)
    return str(refused.value)


@pytest.mark.parametrize(
    ("query", "shown", "told"),
    [
        ("?seed=abc", "abc", _library_message("abc")),
        ("?seed=1.5", "1.5", _library_message("1.5")),
        ("?seed=%20", " ", _library_message(" ")),
        ("?seed=-5", "-5", "seed must be in 0.."),
        ("?seed=99999999999", "99999999999", "seed must be in 0.."),
    ],
)
def test_a_bad_seed_in_the_url_is_told_not_thrown(page, site, query, shown, told):
    """The field shows the address's seed as written; Train says what the library
    says of it (recur.core.device.seed_everything), starts nothing, leaves the address
    as it was; no error reaches the console."""
    root = _open(page, site, query)
    assert root.locator(".trainer-seed").input_value() == shown
    url = page.url
    root.locator(".trainer-train").click()
    message = root.locator(".trainer-message").inner_text()
    assert told in message, message
    assert root.locator(".trainer-train").is_enabled()
    assert root.locator(".trainer-stop").is_disabled()
    assert page.url == url
    assert not page.errors, page.errors
