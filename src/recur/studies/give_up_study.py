"""The ``give_up`` study: every check of the first run of Chapter 6's procedure for
each seed, the table :data:`recur.chapters.ch6_act_ut.GIVE_UP_STEP` was chosen on."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch6_act_ut import train_book_act
from recur.core.device import run_jobs


@dataclass(frozen=True)
class FirstRunJob:
    """One first run of :func:`first_run_checks`: its seed and the overrides of
    :func:`train_book_act`."""

    seed: int
    overrides: dict


def _first_run_rows(job: FirstRunJob) -> list[dict]:
    """Every check of the seed's first run of :func:`train_book_act`, which neither
    gives up nor starts again: one row per check, with whether it passed."""
    settings = {"progress": False} | job.overrides
    book = train_book_act(job.seed, max_attempts=1, **settings)
    return [
        {"seed": job.seed} | dataclasses.asdict(check) | {"passed": check.passed}
        for check in book.checks
    ]


def first_run_checks(
    seeds: tuple[int, ...], jobs: int = 1, **overrides
) -> pd.DataFrame:
    """The ``give_up`` study: every check of the first run of Chapter 6's procedure
    for each seed, a run that never gives up and stops only at its first passing
    check or after all its 1,200 steps; one row per check.
    :data:`recur.chapters.ch6_act_ut.GIVE_UP_STEP` was chosen on it, for seeds 860-899;
    ``jobs`` as in :func:`seed_runs`, ``overrides`` go to :func:`train_book_act`."""
    tasks = [FirstRunJob(seed, overrides) for seed in seeds]
    results = run_jobs(_first_run_rows, tasks, jobs)
    return pd.DataFrame([row for rows in results for row in rows])
