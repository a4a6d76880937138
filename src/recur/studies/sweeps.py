"""Sweeps over training settings of Chapter 6's local ACT Transformer, run offline by
``benchmarks/act_studies.py``: the time penalty tau, single pieces of the procedure,
and how halting behaves while a position waits for its carry."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from recur.chapters.ch4_universal_transformer import ACT_TARGET, train_ut
from recur.chapters.ch6_measures import act_length_table, halting_while_waiting
from recur.core.tasks import (
    long_chain_batch,
    twice_width_plus_one,
)


def tau_sweep(
    taus: list[float], seeds: list[int], n_sums: int = 2000, **overrides
) -> pd.DataFrame:
    """The time penalty tau (``ponder_weight``): for each value and seed, train the
    local ACT UT and measure held-out exact match and the mean number of steps."""
    variants = {tau: {"ponder_weight": tau} for tau in taus}
    runs = act_runs(variants, seeds, n_sums=n_sums, **overrides)
    return runs.rename(columns={"variant": "tau"}).drop(columns="bits")


def act_runs(
    variants: dict,
    seeds: list[int],
    widths: tuple[int, ...] = (8,),
    n_sums: int = 1000,
    max_steps: int | Callable[[int], int] = 12,
    long_chains: int = 0,
    extra_columns: tuple[str, ...] = (),
    **overrides,
) -> pd.DataFrame:
    """Train the local ACT UT (cap 12) once per variant and seed, then measure it.

    ``variants`` maps a name (or value) to keyword arguments of :func:`train_ut`. One
    row per run and test width: exact match, mean steps and steps beyond the carry
    from :func:`act_length_table` (sums seeded 2024 + width; ``extra_columns`` names
    more of its columns to keep), steps trained, and seconds to the held-out exact
    match of ``stop_at_exact`` (99% unless given; NaN if never), read from the run's
    history, so it is there whether or not training stopped at it.
    """
    rows = []
    for name, options in variants.items():
        for seed in seeds:
            settings = {"progress": False} | overrides | options
            model, run = train_ut(1, act=True, n_rounds=12, seed=seed, **settings)
            target = settings.get("stop_at_exact") or ACT_TARGET  # train_ut's default
            table = act_length_table(
                model, widths, n_sums, max_steps, seed=2024, long_chains=long_chains
            )
            measured = [c for c in table.columns if c.startswith("exact")]
            measured += ["mean steps", "steps beyond the carry", *extra_columns]
            for n_bits, row in table.iterrows():
                rows.append(
                    {"variant": name, "seed": seed, "bits": n_bits}
                    | row[measured].to_dict()
                    | {
                        "train steps": int(run.history["step"].iloc[-1]),
                        f"seconds to {target:.0%}": run.seconds_to(target),
                    }
                )
    return pd.DataFrame(rows)


def waiting_runs(
    variants: dict,
    seeds: list[int],
    widths: tuple[int, ...] = (8, 32),
    n_sums: int = 300,
    max_steps: Callable[[int], int] = twice_width_plus_one,
    **overrides,
) -> pd.DataFrame:
    """Train the local ACT UT (cap 12) once per variant and seed, as :func:`act_runs`
    does, then run :func:`halting_while_waiting` on ``n_sums`` long-chain sums of each
    width (seeded 2024 + width). One row per run, width and round."""
    rows = []
    for name, options in variants.items():
        for seed in seeds:
            settings = {"progress": False} | overrides | options
            model, _ = train_ut(1, act=True, n_rounds=12, seed=seed, **settings)
            for n_bits in widths:
                batch = long_chain_batch(n_sums, n_bits, seed=2024 + n_bits)
                table, early = halting_while_waiting(model, batch, max_steps(n_bits))
                for n, row in table.iterrows():
                    rows.append(
                        {"variant": name, "seed": seed, "bits": n_bits, "round": n}
                        | row.to_dict()
                        | {"halted before the carry": early}
                    )
    return pd.DataFrame(rows)
