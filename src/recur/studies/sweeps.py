"""Sweeps over training settings of Chapter 6's local ACT Transformer, run offline by
``benchmarks/act_studies.py``: the time penalty tau, single pieces of the procedure,
and how halting behaves while a position waits for its carry."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from recur.chapters.ch6_measures import act_length_table, halting_while_waiting
from recur.core.device import run_jobs
from recur.core.seeds import CHOICE_SUMS
from recur.core.tasks import (
    long_chain_batch,
    twice_width_plus_one,
)
from recur.models.act import ACT_TARGET
from recur.models.halting import ActHalting
from recur.training.ut_recipe import FIRST_ACT, UTRecipe, train_ut


def tau_sweep(
    taus: list[float], seeds: list[int], n_sums: int = 2000, **changes
) -> pd.DataFrame:
    """The time penalty tau (``ponder_weight``): for each value and seed, train the
    first recipe with it and measure held-out exact match and the mean number of
    steps."""
    variants = {
        tau: FIRST_ACT.but(halting=ActHalting(ponder_weight=tau)) for tau in taus
    }
    runs = act_runs(variants, seeds, n_sums=n_sums, **changes)
    return runs.rename(columns={"variant": "tau"}).drop(columns="bits")


@dataclass(frozen=True)
class SweepJob:
    """One training of :func:`runs`: the variant's name, the seed, its recipe and the
    measure of the trained model."""

    variant: object
    seed: int
    recipe: UTRecipe
    measure: Callable


def runs(
    variants: dict[object, UTRecipe],
    seeds: list[int],
    measure: Callable,
    jobs: int = 1,
    **changes,
) -> pd.DataFrame:
    """Train each variant's recipe once per seed and measure it.

    ``variants`` maps a name (or value) to a recipe, ``changes`` change every one of
    them (:meth:`UTRecipe.but`, here, so that a misspelt one fails before any
    training); ``measure(model, run)`` (importable, for ``jobs`` > 1) returns the rows
    of one run, to which each row's ``variant`` and ``seed`` are put first. ``jobs``
    trainings run at once (:func:`recur.core.device.run_jobs`)."""
    quiet = {"progress": False} | changes
    tasks = [
        SweepJob(name, seed, recipe.but(**quiet), measure)
        for name, recipe in variants.items()
        for seed in seeds
    ]
    return pd.DataFrame(
        [r for rows in run_jobs(_sweep_rows, tasks, jobs) for r in rows]
    )


def _sweep_rows(job: SweepJob) -> list[dict]:
    model, run = train_ut(job.recipe, job.seed)
    first = {"variant": job.variant, "seed": job.seed}
    return [first | row for row in job.measure(model, run)]


def act_runs(
    variants: dict,
    seeds: list[int],
    widths: tuple[int, ...] = (8,),
    n_sums: int = 1000,
    max_steps: int | Callable[[int], int] = 12,
    long_chains: int = 0,
    extra_columns: tuple[str, ...] = (),
    **changes,
) -> pd.DataFrame:
    """:func:`runs` measured by :func:`act_length_table`: one row per run and test
    width with exact match, mean steps and steps beyond the carry (sums seeded
    ``CHOICE_SUMS`` + width; ``extra_columns`` names more of its columns to keep),
    steps trained, and seconds to the held-out exact match of ``stop_at_exact`` (99%
    unless given; NaN if never), read from the run's history, so it is there whether
    or not training stopped at it."""
    measure = functools.partial(
        _length_rows,
        widths=widths,
        n_sums=n_sums,
        max_steps=max_steps,
        long_chains=long_chains,
        extra_columns=extra_columns,
    )
    return runs(variants, seeds, measure, **changes)


def _length_rows(
    model, run, widths, n_sums, max_steps, long_chains, extra_columns
) -> list[dict]:
    target = run.config.stop_at_exact or ACT_TARGET  # train_ut's default
    table = act_length_table(
        model, widths, n_sums, max_steps, seed=CHOICE_SUMS, long_chains=long_chains
    )
    measured = [c for c in table.columns if c.startswith("exact")]
    measured += ["mean steps", "steps beyond the carry", *extra_columns]
    trained = {
        "train steps": int(run.history["step"].iloc[-1]),
        f"seconds to {target:.0%}": run.seconds_to(target),
    }
    return [
        {"bits": n_bits} | row[measured].to_dict() | trained
        for n_bits, row in table.iterrows()
    ]


def waiting_runs(
    variants: dict,
    seeds: list[int],
    widths: tuple[int, ...] = (8, 32),
    n_sums: int = 300,
    max_steps: Callable[[int], int] = twice_width_plus_one,
    **changes,
) -> pd.DataFrame:
    """:func:`runs` measured by :func:`halting_while_waiting` on ``n_sums`` long-chain
    sums of each width (seeded ``CHOICE_SUMS`` + width). One row per run, width and
    round."""
    measure = functools.partial(
        _waiting_rows, widths=widths, n_sums=n_sums, max_steps=max_steps
    )
    return runs(variants, seeds, measure, **changes)


def _waiting_rows(model, run, widths, n_sums, max_steps) -> list[dict]:
    rows = []
    for n_bits in widths:
        batch = long_chain_batch(n_sums, n_bits, seed=CHOICE_SUMS + n_bits)
        table, early = halting_while_waiting(model, batch, max_steps(n_bits))
        rows += [
            {"bits": n_bits, "round": n}
            | row.to_dict()
            | {"halted before the carry": early}
            for n, row in table.iterrows()
        ]
    return rows
