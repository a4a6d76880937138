"""How often each live training of the book does what its chapter says: the model
trained as its chapter trains it, once per seed, on the CPU, then tested on fresh
sums that no choice was made on (drawn with seeds 9,000,000 + seed). Each is a
:class:`LiveTraining` entry of :data:`LIVE`:

- :data:`CHAPTER2_CELL` (``LocalCell``, 9 rounds, trained by
  :func:`recur.chapters.ch2_shared_update.train_cell`: its check passed) and
  :data:`CHAPTER7_DEQ` (``EquilibriumCell``, cap 18, trained by
  :func:`recur.chapters.ch7_fixed_points.train_deq`: its check passed): every one of
  50 random 1,024-bit sums right (n + 1 rounds; a solver cap of 2 (n + 1)).
- :data:`CHAPTER3_INJECTED` (``train_variant(True, 1)``, 1,000 steps): the same,
  on 200 random 32-bit sums after 4 (n + 1) = 132 rounds.
- :data:`CHAPTER4_LOCAL_UT`
  (:func:`recur.chapters.ch4_universal_transformer.train_local_ut`: up to 1,500
  steps, again from a new seed if they did not get every held-out pair right): at
  least 99% (:data:`UT_EXACT`) of 1,000 random 8-bit sums right after the 9 trained
  rounds.
- :data:`CHAPTER7_PONDERNET` (``train_ponder``): it learned the trained width (at
  least 99% of 1,000 fresh 8-bit sums within its cap of 16), and yet on 300
  long-chain 32-bit sums (cap 66) its steps grow by less than 1/2 round
  (:data:`PONDER_SLOPE`) per position of carry distance: it does not wait for the
  carry.

Every row also records ``exact at 8 bits``: 1,000 fresh 8-bit sums after the rounds
(or within the cap) the model was trained with (``trained_rounds``).

The last model's row is a statement about a shortcoming: "success" means the chapter's
sentence about the model holds for that seed.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch2_shared_update import train_cell
from recur.chapters.ch4_universal_transformer import train_local_ut
from recur.chapters.ch6_measures import ponder_vs_distance
from recur.chapters.ch7_fixed_points import DEQ_TRAINING, train_deq
from recur.chapters.ch7_pondernet import train_ponder
from recur.core.bars import ROBUST
from recur.core.device import run_jobs, seed_everything
from recur.core.intervals import interval_text
from recur.core.seeds import REPORT_SUMS
from recur.core.tasks import long_chain_batch, random_batch, twice_width_plus_one
from recur.models.cell import LocalCell
from recur.models.deq import EquilibriumCell
from recur.studies.seed_study import robust_words
from recur.training.cell_variants import train_variant
from recur.training.config import TrainConfig
from recur.training.evaluate import evaluate
from recur.training.loop import train
from recur.training.ut_recipe import LOCAL_UT, train_ut
from recur.views.text import listed

WIDE_SUMS = 50  # the 1,024-bit sums each live-trained cell is tested on
WIDE_BITS = 1024
EIGHT_BIT_SUMS = 1000  # every model's "exact at 8 bits"
UT_EXACT = 0.99  # Chapter 4's local UT: share of 8-bit sums right after 9 rounds
PONDER_SLOPE = 0.5  # PonderNet "does not wait": fewer extra rounds per carry position
FIRST_100_UT_STEPS = 800  # Chapter 4's local UT in the one-run study: its step budget


@dataclass(frozen=True)
class FreshTest:
    """A live model's fixed test: ``n_sums`` fresh sums of ``n_bits`` bits after
    ``rounds`` rounds (for PonderNet, long chains within a cap of ``rounds``)."""

    n_sums: int
    n_bits: int
    rounds: int


@dataclass(frozen=True)
class LiveTraining:
    """One live training of the book: its name in the tables (``model``), how its
    chapter trains it (``train``: seed, overrides -> model, run), how the one-run study
    trains it (``train_one_run``; ``None``: as its chapter does), the rounds (or the
    cap) it was trained with, its test and its pass rule
    (``passes(reached, value, exact_8)``). The test is ``fresh``, or for the two cells
    (``fresh=None``) the study's wide sums after ``wide_rounds(n_bits)`` rounds."""

    name: str
    train: Callable
    trained_rounds: int
    passes: Callable[[bool, float, float], bool]
    fresh: FreshTest | None = None
    wide_rounds: Callable[[int], int] | None = None
    train_one_run: Callable | None = None
    states_result: bool = True  # False: its row counts a shortcoming, not a result


