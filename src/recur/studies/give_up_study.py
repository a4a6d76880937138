"""The ``give_up`` study: every check of the first run of Chapter 6's procedure for
each seed, the table :data:`recur.chapters.ch6_act_ut.GIVE_UP_STEP` was chosen on."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch6_act_ut import FIRST_CHECK_STEP, train_book_act
from recur.core.device import run_jobs
from recur.training.ut_recipe import BOOK_ACT, UTRecipe


@dataclass(frozen=True)
class FirstRunJob:
    """One first run of :func:`first_run_checks`: its seed, the recipe and the step
    of the first check."""

    seed: int
    recipe: UTRecipe
    min_step: int


def _first_run_rows(job: FirstRunJob) -> list[dict]:
    """Every check of the seed's first run of :func:`train_book_act`, which neither
    gives up nor starts again: one row per check, with whether it passed."""
    book = train_book_act(
        job.seed, max_attempts=1, min_step=job.min_step, recipe=job.recipe
    )
    return [
        {"seed": job.seed} | dataclasses.asdict(check) | {"passed": check.passed}
        for check in book.checks
    ]


def first_run_checks(
    seeds: tuple[int, ...],
    jobs: int = 1,
    min_step: int = FIRST_CHECK_STEP,
    **changes,
) -> pd.DataFrame:
    """The ``give_up`` study: every check of the first run of Chapter 6's procedure
    for each seed, a run that never gives up and stops only at its first passing
    check or after all its 1,200 steps; one row per check.
    :data:`recur.chapters.ch6_act_ut.GIVE_UP_STEP` was chosen on it, for seeds 860-899;
    ``jobs`` as in :func:`seed_runs`; ``changes`` change :data:`BOOK_ACT`
    (:meth:`UTRecipe.but`)."""
    recipe = BOOK_ACT.but(**({"progress": False} | changes))
    tasks = [FirstRunJob(seed, recipe, min_step) for seed in seeds]
    results = run_jobs(_first_run_rows, tasks, jobs)
    return pd.DataFrame([row for rows in results for row in rows])
