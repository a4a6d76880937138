"""The studies of Chapter 6 that train too many models for a page. Each trains the
local ACT Universal Transformer for several settings and seeds, prints one JSON line per
run and writes the table the book reads (``book/data/act_NAME.csv``). The seeds and test
sums of each come from :mod:`recur.core.seeds`; the methods appendix of the book lists
them, with what each study measures.

The plain sum of Chapters 4 and 5 (``FIRST_ACT``):

- ``tau``: the time penalty, three values, three seeds, 1,500 steps each;
- ``warmup``: the ponder cost at full weight from step 1, or ramped in over 500 steps;
- ``positions``: four position signals, tested on 8 to 24 bits;
- ``length``: input injection off or on, three position signals, tested up to 64 bits.

A simpler procedure than the chapter's (``TUNED_ACT``: no pauses, no runs without a
carry, no check, no restart):

- ``recipe``: it and seven variants that each take one piece out, three seeds;
- ``waiting``: the halting probabilities of positions still waiting for their carry.

The chapter's procedure (``train_book_act``):

- ``seeds``: twenty seeds of it and of ``TUNED_ACT``, tested on fresh sums of 8 to 64
  bits (random, long chains, long waits without a carry) and on the hardest sums of
  each width (:func:`recur.core.hardest.hardest_sums`); with ``--device cuda`` the
  procedure alone on a GPU, written to ``act_seeds_cuda.csv``;
- ``seeds_every``: the same with the shared block run on every sum in each training
  step (other rounding: equal in exact arithmetic);
- ``wide``: the same twenty models tested on sums of 128 to 1,024 bits, and on the
  hardest sums of each width;
- ``third_run_rows`` and ``third_run_every``: a third run, with either rounding, on the
  registry's seeds for that choice (``act_third_run_*.csv``);
- ``give_up``: every check of the first runs of the registry's give-up seeds, which
  ``GIVE_UP_STEP`` rests on.
- ``pairs``: the procedure with its model reading each pair of bits as a set and
  without, on the registry's seeds for that choice, tested on the hardest sums too.
- ``hundred``: a hundred seeds of the procedure alone (the registry's "hundred
  seeds"), tested as ``seeds`` tests it;
- ``hundred_wide``: the same hundred seeds trained again (the same models on the same
  CPU) and tested as ``wide`` tests its twenty.

Run: ``make studies`` (all but ``hundred`` and ``hundred_wide``), or
``.venv/bin/python benchmarks/act_studies.py [--jobs N] [--scheduler ADDRESS]
[--seeds A-B] [--out DIR] [--device D] [name ...]``. The trainings run on a Dask
cluster and are kept as they finish (:mod:`recur.studies.cluster`): a stopped study
resumes. Each study is a record of :mod:`recur.studies.act_studies`: what it runs, its
settings and its seeds.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from last_run import recorded
from recur.studies import cluster
from recur.studies.act_studies import ACT_STUDIES, NOT_BY_DEFAULT, ON_A_GPU


def run_study(name: str, **changes) -> pd.DataFrame:
    """Run one study on the CPU with its settings (``changes`` replace or add)."""
    return ACT_STUDIES[name].run(**({"device": "cpu"} | changes))


def main() -> None:
    parser = argparse.ArgumentParser(description="Chapter 6's slow studies.")
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"studies to run (default: all but {', '.join(NOT_BY_DEFAULT)}): "
        f"{', '.join(ACT_STUDIES)}",
    )
    cluster.add_arguments(parser)
    parser.add_argument("--device", help="e.g. cuda: only the studies in ON_A_GPU")
    args = parser.parse_args()
    if unknown := set(args.names) - set(ACT_STUDIES):
        parser.error(f"no such study: {', '.join(sorted(unknown))}")
    full = not args.names and not args.device and not args.seeds
    full = full and cluster.writes_the_books_tables(args.out)
    with recorded("make studies: act_studies.py", full):
        _run(args)


def _run(args) -> None:
    default = [name for name in ACT_STUDIES if name not in NOT_BY_DEFAULT]
    for name in args.names or default:
        settings = ON_A_GPU[name] | {"device": args.device} if args.device else {}
        if args.seeds:
            settings["seeds"] = args.seeds
        suffix = f"_{args.device}" if args.device else ""
        out = args.out / f"act_{name}{suffix}.csv"
        where = (args.jobs, args.scheduler, args.out)
        with cluster.study_cluster(out.stem, *where) as jobs:
            table = run_study(name, **settings)
            for row in table.to_dict("records"):
                print(json.dumps({"study": name} | row), flush=True)
            table.to_csv(out, index=False)
            jobs.record(out)
            jobs.finish()
        print(f"wrote {out}", flush=True)


if __name__ == "__main__":
    main()