def _quiet(seed: int, overrides: dict) -> dict:
    seed_everything(seed)
    return {"seed": seed, "device": "cpu", "progress": False} | overrides


def _checked_model(trainer: Callable) -> Callable:
    """A live training's ``train`` from a trainer that returns a checked run."""
    return functools.partial(_model_and_run, trainer)


def _model_and_run(trainer: Callable, seed: int, overrides: dict) -> tuple:
    checked = trainer(**_quiet(seed, overrides))
    return checked.model, checked.run


def _train_injected(seed: int, overrides: dict) -> tuple:
    """Chapter 3's injected cell, one run of 1,000 steps (train_variant is quiet)."""
    seed_everything(seed)
    return train_variant(
        True, 1, seed, **({"n_steps": 1000, "device": "cpu"} | overrides)
    )


def _train_ponder(seed: int, overrides: dict) -> tuple:
    return train_ponder(**_quiet(seed, overrides))


def _one_run(make_model: Callable, settings: dict, seed: int, overrides: dict):
    """``make_model()`` trained with ``settings`` in one run that stops at the first
    100% held-out: no further check, no restart (Chapters 2 and 7's cells)."""
    quiet = _quiet(seed, overrides)
    model = make_model()
    return model, train(model, TrainConfig(**(settings | quiet)))


def _one_run_local_ut(seed: int, overrides: dict) -> tuple:
    """Chapter 4's local UT in one run of at most :data:`FIRST_100_UT_STEPS`."""
    changes = {"n_steps": FIRST_100_UT_STEPS} | _quiet(seed, overrides)
    seed = changes.pop("seed")
    return train_ut(LOCAL_UT.but(**changes), seed)


def _every_sum(reached: bool, value: float, exact_8: float = 1.0) -> bool:
    """Its check passed (100% held-out) and every test sum was right."""
    return reached and value == 1.0


def _ut_share(reached: bool, value: float, exact_8: float = 1.0) -> bool:
    """At least :data:`UT_EXACT` of the test sums right, however training ended."""
    return value >= UT_EXACT


def _learned_but_no_wait(reached: bool, value: float, exact_8: float = 1.0) -> bool:
    """It learned the task, and yet does not wait for the carry."""
    return exact_8 >= UT_EXACT and value < PONDER_SLOPE


def _plus_one(n_bits: int) -> int:
    return n_bits + 1


CHAPTER2_CELL = LiveTraining(
    "Chapter 2's cell", _checked_model(train_cell), 9, _every_sum,
    wide_rounds=_plus_one,
    train_one_run=functools.partial(_one_run, LocalCell, {"max_bits": 8}),
)  # fmt: skip
CHAPTER3_INJECTED = LiveTraining(
    "Chapter 3's injected cell", _train_injected, 9, _every_sum,
    fresh=FreshTest(200, 32, 132),  # 4 (n + 1) = 132 rounds at 32 bits; trained: 9
)  # fmt: skip
CHAPTER4_LOCAL_UT = LiveTraining(
    "Chapter 4's local UT", _checked_model(train_local_ut), 9, _ut_share,
    fresh=FreshTest(1000, 8, 9), train_one_run=_one_run_local_ut,
)  # fmt: skip
CHAPTER7_DEQ = LiveTraining(
    "Chapter 7's DEQ cell", _checked_model(train_deq), 18, _every_sum,
    wide_rounds=twice_width_plus_one,
    train_one_run=functools.partial(_one_run, EquilibriumCell, DEQ_TRAINING),
)  # fmt: skip
CHAPTER7_PONDERNET = LiveTraining(
    "Chapter 7's PonderNet", _train_ponder, 16, _learned_but_no_wait,
    fresh=FreshTest(300, 32, twice_width_plus_one(32)),  # long chains, cap 2n + 2
    states_result=False,
)  # fmt: skip
LIVE = (CHAPTER2_CELL, CHAPTER3_INJECTED, CHAPTER4_LOCAL_UT, CHAPTER7_DEQ,
        CHAPTER7_PONDERNET)  # fmt: skip
