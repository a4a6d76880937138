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

Run: ``.venv/bin/python benchmarks/live_studies.py [--jobs N] [--scheduler ADDRESS]
[--seeds A-B] [--out DIR] [--models NAMES] [--first-100]``: the trainings run on a Dask
cluster and are kept as they finish (:mod:`recur.studies.cluster`). With ``--seeds``
or ``--models`` the other rows of the table at ``--out`` stay.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from last_run import recorded
from recur.studies import cluster
from recur.studies.live import FIRST_100_DIFFERS, LIVE, by_name, live_seed_runs

DATA = cluster.DATA


def main() -> None:
    parser = argparse.ArgumentParser(description="Live trainings over twenty seeds.")
    cluster.add_arguments(parser)
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
    name = "live_seeds_first_100" if args.first_100 else "live_seeds"
    label = "make studies: live_studies.py" + (" --first-100" if args.first_100 else "")
    full = set(trainings) == set(LIVE) and not args.seeds
    full = full and cluster.writes_the_books_tables(args.out)
    with recorded(label, full=full):
        table = _study(args, trainings, name)
    for row in table.to_dict("records"):
        print(json.dumps(row), flush=True)
    path = args.out / f"{name}.csv"
    table = _with_kept_rows(table, path)
    order = table["model"].map([t.name for t in LIVE].index)  # in LIVE's order
    table = table.assign(order=order).sort_values(["order", "seed"], kind="stable")
    table.drop(columns="order").to_csv(path, index=False)
    print(f"wrote {path}", flush=True)


def _study(args, trainings: list, name: str) -> pd.DataFrame:
    """The trainings' runs on the study's cluster; in the one-run study, those that
    train the same way in both procedures are the chapter's rows."""
    same = [t for t in trainings if args.first_100 and t not in FIRST_100_DIFFERS]
    seeds = {"seeds": tuple(args.seeds)} if args.seeds else {}
    where = (args.jobs, args.scheduler, args.out)
    with cluster.study_cluster(name, *where) as jobs:
        table = live_seed_runs(
            trainings=tuple(t for t in trainings if t not in same),
            first_100=args.first_100,
            **seeds,
        )
        copied = "the rows of models that train alike in both: live_seeds.csv's"
        jobs.record(args.out / f"{name}.csv", **({"copied": copied} if same else {}))
        jobs.finish()
    if same:
        chapter = pd.read_csv(DATA / "live_seeds.csv")
        rows = chapter["model"].isin([t.name for t in same])
        if args.seeds:
            rows &= chapter["seed"].isin(args.seeds)
        table = pd.concat([table, chapter[rows]])
    return table


def _with_kept_rows(table: pd.DataFrame, path) -> pd.DataFrame:
    """``table`` and the rows of the table at ``path`` (if any) for the models and
    seeds it did not train: a run of some models or seeds updates only those."""
    if not path.exists():
        return table.reset_index(drop=True)
    kept = pd.read_csv(path)
    trained = set(zip(table["model"], table["seed"], strict=True))
    keep = [
        pair not in trained for pair in zip(kept["model"], kept["seed"], strict=True)
    ]
    return pd.concat([kept[keep], table], ignore_index=True)


if __name__ == "__main__":
    main()
