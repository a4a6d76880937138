"""The skeptic's study: the book's cells, trained as their chapters train them, read
as the book reads them on every skeptic's sum (:func:`recur.core.hardest.skeptic_sums`)
at each width, and held :data:`recur.training.holds.HOLD_ROUNDS` rounds more.

One row per model, training seed and width: how many sums passed (right when read,
settled, and right through the hold), and the names of those that did not.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch2_shared_update import train_cell, train_holding_cell
from recur.chapters.ch6_act_ut import train_book_act
from recur.chapters.ch6_hardest import act_holds
from recur.chapters.ch7_fixed_points import train_deq, train_holding_deq
from recur.core.device import run_jobs, seed_everything
from recur.core.hardest import Family, search_families, skeptic_sums
from recur.models.deq import EquilibriumCell
from recur.models.ut import UniversalTransformer
from recur.training.cell_variants import train_variant
from recur.training.holds import Holds, cell_holds, deq_holds


def _checked(trainer: Callable, **options) -> Callable:
    """seed -> (model, runs, whether its check passed) of a checked procedure."""

    def train_it(seed: int) -> tuple:
        run = trainer(seed, progress=False, **options)
        return run.model, run.attempts, run.passed

    return train_it


def _injected(seed: int) -> tuple:
    """Chapter 3's injected cell as its live study trains it: one run of 1,000 steps,
    its "check" every held-out pair right."""
    seed_everything(seed)
    model, result = train_variant(True, 1, seed, n_steps=1000, device="cpu")
    return model, 1, result.reached


# name: how the model is trained (seed -> (model, runs, check passed))
TRAININGS: dict[str, Callable] = {
    "Chapter 2's cell": _checked(train_cell),
    "holding cell": _checked(train_holding_cell),
    "holding cell without snapping": _checked(train_holding_cell, without=("snap",)),
    "holding cell without the hold cost": _checked(
        train_holding_cell, without=("hold",)
    ),
    "holding cell without chain sums": _checked(
        train_holding_cell, without=("chains",)
    ),
    "Chapter 3's injected cell": _injected,
    "Chapter 6's Transformer": _checked(train_book_act),
    "Chapter 7's DEQ cell": _checked(train_deq),
    "holding DEQ cell": _checked(train_holding_deq),
    "holding DEQ cell without the saturation cost": _checked(
        train_holding_deq, without=("saturate",)
    ),
}
# Chapter 3 reads its injected cell after 4 (n + 1) rounds (its 32-bit claim)
ROUNDS_PER_POSITION = {"Chapter 3's injected cell": 4}
COLUMNS = ["model", "seed", "n_bits", "sums", "passed", "right when read",
           "held", "settled", "failed", "train seconds", "attempts",
           "check passed", "found"]  # fmt: skip


@dataclass(frozen=True)
class SkepticJob:
    model: str
    seed: int
    widths: tuple[int, ...]
    extra: tuple[Family, ...]
    search_draws: int = 0  # families drawn at SEARCH_BITS bits (0: no search)


def families_from_json(text: str) -> tuple[Family, ...]:
    """Families written by :func:`families_to_json`."""
    return tuple(Family(tuple((k, s) for k, s in runs)) for runs in json.loads(text))


def families_to_json(families) -> str:
    return json.dumps([list(map(list, f.runs)) for f in families])


SEARCH_BITS = 64  # the width at which search_families tries its draws
SEARCH_DRAWS = 400  # families drawn for each baseline model of the choosing study


def _holds(model, batch, name: str) -> Holds:
    """The model read as its chapter reads it, then held."""
    if isinstance(model, EquilibriumCell):
        return deq_holds(model, batch)
    if isinstance(model, UniversalTransformer):
        return act_holds(model, batch)
    return cell_holds(
        model, batch, rounds_per_position=ROUNDS_PER_POSITION.get(name, 1)
    )


def skeptic_rows(job: SkepticJob) -> list[dict]:
    """Train ``job.model`` from ``job.seed`` and test it at each width; with
    ``search_draws``, each row also keeps (column ``found``) the drawn families the
    model failed at :data:`SEARCH_BITS` bits (the draws from the training seed)."""
    start = time.perf_counter()
    model, attempts, passed = TRAININGS[job.model](job.seed)
    seconds = time.perf_counter() - start
    found = ()
    if job.search_draws:
        found = search_families(
            lambda batch: _holds(model, batch, job.model).passed,
            SEARCH_BITS, job.search_draws, job.seed,
        )  # fmt: skip
    rows = []
    for n_bits in job.widths:
        sums = skeptic_sums(n_bits, job.extra)
        holds = _holds(model, sums.batch, job.model)
        failed = [n for n, ok in zip(sums.names, holds.passed.tolist(), strict=True)
                  if not ok]  # fmt: skip
        rows.append({
            "model": job.model, "seed": job.seed, "n_bits": n_bits,
            "sums": len(sums.names), "passed": int(holds.passed.sum()),
            "right when read": int(holds.right.sum()), "held": int(holds.held.sum()),
            "settled": int(holds.settled.sum()), "failed": "; ".join(failed),
            "train seconds": seconds, "attempts": attempts,
            "check passed": passed, "found": families_to_json(found),
        })  # fmt: skip
    return rows


def skeptic_runs(
    model_names: tuple[str, ...],
    seeds: tuple[int, ...],
    widths: tuple[int, ...],
    extra: tuple[Family, ...] = (),
    jobs: int = 1,
    search_draws: int = 0,
) -> pd.DataFrame:
    """:func:`skeptic_rows` for every model and seed (``jobs`` at once)."""
    unknown = set(model_names) - set(TRAININGS)
    if unknown:
        raise ValueError(f"unknown models {sorted(unknown)}: see TRAININGS")
    tasks = [
        SkepticJob(m, s, widths, extra, search_draws)
        for m in model_names
        for s in seeds
    ]
    rows = [row for part in run_jobs(skeptic_rows, tasks, jobs) for row in part]
    return pd.DataFrame(rows, columns=COLUMNS)


def all_passed(table: pd.DataFrame, model_name: str, n_bits: int) -> tuple[int, int]:
    """(seeds whose model ``model_name`` passed every sum at ``n_bits``, seeds
    tried)."""
    rows = table[(table["model"] == model_name) & (table["n_bits"] == n_bits)]
    return int((rows["passed"] == rows["sums"]).sum()), len(rows)


def found_families(table: pd.DataFrame, most: int = 12) -> tuple[Family, ...]:
    """The families the search kept (column ``found``), those that broke the most
    models first, at most ``most``: one each of a name."""
    counts: dict[str, int] = {}
    by_name: dict[str, Family] = {}
    for text in table["found"].dropna():
        for family in families_from_json(text):
            counts[family.name] = counts.get(family.name, 0) + 1
            by_name[family.name] = family
    ranked = sorted(counts, key=lambda name: (-counts[name], name))[:most]
    return tuple(by_name[name] for name in ranked)
