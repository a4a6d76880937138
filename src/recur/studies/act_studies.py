"""Chapter 6's studies that train too many models for a page, one :class:`Study`
record each (run by ``benchmarks/act_studies.py``; the methods appendix lists them).

The plain sum of Chapters 4 and 5 (``FIRST_ACT``): ``tau``, ``warmup``, ``positions``,
``length``. A simpler procedure than the chapter's (``TUNED_ACT``): ``recipe`` and
``waiting``. The chapter's procedure (``train_book_act``): ``give_up``, ``third_run_*``,
``pairs``, ``seeds``, ``seeds_every``, ``wide``, ``hundred``, ``hundred_wide``.
"""

from __future__ import annotations

from dataclasses import replace

from recur.core.seeds import CANDIDATE_SUMS, by_name
from recur.core.tasks import twice_width_plus_one
from recur.models.act import ACT_RAMP_STEPS
from recur.models.halting import ActHalting
from recur.studies.give_up_study import first_run_checks
from recur.studies.hardest_study import pair_runs
from recur.studies.seed_study import WIDE_WIDTHS, seed_runs
from recur.studies.study import Study
from recur.studies.sweeps import act_runs, tau_sweep, waiting_runs
from recur.training.ut_recipe import BOOK_ACT, FIRST_ACT, TUNED_ACT

ACT_SCRIPT = ".venv/bin/python benchmarks/act_studies.py"
ACT = f"{ACT_SCRIPT} --jobs 2"  # the studies whose settings name their workers


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


# The ``length`` study: the first recipe with tau = 0.1, a quarter of long chains and
# no early stop, input injection off or on, three position signals
LENGTH = FIRST_ACT.but(
    halting=ActHalting(ponder_weight=0.1), chain_share=0.25, stop_at_exact=None
)
LENGTH_VARIANTS = {
    f"{'injection' if inject else 'no injection'}, {name}": LENGTH.but(
        inject=inject, position=position
    )
    for inject in (False, True)
    for name, position in (
        ("sinusoid", "sinusoid"),
        ("no position signal", "none"),
        ("relative attention bias", "relative"),
    )
}


# The ``positions`` study: four position signals on the first recipe
POSITIONS = {
    "sinusoid (positions 0-8)": FIRST_ACT,
    "no position signal": FIRST_ACT.but(position="none"),
    "sinusoid, random shift 0-16": FIRST_ACT.but(position_offsets=16),
    "relative attention bias": FIRST_ACT.but(position="relative"),
}


def _act_study(name, measures, seeds, runs, settings, **more) -> Study:
    """A study of this module: its command runs it by name, with ``--jobs 2`` where
    its settings take workers."""
    command = f"{ACT if 'jobs' in settings else ACT_SCRIPT} {name}"
    return Study(name, f"act_{name}.csv", measures, command, seeds, runs=runs,
                 settings=settings, **more)  # fmt: skip


# In the methods appendix's order; tests/test_studies.py runs each one tiny and checks
# that the committed CSV has the columns it writes.
ACT_STUDIES = {s.name: s for s in (
    _act_study("tau", "the time penalty: accuracy and steps", "first recipe",
               tau_sweep, {"taus": [0.001, 0.01, 0.1], "seeds": [0, 1, 2],
                           "stop_at_exact": None}),
    _act_study("warmup", "the ponder cost ramped in or not", "first recipe", act_runs,
               {"variants": {"full weight from step 1": FIRST_ACT.but(aux_warmup=0),
                             f"ramped over {ACT_RAMP_STEPS} steps": FIRST_ACT},
                "seeds": [0, 1, 2, 3, 4], "n_sums": 2000}),
    _act_study("positions", "four position signals, 8 to 24 bits", "first recipe",
               act_runs, {"variants": POSITIONS, "seeds": [0, 1, 2],
                          "widths": (8, 12, 16, 24), "max_steps": 24}),
    _act_study("length", "injection and position signals, 8 to 64 bits",
               "first recipe", act_runs,
               {"variants": LENGTH_VARIANTS, "seeds": [0, 1, 2],
                "widths": (8, 16, 32, 64), "max_steps": twice_width_plus_one,
                "n_sums": 500, "long_chains": 200}),
    _act_study("recipe", "a simpler procedure, one piece out at a time",
               "recipe pieces", act_runs,
               {"variants": RECIPE_VARIANTS, "seeds": [0, 1, 2],
                "widths": (8, 16, 32, 64), "max_steps": twice_width_plus_one,
                "n_sums": 500, "long_chains": 200,
                "extra_columns": ("halted before the carry",)}),
    _act_study("waiting", "halting probabilities while a position waits",
               "recipe pieces", waiting_runs,
               {"variants": {n: RECIPE_VARIANTS[n] for n in WAITING_VARIANTS},
                "seeds": [0, 1, 2], "widths": (8, 32), "n_sums": 300}),
    _act_study("give_up", "every check of first runs: the give-up step",
               "give-up step", first_run_checks, GIVE_UP),
    _act_study("third_run_rows", "a third run, unhalted sums only", "third run",
               seed_runs, THIRD_RUN | ROWS_ONLY),
    _act_study("third_run_every", "a third run, every sum", "third run", seed_runs,
               THIRD_RUN | EVERY_SUM),
    _act_study("pairs",
               "each pair read as a set or not: the hardest sums of 8 to 64 bits",
               "pairs as sets", pair_runs,
               {"seeds": list(by_name("pairs as sets").seeds),
                "sums_seed": CANDIDATE_SUMS, "n_sums": 100, "long_chains": 50,
                "jobs": 2}, setting="pairs as sets"),
    _act_study("seeds", "Chapter 6's procedure and the simpler one, twenty seeds each",
               "twenty seeds", seed_runs,
               BOOK_SEEDS | {"recipes": ("BOOK_ACT", "TUNED_ACT"), "hardest": True}),
    _act_study("seeds_every", "the same, other rounding", "twenty seeds", seed_runs,
               BOOK_SEEDS | {"recipes": ("BOOK_ACT",)} | EVERY_SUM),
    _act_study("wide", "twenty seeds again, tested up to 1,024 bits", "twenty seeds",
               seed_runs, WIDE),
    _act_study("hundred", "Chapter 6's procedure alone, a hundred seeds",
               "hundred seeds", seed_runs, HUNDRED),
    _act_study("hundred_wide", "the same, tested up to 1,024 bits", "hundred seeds",
               seed_runs, WIDE | {"seeds": HUNDRED["seeds"]}),
)}  # fmt: skip


# Studies that can also run on a GPU (``--device cuda``): Chapter 6's procedure only,
# written to ``act_NAME_cuda.csv``.
ON_A_GPU = {"seeds": {"recipes": ("BOOK_ACT",), "jobs": 4}}


# long enough to leave out of make studies' all (about 45 minutes on two cores each)
NOT_BY_DEFAULT = ("hundred", "hundred_wide")
