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
cluster and are kept as they finish (``cluster.py``): a stopped study resumes.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import pandas as pd

import cluster
from last_run import recorded
from recur.core.seeds import CANDIDATE_SUMS, by_name
from recur.core.tasks import twice_width_plus_one
from recur.models.act import ACT_RAMP_STEPS
from recur.models.halting import ActHalting
from recur.studies.give_up_study import first_run_checks
from recur.studies.hardest_study import pair_runs
from recur.studies.seed_study import WIDE_WIDTHS, seed_runs
from recur.studies.sweeps import act_runs, tau_sweep, waiting_runs
from recur.training.ut_recipe import BOOK_ACT, FIRST_ACT, TUNED_ACT

DATA = cluster.DATA


# Chapter 6's model trained stepping only the sums with a running position (its
# default), or every sum (the same in exact arithmetic: other rounding)
ROWS_ONLY = {"halting": replace(BOOK_ACT.model.halting, train_rows_only=True)}
EVERY_SUM = {"halting": replace(BOOK_ACT.model.halting, train_rows_only=False)}

# The seeds study's seeds and tests; the give_up study's first runs
BOOK_SEEDS = {
    "seeds": list(by_name("twenty seeds").seeds),
    "jobs": 2,
    "kill_waits": True,  # and long waits that end in a kill
}
GIVE_UP = {"seeds": tuple(by_name("give-up step").seeds), "jobs": 2}
# Chapter 6's procedure alone, a hundred seeds, tested as the seeds study tests it
HUNDRED = BOOK_SEEDS | {"seeds": list(by_name("hundred seeds").seeds),
                        "recipes": ("BOOK_ACT",), "hardest": True}  # fmt: skip

# The twenty seeds' models tested on sums of 128 to 1,024 bits (and 8, the bar's
# width); ``hundred_wide`` tests the hundred seeds' models so
WIDE = {
    "recipes": ("BOOK_ACT",),
    "seeds": list(by_name("twenty seeds").seeds),
    "widths": WIDE_WIDTHS,
    "n_sums": 200,
    "long_chains": 100,
    "long_chains_up_to": 256,
    "hardest": True,
    "hardest_news": False,  # every sum to the last round: slow at 1,024 bits
    "jobs": 2,
}

# Choosing whether train_book_act runs a third time when the first two pass no check:
# on the registry's seeds and test sums for that choice, used for nothing else
THIRD_RUN = {
    "recipes": ("BOOK_ACT",),
    "seeds": list(by_name("third run").seeds),
    "sums_seed": CANDIDATE_SUMS,
    "max_attempts": 3,
    "jobs": 2,
    "kill_waits": True,
}


# The ``recipe`` study: TUNED_ACT, and the same with one piece taken out (or changed
# back to the first recipe) at a time.
TUNED_RULE = TUNED_ACT.model.halting
RECIPE_VARIANTS = {
    "the recipe": TUNED_ACT,
    "no floor": TUNED_ACT.but(floor=False),
    "no halting noise": TUNED_ACT.but(halting=replace(TUNED_RULE, noise=0.0)),
    "with the round signal": TUNED_ACT.but(round_signal=True),
    "no injection": TUNED_ACT.but(inject=False),
    "no position signal": TUNED_ACT.but(position="none"),
    "random sums only": TUNED_ACT.but(chain_share=0.0),
    "tau = 0.01": TUNED_ACT.but(halting=replace(TUNED_RULE, ponder_weight=0.01)),
}
WAITING_VARIANTS = ["the recipe", "with the round signal", "no halting noise"]


# The ``length`` study's base: the first recipe with tau = 0.1, a quarter of long
# chains and no early stop
LENGTH = FIRST_ACT.but(
    halting=ActHalting(ponder_weight=0.1), chain_share=0.25, stop_at_exact=None
)


