"""The ACT studies of Chapter 6, too slow for the page: train the local ACT UT for
several settings and seeds, print one JSON line per run and write the tables the
chapter reads (``book/data/act_*.csv``).

The first recipe (``FIRST_ACT``: sinusoid, no injection, tau = 0.01):

- ``tau``: the time penalty, 3 values x 3 seeds, 1,500 steps each so that every
  penalty acts for 1,000 steps after the warm-up (373 s, about 6 minutes, measured
  on a 2-core machine; the one place the book states it);
- ``warmup``: the ponder cost at full weight from the start vs. ramped up over the
  first 500 steps, 5 seeds (about 3 minutes);
- ``positions``: the sinusoidal position signal, none, randomly shifted while
  training, or a learned relative attention bias instead, 3 seeds, tested on 8 to 24
  bits (about 7 minutes);
- ``length``: input injection off/on x the three position signals, tau = 0.1, a
  quarter of each batch with long carry chains, 1,500 steps, 3 seeds, tested on 8 to
  64 bits with the cap at 2 (n + 1), on random sums and on sums whose chains span
  most of the width (about 12 minutes).

Chapter 6's recipe of issue 10 (``TUNED_ACT``):

- ``recipe``: the recipe and seven variants that each take one piece out, 3 seeds,
  800 steps each, tested like ``length`` (about 14 minutes);
- ``seeds`` (issue 16): Chapter 6's model (``BOOK_ACT`` with ``train_book_act``'s
  check and restart) against the recipe of issue 10 (``TUNED_ACT``), 20 seeds each,
  tested on 300 random and 100 long-chain sums of 8 to 64 bits drawn with seeds no
  recipe was chosen on (9,000,000 + width), cap 2 (n + 1): exact match, positions
  halted before their carry, steps beyond the carry, exact match on as many long
  waits that end with no carry (``kill_waits``), training seconds, runs and
  ``act_succeeded`` (about 30 minutes on 2 cores with ``--jobs 2`` before the
  thirteenth round's cheaper steps, 7 minutes in it); with
  ``--device cuda``, ``BOOK_ACT`` alone on the GPU, written to ``act_seeds_cuda.csv``.
  Earlier versions of ``train_book_act`` wrote ``act_seeds_no_kills.csv`` (before
  ``chain_kill_share``), ``act_seeds_no_delay.csv`` (before the check held carries
  back) and ``act_seeds_no_ring.csv`` (before the check ran propagating pairs as a
  ring);
- ``seeds_every`` (issue 16, thirteenth round): ``BOOK_ACT`` as in ``seeds``, but each
  training step runs the shared block on every sum, also those whose positions have
  all halted (the model option ``train_rows_only=False``, the book's model before its
  thirteenth round): the same procedure in exact arithmetic with the same pauses, in
  other rounding, as a run on another machine would be. Written to
  ``act_seeds_every.csv`` (8 minutes with ``--jobs 2`` in the thirteenth round). The
  twelfth round's ``seeds`` table, when the book's model stepped every sum and
  ``train_book_act`` ran two runs at most, is kept as ``act_seeds_two_runs.csv``, and
  its twin of that round (``seeds_rows``: the same stepping only the running sums) as
  ``act_seeds_two_runs_rows.csv``;
- ``third_run_rows`` and ``third_run_every`` (issue 16, twelfth round; not read by
  the book): how the thirteenth round's ``train_book_act`` was chosen, a third run when
  the first two pass no check (``max_attempts=3``), stepping the running sums only or
  every sum, on seeds 900-919 with test sums 8,000,000 + width (both used for nothing
  else), so that the choice is made on neither the book's seeds nor its test sums
  (about 15 minutes each with ``--jobs 2``). The committed tables were written by a
  scratch script making the same ``seed_runs`` calls, before the studies had their
  names here: 20 of 20 met the bar in each (median 21.8 s and 26.8 s, slowest 97.5 s
  and 110.1 s, two jobs on 2 cores);
- ``give_up`` (issue 16, eleventh round): every check of the first run of
  ``train_book_act`` for seeds 860-899 (used for nothing else), each run training all
  its steps unless a check passes (``max_attempts=1``), written to
  ``act_give_up.csv`` (about 10 minutes with ``--jobs 2``); ``give_up_every``, the
  same stepping every sum, to ``act_give_up_every.csv`` (about 14 minutes).
  ``GIVE_UP_STEP`` was chosen on ``act_give_up_every.csv`` when the book stepped every
  sum (that file was written from these runs by a script of the same calls, before the
  study had its name here; seed 897's rows were computed again through this study and
  came out equal); ``act_give_up.csv`` was measured in the twelfth round as
  ``give_up_rows`` to check that it still fits with ``train_rows_only``;
- ``wide`` (issue 16's moonshot): Chapter 6's model (``BOOK_ACT``), seeds 0-19, as in
  ``seeds``, tested on 200 random sums of 8 and of 128 to 1,024 bits and on 100
  long-chain sums up to 256 bits (the moonshot's bar needs them there; cap 2 (n + 1));
  ``moonshot_counts`` reads it (about 95 minutes with one job beside other work; 90
  minutes with ``--jobs 2`` beside another study and a book build, before measuring
  and training stepped only the running sums; 14 minutes with ``--jobs 2`` beside a
  test run and a book build in the thirteenth round). The committed ``act_wide.csv``
  was measured for the current ``train_book_act``; ``act_wide_two_runs.csv`` for the
  twelfth round's (at 293d8eb: two runs at most, every sum stepped in training);
  ``act_wide_no_kills.csv`` before ``BOOK_ACT`` had ``chain_kill_share``;
- ``waiting``: the halting probabilities of positions still waiting for their carry,
  round by round, on long-chain 8- and 32-bit sums, for the recipe, the recipe with
  the round signal and the recipe without halting noise, 3 seeds (about 5 minutes).

The times of ``warmup``, ``positions``, ``length``, ``recipe`` and ``waiting`` were
measured on a 2-core machine, one torch thread per study, two studies at a time.

Run: ``make studies`` (all thirteen, about four hours on 2 cores), or
``.venv/bin/python benchmarks/act_studies.py [name ...]``. Torch runs
with the library's thread choice (:func:`recur.device.auto_threads`).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pandas as pd

from recur.seed_study import WIDE_WIDTHS, first_run_checks, seed_runs
from recur.seeds import CANDIDATE_SUMS, by_name
from recur.ut_experiments import (
    BOOK_ACT,
    TUNED_ACT,
    act_runs,
    tau_sweep,
    twice_width_plus_one,
    waiting_runs,
)

DATA = Path(__file__).resolve().parents[1] / "book" / "data"


# Chapter 6's model trained stepping only the sums with a running position (its
# default since issue 16's thirteenth round), or every sum (before: other rounding)
ROWS_ONLY = BOOK_ACT["model_options"] | {"train_rows_only": True}
EVERY_SUM = BOOK_ACT["model_options"] | {"train_rows_only": False}

# The seeds study's seeds and tests; the give_up study's first runs (seeds 860-899)
BOOK_SEEDS = {
    "seeds": list(by_name("twenty seeds").seeds),
    "jobs": 2,
    "kill_waits": True,  # and long waits that end in a kill
}
GIVE_UP = {"seeds": tuple(by_name("give-up step").seeds), "jobs": 2}

# A candidate for the next version of train_book_act, for choosing only: a third run
# when the first two pass no check, on seeds 900-919 and test sums 8,000,000 + width,
# used for nothing else
THIRD_RUN = {
    "recipes": ("BOOK_ACT",),
    "seeds": list(by_name("third run").seeds),
    "sums_seed": CANDIDATE_SUMS,
    "max_attempts": 3,
    "jobs": 2,
    "kill_waits": True,
}


# The ``recipe`` study (issue 10): Chapter 6's model, and the same with one piece
# taken out (or changed back to the first recipe) at a time.
RECIPE = copy.deepcopy(
    {
        k: v
        for k, v in TUNED_ACT.items()
        if k not in ("window", "act", "n_rounds", "n_steps")
    }
)  # the budget, TUNED_ACT's 800 steps, is a study setting (below); a copy, so that
# changing a study's options cannot change the library's recipe


def _without(**changes) -> dict:
    """The recipe with ``changes``; ``model_options`` are merged, not replaced."""
    options = RECIPE["model_options"] | changes.pop("model_options", {})
    return RECIPE | changes | {"model_options": options}


RECIPE_VARIANTS = {
    "the recipe": RECIPE,
    "no floor": _without(model_options={"floor": False}),
    "no halting noise": _without(model_options={"halt_noise": 0.0}),
    "with the round signal": _without(model_options={"round_signal": True}),
    "no injection": _without(model_options={"inject": False}),
    "no position signal": _without(model_options={"position": "none"}),
    "random sums only": _without(chain_share=0.0),
    "tau = 0.01": _without(ponder_weight=0.01),
}
WAITING_VARIANTS = ["the recipe", "with the round signal", "no halting noise"]


# name -> (function, keyword arguments); tests/test_studies.py runs each one tiny and
# checks that the committed CSV has the columns the function writes.
STUDIES = {
    "tau": (
        tau_sweep,
        {"taus": [0.001, 0.01, 0.1], "seeds": [0, 1, 2], "stop_at_exact": None},
    ),  # 373 s on 2 cores, measured at this commit
    "warmup": (
        act_runs,
        {
            "variants": {
                "full weight from step 1": {"aux_warmup": 0},
                "ramped over 500 steps": {},
            },
            "seeds": [0, 1, 2, 3, 4],
            "n_sums": 2000,
        },
    ),
    "positions": (
        act_runs,
        {
            "variants": {
                "sinusoid (positions 0-8)": {},
                "no position signal": {"model_options": {"position": "none"}},
                "sinusoid, random shift 0-16": {
                    "model_options": {"position_offsets": 16}
                },
                "relative attention bias": {"model_options": {"position": "relative"}},
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
                f"{'injection' if inject else 'no injection'}, {name}": {
                    "model_options": {"inject": inject, "position": position}
                }
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
            "ponder_weight": 0.1,
            "chain_share": 0.25,
            "stop_at_exact": None,
        },
    ),
    "recipe": (
        act_runs,
        {
            "variants": RECIPE_VARIANTS,
            "n_steps": TUNED_ACT["n_steps"],
            "seeds": [0, 1, 2],
            "widths": (8, 16, 32, 64),
            "max_steps": twice_width_plus_one,
            "n_sums": 500,
            "long_chains": 200,
            "extra_columns": ("halted before the carry",),
        },
    ),
    "seeds": (seed_runs, BOOK_SEEDS | {"recipes": ("BOOK_ACT", "TUNED_ACT")}),
    "seeds_every": (
        seed_runs,
        BOOK_SEEDS | {"recipes": ("BOOK_ACT",), "model_options": EVERY_SUM},
    ),
    "third_run_rows": (seed_runs, THIRD_RUN | {"model_options": ROWS_ONLY}),
    "third_run_every": (seed_runs, THIRD_RUN | {"model_options": EVERY_SUM}),
    "give_up": (first_run_checks, GIVE_UP),
    "give_up_every": (first_run_checks, GIVE_UP | {"model_options": EVERY_SUM}),
    "wide": (
        seed_runs,
        {
            "recipes": ("BOOK_ACT",),
            "seeds": list(by_name("twenty seeds").seeds),
            "widths": WIDE_WIDTHS,
            "n_sums": 200,
            "long_chains": 100,
            "long_chains_up_to": 256,
            "jobs": 2,
        },
    ),  # fmt: skip
    "waiting": (
        waiting_runs,
        {
            "variants": {name: RECIPE_VARIANTS[name] for name in WAITING_VARIANTS},
            "n_steps": TUNED_ACT["n_steps"],
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
    function, settings = STUDIES[name]
    return function(**({"device": "cpu"} | settings | overrides))


if __name__ == "__main__":
    jobs = {}
    if "--jobs" in sys.argv:  # processes for the seeds study (one torch thread each)
        at = sys.argv.index("--jobs")
        jobs = {"jobs": int(sys.argv[at + 1])}
        del sys.argv[at : at + 2]
    device = {}
    if "--device" in sys.argv:  # e.g. cuda: only the studies in ON_A_GPU
        at = sys.argv.index("--device")
        device = {"device": sys.argv[at + 1]}
        del sys.argv[at : at + 2]
    for name in sys.argv[1:] or list(STUDIES):
        settings = ON_A_GPU[name] | device if device else {}
        settings |= jobs if "jobs" in STUDIES[name][1] else {}
        table = run_study(name, **settings)
        for row in table.to_dict("records"):
            print(json.dumps({"study": name} | row), flush=True)
        suffix = f"_{device['device']}" if device else ""
        out = DATA / f"act_{name}{suffix}.csv"
        table.to_csv(out, index=False)
        print(f"wrote book/data/{out.name}", flush=True)
