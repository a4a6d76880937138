"""Chapter 7's study, too slow for the page: ACT against PonderNet on the same UT and
the same task. For each seed, Chapter 6's model (``BOOK_ACT``) and the same UT with
PonderNet's halting rule (``recur.pondernet.train_ponder``) are trained on sums of at
most 8 bits, then measured exactly like Chapter 6's recipe study (500 random and 200
long-chain sums per width, seeds 2024 + width, cap 2 (n + 1)), plus the steps per
position against the carry distance on 300 long-chain 32-bit sums, and how much the
state still changes in each round when the shared block is run without halting.

Writes ``book/data/ch7_length.csv``, ``ch7_distance.csv`` and ``ch7_settle.csv``
and prints one JSON line per run. About 8 minutes on 2 cores.
Run: ``.venv/bin/python benchmarks/ch7_studies.py``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd

from recur.deq import state_changes
from recur.pondernet import train_ponder
from recur.tasks import long_chain_batch
from recur.ut_experiments import (
    BOOK_ACT,
    act_length_table,
    ponder_vs_distance,
    train_ut,
    twice_width_plus_one,
)

DATA = Path(__file__).resolve().parents[1] / "book" / "data"
SEEDS = (0, 1, 2)
WIDTHS = [8, 16, 32, 64]


def _train(method: str, seed: int):
    if method == "ACT":
        return train_ut(**BOOK_ACT, seed=seed, progress=False)
    return train_ponder(seed=seed, progress=False)


def _settle_rows(model, method: str, seed: int) -> list[dict]:
    rows = []
    for n_bits, n_rounds in ((8, 24), (32, 66)):
        bits = long_chain_batch(200, n_bits, seed=5000 + n_bits).bits
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


def main() -> None:
    length, distance, settle = [], [], []
    hard = long_chain_batch(300, 32, seed=4032)
    for seed in SEEDS:
        for method in ("ACT", "PonderNet"):
            start = time.perf_counter()
            model, run = _train(method, seed)
            seconds = time.perf_counter() - start
            table = act_length_table(
                model, WIDTHS, 500, twice_width_plus_one, seed=2024, long_chains=200
            )
            for n_bits, row in table.iterrows():
                length.append(
                    {"method": method, "seed": seed, "bits": n_bits}
                    | row.to_dict()
                    | {"train seconds": seconds}
                )
            by_d, slope, intercept = ponder_vs_distance(model, hard, 66)
            for d, row in by_d.iterrows():
                distance.append(
                    {
                        "method": method,
                        "seed": seed,
                        "carry distance": d,
                        "mean steps": row["mean"],
                        "count": row["count"],
                        "slope": slope,
                        "intercept": intercept,
                    }
                )
            settle += _settle_rows(model, method, seed)
            print(
                json.dumps(
                    {
                        "method": method,
                        "seed": seed,
                        "seconds": round(seconds, 1),
                        "exact_64": float(table.loc[64, "exact"]),
                    }
                ),
                flush=True,
            )
    pd.DataFrame(length).to_csv(DATA / "ch7_length.csv", index=False)
    pd.DataFrame(distance).to_csv(DATA / "ch7_distance.csv", index=False)
    pd.DataFrame(settle).to_csv(DATA / "ch7_settle.csv", index=False)


if __name__ == "__main__":
    main()
