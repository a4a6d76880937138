"""How often the book's other live trainings do what their chapters
say: Chapter 2's cell, Chapter 3's injected cell, Chapter 4's local UT, Chapter 7's DEQ
cell and PonderNet, each trained as its chapter trains it with seeds 0 to 19 on the CPU
and tested on fresh sums (``recur.studies.live``, whose docstring gives each bar).
Writes ``book/data/live_seeds.csv`` and prints one JSON line per run. About 15 minutes
on 2 cores with ``--jobs 2``. ``--models "Chapter 2's cell,Chapter 7's DEQ cell"``
reruns only those of ``recur.studies.live.LIVE`` and keeps the other rows of the table.

``--first-100`` trains the same models in one run that stops at the first check where
every held-out pair is right, with no further check and no restart (Chapter 4's local
UT: at most 800 steps), and writes ``book/data/live_seeds_first_100.csv``: Chapters 2, 4
and 7 set their own procedure beside it. Chapter 3's cell and PonderNet train the same
way in both procedures, so their rows are taken from ``live_seeds.csv`` (run it first).

Run: ``.venv/bin/python benchmarks/live_studies.py [--jobs N] [--models NAMES]
[--first-100]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from last_run import recorded
from recur.studies.live import FIRST_100_DIFFERS, LIVE, by_name, live_seed_runs

DATA = Path(__file__).resolve().parents[1] / "book" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description="Live trainings over twenty seeds.")
    parser.add_argument("--jobs", type=int, default=1, help="processes, 1 thread each")
    parser.add_argument(
        "--models",
        default=",".join(t.name for t in LIVE),
        help="names of recur.studies.live.LIVE's trainings to rerun, comma-separated "
        "(default: all)",
    )
    parser.add_argument(
        "--first-100",
        action="store_true",
        help="one run each, stopping at the first 100%% held-out: "
        "live_seeds_first_100.csv",
    )
    args = parser.parse_args()
    trainings = [by_name(name.strip()) for name in args.models.split(",")]
    names = [t.name for t in trainings]
    path = DATA / ("live_seeds_first_100.csv" if args.first_100 else "live_seeds.csv")
    label = "make studies: live_studies.py" + (" --first-100" if args.first_100 else "")
    same = [t for t in trainings if args.first_100 and t not in FIRST_100_DIFFERS]
    with recorded(label, full=set(trainings) == set(LIVE)):
        table = live_seed_runs(
            trainings=tuple(t for t in trainings if t not in same),
            jobs=args.jobs,
            first_100=args.first_100,
        )
    if same:  # trained the same way in both procedures: the chapter's rows
        chapter = pd.read_csv(DATA / "live_seeds.csv")
        same_names = [t.name for t in same]
        table = pd.concat([table, chapter[chapter["model"].isin(same_names)]])
    for row in table.to_dict("records"):
        print(json.dumps(row), flush=True)
    if set(trainings) != set(LIVE):  # keep the other models' rows
        kept = pd.read_csv(path)
        table = pd.concat([kept[~kept["model"].isin(names)], table])
    order = table["model"].map([t.name for t in LIVE].index)  # in LIVE's order
    table = table.iloc[order.argsort(kind="stable")].reset_index(drop=True)
    table.to_csv(path, index=False)
    print(f"wrote book/data/{path.name}", flush=True)


if __name__ == "__main__":
    main()
