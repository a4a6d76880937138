"""The skeptic's study: the book's cells on the skeptic's sums (``recur.studies.
skeptic_study``), each sum read as the book reads the model and held 1,000 rounds.

``--choose``: the registry's "holding recipe" seeds (3100-3119) at 16, 64 and 256
bits, for Chapter 2's and Chapter 7's cells, the holding recipe and the recipe without
each of its pieces; each baseline model also searches 400 drawn families at 64 bits and
keeps those it fails. Writes ``book/data/skeptic_choose.csv``.

Default (report): the registry's "skeptic's sums" seeds (0-19) at 64, 256 and 1,024
bits for the cells of Chapters 2, 3 and 7 and Chapter 6's Transformer as their
chapters train them (Chapter 3's cell read after 4 (n + 1) rounds, the Transformer by
ACT within 2 (n + 1) rounds and on time, as they are read) and for the holding twins,
on the named families and the twelve the search kept most often (read from
``skeptic_choose.csv``: run ``--choose`` first). Writes
``book/data/skeptic_report.csv``. ``--wide`` tests the holding cell at 4,096 bits
(``skeptic_wide.csv``, seeds 0-4 unless ``--seeds``).

Run: ``.venv/bin/python benchmarks/skeptic_studies.py [--choose | --wide] [--jobs N]
[--scheduler ADDRESS] [--seeds A-B] [--out DIR]``.
"""

from __future__ import annotations

import argparse

import pandas as pd

from recur.core.seeds import by_name
from recur.studies import cluster
from recur.studies.skeptic_study import (
    SEARCH_DRAWS,
    TRAININGS,
    found_families,
    skeptic_runs,
)

DATA = cluster.DATA
NOT_CHOSEN = ("Chapter 3's injected cell", "Chapter 6's Transformer")  # report only
CHOOSE = {
    "seeds": tuple(by_name("holding recipe").seeds),
    "widths": (16, 64, 256),
    "models": tuple(m for m in TRAININGS if m not in NOT_CHOSEN),
}
REPORT = {
    "seeds": tuple(by_name("skeptic's sums").seeds),
    "widths": (64, 256, 1024),
    "models": (
        "Chapter 2's cell",
        "holding cell",
        "Chapter 3's injected cell",
        "Chapter 6's Transformer",
        "Chapter 7's DEQ cell",
        "holding DEQ cell",
    ),
}
# the DEQ's cap of 2 (n + 1) iterations makes its 4,096-bit test about twice as long
WIDE = {"seeds": tuple(range(5)), "widths": (4096,), "models": ("holding cell",)}
BASELINES = ("Chapter 2's cell", "Chapter 7's DEQ cell")


def main() -> None:
    parser = argparse.ArgumentParser(description="The skeptic's sums.")
    cluster.add_arguments(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--choose", action="store_true")
    which.add_argument("--wide", action="store_true")
    parser.add_argument(
        "--models",
        help="names of the study's models to rerun, comma-separated; the table's "
        "other rows stay (default: all)",
    )
    args = parser.parse_args()
    study = CHOOSE if args.choose else WIDE if args.wide else REPORT
    name = (
        "skeptic_choose"
        if args.choose
        else "skeptic_wide"
        if args.wide
        else ("skeptic_report")
    )
    seeds = tuple(args.seeds) if args.seeds else study["seeds"]
    extra = ()
    if not args.choose:
        extra = found_families(pd.read_csv(args.out / "skeptic_choose.csv"))
    models = study["models"]
    if args.models:
        models = tuple(m.strip() for m in args.models.split(","))
    tables = []
    path = args.out / f"{name}.csv"
    if args.models and path.exists():  # the other models' rows stay
        kept = pd.read_csv(path)
        tables.append(kept[~kept["model"].isin(models)])
    with cluster.study_cluster(name, args.jobs, args.scheduler, args.out) as jobs:
        for model in models:
            draws = SEARCH_DRAWS if args.choose and model in BASELINES else 0
            tables.append(
                skeptic_runs(
                    (model,),
                    seeds,
                    study["widths"],
                    extra,
                    args.jobs,
                    search_draws=draws,
                )
            )
            print(tables[-1].drop(columns="found").to_string(), flush=True)
        table = pd.concat(tables, ignore_index=True)
        order = list(dict.fromkeys(list(study["models"]) + list(models)))
        table = table.sort_values(
            ["model", "seed", "n_bits"],
            key=lambda c: c.map(order.index) if c.name == "model" else c,
            kind="stable",
        )
        table.to_csv(path, index=False)
        jobs.record(path, families=[f.name for f in extra])
        jobs.finish()
    print(f"wrote {path}", flush=True)


if __name__ == "__main__":
    main()
