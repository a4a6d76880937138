"""Chapter 7's study, too slow for the page: ACT against PonderNet on the same UT and
the same task. For each seed, Chapter 6's model as Chapter 6 trains it
(``train_book_act``: ``BOOK_ACT``, its check and restart) and the same UT trained the
same way with PonderNet's halting rule (``recur.chapters.ch7_pondernet.train_ponder``)
are trained on the CPU on sums of at most 8 bits, then measured like Chapter 6's recipe
study (500 random and 200 long-chain sums per width, the registry's REPORT_SUMS + width,
cap 2 (n + 1)), plus the steps per position against the carry distance on 300 long-chain
32-bit sums, and how much the state still changes in each round when the shared block is
run without halting.

Writes ``book/data/ch7_length.csv``, ``ch7_distance.csv`` and ``ch7_settle.csv``
and prints one JSON line per run. About 10 minutes on 2 cores.
Run: ``.venv/bin/python benchmarks/ch7_studies.py``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

from last_run import recorded
from recur.chapters.ch6_act_ut import train_book_act
from recur.chapters.ch6_measures import act_length_table, ponder_vs_distance
from recur.chapters.ch7_fixed_points import state_changes
from recur.chapters.ch7_pondernet import STUDY_SUMS, train_ponder
from recur.core.device import limit_heap_growth
from recur.core.seeds import DISTANCE_SUMS, REPORT_SUMS, SETTLE_SUMS, by_name
from recur.core.tasks import long_chain_batch, twice_width_plus_one

DATA = Path(__file__).resolve().parents[1] / "book" / "data"
SEEDS = tuple(by_name("ACT against PonderNet").seeds)
WIDTHS = [8, 16, 32, 64]
DISTANCE_BITS = 32  # the long chains of the steps-by-distance table
# a column of act_length_table that Chapter 7 does not read: left out of its table
LATER = ["halted before the carry, long chains"]


def _train(method: str, seed: int, **overrides):
    """Chapter 6's model as Chapter 6 trains it (``train_book_act``), or the same UT
    trained the same way with PonderNet's halting rule (``train_ponder``)."""
    settings = {"progress": False, "device": "cpu"} | overrides
    if method == "ACT":
        return train_book_act(seed=seed, **settings).model
    return train_ponder(seed=seed, **settings)[0]


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


def run(
    seeds=SEEDS,
    widths=WIDTHS,
    n_sums=STUDY_SUMS["random"],
    long_chains=STUDY_SUMS["long chains"],
    **overrides,
) -> dict:
    """The three tables, by file name; ``overrides`` go to the trainings."""
    length, distance, settle = [], [], []
    hard = long_chain_batch(
        max(1, 3 * long_chains // 2), DISTANCE_BITS, seed=DISTANCE_SUMS + DISTANCE_BITS
    )
    for seed in seeds:
        for method in ("ACT", "PonderNet"):
            start = time.perf_counter()
            model = _train(method, seed, **overrides)
            seconds = time.perf_counter() - start
            table = act_length_table(
                model, widths, n_sums, twice_width_plus_one, REPORT_SUMS, long_chains
            ).drop(columns=LATER, errors="ignore")  # ch7_length.csv's columns
            length += [
                {"method": method, "seed": seed, "bits": n_bits}
                | row.to_dict()
                | {"train seconds": seconds}
                for n_bits, row in table.iterrows()
            ]
            distance += _distance_rows(model, method, seed, hard)
            settle += _settle_rows(model, method, seed, max(1, long_chains))
            done = {"method": method, "seed": seed, "seconds": round(seconds, 1)}
            print(json.dumps(done | {"exact": float(table["exact"].iloc[-1])}))
    return {
        "ch7_length": pd.DataFrame(length),
        "ch7_distance": pd.DataFrame(distance),
        "ch7_settle": pd.DataFrame(settle),
    }


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    limit_heap_growth()  # long ACT runs would otherwise keep their freed memory
    with recorded("make studies: ch7_studies.py"):
        tables = run()
    for name, table in tables.items():
        table.to_csv(DATA / f"{name}.csv", index=False)


if __name__ == "__main__":
    main()
