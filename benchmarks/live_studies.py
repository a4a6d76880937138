"""How often the book's other live trainings do what their chapters
say: Chapter 2's cell, Chapter 3's injected cell, Chapter 4's local UT, Chapter 7's DEQ
cell and PonderNet, each trained as its chapter trains it with seeds 0 to 19 on the CPU
and tested on fresh sums (``recur.studies.live``, whose docstring gives each bar).
Writes ``book/data/live_seeds.csv`` and prints one JSON line per run. About 15 minutes
on 2 cores with ``--jobs 2``. ``--models 0,3`` reruns only those of
``recur.studies.live.LIVE`` (here Chapter 2's cell and the DEQ cell) and keeps the other
rows of the table.

The committed ``live_seeds_first_100.csv`` is the whole table as it was before Chapter
2's cell had its check (``recur.training.cell_check``), before Chapter 7's DEQ cell had
its own (``recur.chapters.ch7_fixed_points.train_deq``) and before Chapter 4's local UT
started again from a new seed when one run fell short
(``recur.chapters.ch4_universal_transformer.train_local_ut``): the three trainings
stopped at the first check where every held-out pair was right, in one run. Chapters 2,
4 and 7 compare the two. ``live_seeds_restart_800.csv`` holds Chapter 4's local UT
trained by ``train_local_ut`` with ``n_steps=800`` (``live_seed_runs(names=(LIVE[2],),
n_steps=800, jobs=2)``): the restart without the longer runs, which Chapter 4 also
compares.

Run: ``.venv/bin/python benchmarks/live_studies.py [--jobs N] [--models I,J]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from last_run import recorded
from recur.studies.live import LIVE, live_seed_runs

DATA = Path(__file__).resolve().parents[1] / "book" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description="Live trainings over twenty seeds.")
    parser.add_argument("--jobs", type=int, default=1, help="processes, 1 thread each")
    parser.add_argument(
        "--models",
        default="0,1,2,3,4",
        help="indices into recur.studies.live.LIVE to rerun (default: all)",
    )
    args = parser.parse_args()
    names = [LIVE[int(i)] for i in args.models.split(",")]
    with recorded("make studies: live_studies.py", full=set(names) == set(LIVE)):
        table = live_seed_runs(names=tuple(names), jobs=args.jobs)
    for row in table.to_dict("records"):
        print(json.dumps(row), flush=True)
    if set(names) != set(LIVE):  # keep the other models' rows, in LIVE's order
        kept = pd.read_csv(DATA / "live_seeds.csv")
        table = pd.concat([kept[~kept["model"].isin(names)], table])
        order = table["model"].map(LIVE.index)
        table = table.iloc[order.argsort(kind="stable")].reset_index(drop=True)
    table.to_csv(DATA / "live_seeds.csv", index=False)
    print("wrote book/data/live_seeds.csv", flush=True)


if __name__ == "__main__":
    main()
