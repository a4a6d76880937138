"""Chapter 7's study, too slow for the page: ACT against PonderNet on the same UT and
the same task. For each seed, Chapter 6's model as Chapter 6 trains it
(``train_book_act``: ``BOOK_ACT``, its check and restart) and the same UT trained the
same way with PonderNet's halting rule (``recur.chapters.ch7_pondernet.PONDER``) are
trained on the CPU on sums of at most 8 bits, then measured like Chapter 6's recipe
study (500 random and 200 long-chain sums per width, the registry's REPORT_SUMS + width,
cap 2 (n + 1)), plus the steps per position against the carry distance on 300 long-chain
32-bit sums, and how much the state still changes in each round when the shared block is
run without halting. ``benchmarks/ch7_studies.py`` runs it (:data:`STUDY`) and writes
``book/data/ch7_length.csv``, ``ch7_distance.csv`` and ``ch7_settle.csv``."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch6_act_ut import train_book_act
from recur.chapters.ch6_measures import act_length_table, ponder_vs_distance
from recur.chapters.ch7_fixed_points import state_changes
from recur.chapters.ch7_pondernet import PONDER, STUDY_SUMS
from recur.core.device import run_jobs
from recur.core.seeds import DISTANCE_SUMS, REPORT_SUMS, SETTLE_SUMS, by_name
from recur.core.tasks import long_chain_batch, twice_width_plus_one
from recur.studies.study import Study
from recur.training.ut_recipe import BOOK_ACT, UTRecipe, train_ut

SEEDS = tuple(by_name("ACT against PonderNet").seeds)
WIDTHS = [8, 16, 32, 64]
DISTANCE_BITS = 32  # the long chains of the steps-by-distance table
# a column of act_length_table that Chapter 7 does not read: left out of its table
LATER = ["halted before the carry, long chains"]


# Each method's recipe: Chapter 6's model (trained by train_book_act, its check and
# restarts) and the same UT with PonderNet's halting rule (one run)
RECIPES = {"ACT": BOOK_ACT, "PonderNet": PONDER}


def _train(method: str, seed: int, recipe: UTRecipe):
    """Chapter 6's model as Chapter 6 trains it (``train_book_act``), or the same UT
    trained the same way with PonderNet's halting rule (:data:`PONDER`)."""
    if method == "ACT":
        return train_book_act(seed=seed, recipe=recipe).model
    return train_ut(recipe, seed)[0]


def _settle_rows(model, method: str, seed: int, n_sums: int) -> list[dict]:
    rows = []
    for n_bits, n_rounds in ((8, 24), (32, 66)):
        bits = long_chain_batch(n_sums, n_bits, seed=SETTLE_SUMS + n_bits).bits
        changes = state_changes(model, bits, n_rounds)  # rounds 1..R-1
        for r, value in enumerate(changes.tolist(), start=1):
            rows.append(
                {
                    "method": method,
                    "seed": seed,
                    "bits": n_bits,
                    "round": r,
                    "change": value,
                }
            )
    return rows


def _distance_rows(model, method: str, seed: int, hard) -> list[dict]:
    """Steps per position against the carry distance on the long-chain sums ``hard``,
    with the fitted line, one row per distance."""
    n_bits = hard.bits.shape[1] - 1
    by_d, slope, intercept = ponder_vs_distance(
        model, hard, twice_width_plus_one(n_bits)
    )
    return [
        {"method": method, "seed": seed, "bits": n_bits, "carry distance": d,
         "mean steps": row["mean"], "count": row["count"], "slope": slope,
         "intercept": intercept}
        for d, row in by_d.iterrows()
    ]  # fmt: skip


@dataclass(frozen=True)
class Ch7Job:
    """One training of the study and its measurements."""

    method: str  # "ACT" or "PonderNet"
    seed: int
    widths: tuple[int, ...]
    n_sums: int
    long_chains: int
    recipe: UTRecipe


def _job_rows(job: Ch7Job) -> dict[str, list[dict]]:
    """The rows of the three tables from one training, by file name."""
    start = time.perf_counter()
    model = _train(job.method, job.seed, job.recipe)
    seconds = time.perf_counter() - start
    table = act_length_table(
        model, job.widths, job.n_sums, twice_width_plus_one, REPORT_SUMS,
        job.long_chains,
    ).drop(columns=LATER, errors="ignore")  # ch7_length.csv's columns  # fmt: skip
    first = {"method": job.method, "seed": job.seed}
    length = [
        first | {"bits": n_bits} | row.to_dict() | {"train seconds": seconds}
        for n_bits, row in table.iterrows()
    ]
    hard = long_chain_batch(
        max(1, 3 * job.long_chains // 2), DISTANCE_BITS,
        seed=DISTANCE_SUMS + DISTANCE_BITS,
    )  # fmt: skip
    return {
        "ch7_length": length,
        "ch7_distance": _distance_rows(model, job.method, job.seed, hard),
        "ch7_settle": _settle_rows(
            model, job.method, job.seed, max(1, job.long_chains)
        ),
    }


def run(
    seeds=SEEDS,
    widths=WIDTHS,
    n_sums=STUDY_SUMS["random"],
    long_chains=STUDY_SUMS["long chains"],
    jobs: int = 1,
    **changes,
) -> dict:
    """The three tables, by file name; ``changes`` change both recipes (made here, so
    that a misspelt one fails before any training), ``jobs`` go to
    :func:`recur.core.device.run_jobs`."""
    quiet = {"progress": False, "device": "cpu"} | changes
    recipes = {method: recipe.but(**quiet) for method, recipe in RECIPES.items()}
    tasks = [
        Ch7Job(method, seed, tuple(widths), n_sums, long_chains, recipes[method])
        for seed in seeds
        for method in recipes
    ]
    results = run_jobs(_job_rows, tasks, jobs)
    return {
        name: pd.DataFrame([row for result in results for row in result[name]])
        for name in ("ch7_length", "ch7_distance", "ch7_settle")
    }


STUDY = Study("ch7", "ch7_length.csv", "ACT against PonderNet (Chapter 7)",
              ".venv/bin/python benchmarks/ch7_studies.py", "ACT against PonderNet",
              runs=run, settings={"seeds": SEEDS})  # fmt: skip