# name -> (function, keyword arguments); tests/test_studies.py runs each one tiny and
# checks that the committed CSV has the columns the function writes.
ACT_STUDIES = {
    "tau": (
        tau_sweep,
        {"taus": [0.001, 0.01, 0.1], "seeds": [0, 1, 2], "stop_at_exact": None},
    ),
    "warmup": (
        act_runs,
        {
            "variants": {
                "full weight from step 1": FIRST_ACT.but(aux_warmup=0),
                f"ramped over {ACT_RAMP_STEPS} steps": FIRST_ACT,
            },
            "seeds": [0, 1, 2, 3, 4],
            "n_sums": 2000,
        },
    ),
    "positions": (
        act_runs,
        {
            "variants": {
                "sinusoid (positions 0-8)": FIRST_ACT,
                "no position signal": FIRST_ACT.but(position="none"),
                "sinusoid, random shift 0-16": FIRST_ACT.but(position_offsets=16),
                "relative attention bias": FIRST_ACT.but(position="relative"),
            },
            "seeds": [0, 1, 2],
            "widths": (8, 12, 16, 24),
            "max_steps": 24,
        },
    ),
    "length": (
        act_runs,
        {
            "variants": {
                f"{'injection' if inject else 'no injection'}, {name}": LENGTH.but(
                    inject=inject, position=position
                )
                for inject in (False, True)
                for name, position in (
                    ("sinusoid", "sinusoid"),
                    ("no position signal", "none"),
                    ("relative attention bias", "relative"),
                )
            },
            "seeds": [0, 1, 2],
            "widths": (8, 16, 32, 64),
            "max_steps": twice_width_plus_one,
            "n_sums": 500,
            "long_chains": 200,
        },
    ),
    "recipe": (
        act_runs,
        {
            "variants": RECIPE_VARIANTS,
            "seeds": [0, 1, 2],
            "widths": (8, 16, 32, 64),
            "max_steps": twice_width_plus_one,
            "n_sums": 500,
            "long_chains": 200,
            "extra_columns": ("halted before the carry",),
        },
    ),
    "seeds": (
        seed_runs,
        BOOK_SEEDS | {"recipes": ("BOOK_ACT", "TUNED_ACT"), "hardest": True},
    ),
    "seeds_every": (
        seed_runs,
        BOOK_SEEDS | {"recipes": ("BOOK_ACT",)} | EVERY_SUM,
    ),
    "third_run_rows": (seed_runs, THIRD_RUN | ROWS_ONLY),
    "third_run_every": (seed_runs, THIRD_RUN | EVERY_SUM),
    "give_up": (first_run_checks, GIVE_UP),
    "pairs": (
        pair_runs,
        {
            "seeds": list(by_name("pairs as sets").seeds),
            "sums_seed": CANDIDATE_SUMS,
            "n_sums": 100,
            "long_chains": 50,
            "jobs": 2,
        },
    ),
    "hundred": (seed_runs, HUNDRED),
    "wide": (seed_runs, WIDE),
    "hundred_wide": (seed_runs, WIDE | {"seeds": HUNDRED["seeds"]}),
    "waiting": (
        waiting_runs,
        {
            "variants": {name: RECIPE_VARIANTS[name] for name in WAITING_VARIANTS},
            "seeds": [0, 1, 2],
            "widths": (8, 32),
            "n_sums": 300,
        },
    ),
}


# Studies that can also run on a GPU (``--device cuda``): Chapter 6's procedure only,
# written to ``act_NAME_cuda.csv``.
ON_A_GPU = {"seeds": {"recipes": ("BOOK_ACT",), "jobs": 4}}


def run_study(name: str, **overrides) -> pd.DataFrame:
    """Run one study on the CPU with its settings (``overrides`` replace or add)."""
    function, settings = ACT_STUDIES[name]
    return function(**({"device": "cpu"} | settings | overrides))


# long enough to leave out of make studies' all (about 45 minutes on two cores each)
NOT_BY_DEFAULT = ("hundred", "hundred_wide")


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
