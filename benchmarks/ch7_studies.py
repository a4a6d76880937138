"""Chapter 7's study (:mod:`recur.studies.ch7_study`): ACT against PonderNet on the
same UT and the same task, too slow for the page.

Writes ``book/data/ch7_length.csv``, ``ch7_distance.csv`` and ``ch7_settle.csv``.
About 5 minutes on 2 cores. Run: ``.venv/bin/python benchmarks/ch7_studies.py
[--jobs N] [--scheduler ADDRESS] [--seeds A-B] [--out DIR]``: the trainings run on a
Dask cluster and are kept as they finish (:mod:`recur.studies.cluster`).
"""

from __future__ import annotations

import argparse

from last_run import recorded
from recur.studies import cluster
from recur.studies.ch7_study import STUDY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cluster.add_arguments(parser)
    args = parser.parse_args()
    seeds = {"seeds": args.seeds} if args.seeds else {}
    full = not args.seeds and cluster.writes_the_books_tables(args.out)
    with recorded("make studies: ch7_studies.py", full=full):
        where = (args.jobs, args.scheduler, args.out)
        with cluster.study_cluster("ch7", *where) as jobs:
            tables = STUDY.run(**seeds)
            for name, table in tables.items():
                table.to_csv(args.out / f"{name}.csv", index=False)
                jobs.record(args.out / f"{name}.csv")
            jobs.finish()


if __name__ == "__main__":
    main()