# whose one-run training differs from their chapter's procedure
FIRST_100_DIFFERS = tuple(t for t in LIVE if t.train_one_run is not None)


def by_name(name: str) -> LiveTraining:
    """The live training whose rows carry ``name`` in a table's ``model`` column."""
    for training in LIVE:
        if training.name == name:
            return training
    raise ValueError(f"no live training is called {name!r}")


def _test(
    training: LiveTraining, model, seed: int, n_sums: int, n_bits: int
) -> tuple[str, float]:
    """What the chapter says of ``model``, measured on fresh sums: (label, value).
    ``n_sums`` and ``n_bits`` set the wide test of the two cells."""
    fresh = REPORT_SUMS + seed  # never trained on, never chosen on
    if training.fresh is None:
        rounds = training.wide_rounds(n_bits)
    else:
        n_sums, n_bits, rounds = (training.fresh.n_sums, training.fresh.n_bits,
                                  training.fresh.rounds)  # fmt: skip
    if not training.states_result:
        batch = long_chain_batch(n_sums, n_bits, seed=fresh)
        return "rounds per carry position", ponder_vs_distance(model, batch, rounds)[1]
    batch, label = random_batch(n_sums, n_bits, fresh), f"exact at {n_bits} bits"
    return label, float(evaluate(model, batch, rounds).exact[-1])


def exact_at_8_bits(training: LiveTraining, model, seed: int) -> float:
    """Exact match on 1,000 fresh random 8-bit sums after the rounds (or within the
    cap) the model was trained with: did it learn the trained width at all?"""
    batch = random_batch(EIGHT_BIT_SUMS, 8, seed=REPORT_SUMS + seed)
    return float(evaluate(model, batch, training.trained_rounds).exact[-1])


@dataclass(frozen=True)
class LiveJob:
    """One training of :func:`live_seed_runs`: which, from which seed, the cells' wide
    test, whether in one run (``first_100``), and overrides of its training."""

    training: LiveTraining
    seed: int
    n_sums: int
    n_bits: int
    first_100: bool
    overrides: dict


def _live_seed_row(job: LiveJob) -> dict:
    """Train one of :data:`LIVE` with one seed and test it."""
    training, seed = job.training, job.seed
    train_it = training.train
    if job.first_100 and training.train_one_run is not None:
        train_it = training.train_one_run
    start = time.perf_counter()
    model, run = train_it(seed, job.overrides)
    seconds = time.perf_counter() - start
    test, value = _test(training, model, seed, job.n_sums, job.n_bits)
    exact_8 = exact_at_8_bits(training, model, seed)
    success = training.passes(run.reached, value, exact_8)
    return {"model": training.name, "seed": seed, "reached 100%": run.reached,
            "train seconds": seconds, "exact at 8 bits": exact_8, "test": test,
            "value": value, "success": success}  # fmt: skip


def live_seed_runs(
    seeds=tuple(range(20)), trainings=LIVE, n_sums: int = WIDE_SUMS,
    n_bits: int = WIDE_BITS, jobs: int = 1, first_100: bool = False, **overrides,
) -> pd.DataFrame:  # fmt: skip
    """Each of ``trainings`` trained as its chapter trains it (``first_100``: in one
    run that stops at the first 100% held-out, its ``train_one_run``), once per seed,
    and tested as the module's table says. ``overrides`` go to the training; ``jobs``
    > 1 runs that many at once, each in its own process."""
    tasks = [LiveJob(t, s, n_sums, n_bits, first_100, overrides)
             for t in trainings for s in seeds]  # fmt: skip
    return pd.DataFrame(run_jobs(_live_seed_row, tasks, jobs))


def live_counts(table: pd.DataFrame, training: LiveTraining) -> dict:
    """From a :func:`live_seed_runs` table, one live training's runs: how many reached
    100% held-out, how many met the bar (``success``), of how many, the median training
    seconds, how many ``failed`` the bar, and how many of those had reached 100%
    held-out all the same (``short``: right on the trained width, wrong beyond it),
    how many were right on at least 99% of fresh 8-bit sums (``learned``), and the
    95% interval of ``met`` in ``n`` (``interval``, :mod:`recur.core.intervals`)."""
    runs = table[table["model"] == training.name]
    success = runs["success"].astype(bool)
    return {
        "reached": int(runs["reached 100%"].sum()),
        "met": int(success.sum()),
        "n": len(runs),
        "median": float(runs["train seconds"].median()),
        "failed": int((~success).sum()),
        "short": int((runs["reached 100%"].astype(bool) & ~success).sum()),
        "learned": int((runs["exact at 8 bits"] >= UT_EXACT).sum()),
        "interval": interval_text(int(success.sum()), len(runs)),
    }


PAGE_WIDE_EXACT = 0.99  # a cell trained in the page: share of 1,024-bit sums right
PAGE_WIDE_SUMS = 200  # the 1,024-bit sums each page-trained cell is tested on


def page_counts(runs: pd.DataFrame) -> dict:
    """From ``benchmarks/browser_train.py``'s table (Chapter 2's cell trained in the
    browser, one row per seed): how many seeds, how many passed the check, how many
    of those then added at least :data:`PAGE_WIDE_EXACT` of the 1,024-bit sums, and
    the median and longest seconds of a whole training (restart included)."""
    passed = runs["passed"].astype(bool)
    wide = passed & (runs["exact at 1024 bits"] >= PAGE_WIDE_EXACT)
    return {
        "n": len(runs),
        "passed": int(passed.sum()),
        "wide": int(wide.sum()),
        "median": float(runs["seconds"].median()),
        "longest": float(runs["seconds"].max()),
        "bar": PAGE_WIDE_EXACT,
        "sums": PAGE_WIDE_SUMS,
        "library_sums": WIDE_SUMS,
    }


SEEDS_NEEDED = ROBUST[0]  # of ROBUST[1]: how often a result the book states must hold
# PonderNet's row counts a shortcoming, not a result
RESULTS = tuple(t for t in LIVE if t.states_result)


def short_of_the_bar_words(table: pd.DataFrame, trainings=RESULTS) -> str:
    """For the page: which of ``trainings`` (the live trainings whose result a chapter
    states) met it for fewer than :data:`SEEDS_NEEDED` of a :func:`live_seed_runs`
    table's seeds, derived from the table."""
    counts = {t.name: live_counts(table, t) for t in trainings}
    short = [name for name, c in counts.items() if c["met"] < SEEDS_NEEDED]
    n = max(c["n"] for c in counts.values())
    if not short:
        return (
            f"Every live training whose result a chapter shows met it for at least "
            f"{SEEDS_NEEDED} of {n} seeds."
        )
    whose = "its chapter's result" if len(short) == 1 else "their chapters' results"
    return (
        "Of the live trainings whose result a chapter shows, "
        f"{listed(short)} met {whose} "
        f"for fewer than {SEEDS_NEEDED} of {n} seeds (the table above counts them). "
        "Why some seeds fail where others work, we measured only in part."
    )


def added_every_sum(table: pd.DataFrame, training: LiveTraining) -> int:
    """From a table of :func:`live_seed_runs`, how many of the seeds of ``training``
    gave a model that added every test sum, whether or not its training reached 100%
    held-out (the table's ``success`` asks both)."""
    runs = table[table["model"] == training.name]
    if runs.empty:
        raise ValueError(f"no runs of {training.name!r} in the table")
    return int((runs["value"] == 1.0).sum())


def live_seed_values(table: pd.DataFrame, training: LiveTraining) -> dict:
    """For the page, ``training``'s runs in a table of the live studies: the counts of
    :func:`live_counts`, how many added every test sum
    (:func:`added_every_sum`, ``added``) and whether the count of runs that did both
    meets the book's rule (``verdict``)."""
    counts = live_counts(table, training)
    counts |= {"added": added_every_sum(table, training)}
    return counts | {"verdict": robust_words(counts["met"], counts["n"])}
