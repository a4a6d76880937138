"""The methods appendix's glued values: the bars, tests and seeds the studies use, from
the code (:func:`code_values`), and the counts of its study tables (``book/data``,
:func:`study_values`)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from recur.chapters.ch6_check import without_each_part
from recur.chapters.ch7_pondernet import ponder_settings
from recur.core import seeds
from recur.core.bars import HARDEST_PAST
from recur.core.intervals import CONFIDENCE, interval_range, interval_text, wilson
from recur.pages import ending
from recur.pages.ch6_act_ut import PARTS
from recur.pages.glue import plain, prefixed, read_table
from recur.pages.skeptic import skeptic_values
from recur.studies import live
from recur.studies import methods as studies
from recur.studies.methods import shared_choosing_seeds
from recur.studies.seed_study import (
    ROBUST,
    SEED_WIDTHS,
    meets_rule,
    seed_counts,
    the_bar,
)
from recur.training.checked import STAY_ROUNDS
from recur.training.config import TrainConfig, attempt_seeds
from recur.training.ut_recipe import LOCAL_UT
from recur.views.bench_view import chapter_range, read_bench
from recur.views.text import WORDS_PER_MINUTE

# the live trainings with a fixed test of their own, by glue key
FRESH = {"c3": live.CHAPTER3_INJECTED, "c4": live.CHAPTER4_LOCAL_UT,
         "pn": live.CHAPTER7_PONDERNET}  # fmt: skip


def robust_values() -> dict:
    """The book's rule for a result (:data:`ROBUST`), the rates its counts do not rule
    out, and how often a procedure that meets it could still fail every seed
    (``robust_fail``, ``robust_one_in``)."""
    needed, out_of = ROBUST
    lowest_rate = wilson(out_of, out_of)[0]  # the interval's lower end for k = n
    return prefixed("robust", {
        "needed": needed, "out_of": out_of,
        "all": interval_range(out_of, out_of),
        "needed_interval": interval_range(needed, out_of),
        "one_in": round(1 / (1 - lowest_rate)), "fail": 1 - lowest_rate,
        "confidence": CONFIDENCE,
    })  # fmt: skip


def fixed_test_values() -> dict:
    """The tests of the live trainings (``live_``, ``rounds_pn``, ``test_c3_``, ...)
    and of Chapter 6's seeds (``act_``, ``act_hard_past``)."""
    values = prefixed("live", {"wide_sums": live.WIDE_SUMS,
                               "wide_bits": live.WIDE_BITS, "exact": live.UT_EXACT,
                               "slope": live.PONDER_SLOPE,
                               "eight_sums": live.EIGHT_BIT_SUMS})  # fmt: skip
    values["rounds_pn"] = live.CHAPTER7_PONDERNET.trained_rounds
    for key, training in FRESH.items():
        fresh = training.fresh  # its fixed test
        test = {"sums": fresh.n_sums, "bits": fresh.n_bits, "rounds": fresh.rounds}
        values |= prefixed(f"test_{key}", test)
    widest = SEED_WIDTHS[-1]
    widths = ", ".join(map(str, SEED_WIDTHS[:-1])) + f" and {widest}"
    wider = widest // TrainConfig().max_bits  # the widest test, in trained widths
    values |= prefixed("act", {"widths": widths, "widest": widest, "wider": wider})
    return values | {"act_hard_past": HARDEST_PAST}


def code_values() -> dict:
    """Every value of the appendix that the code sets: :func:`robust_values`,
    :func:`fixed_test_values`, the bar, the one-run study's recipe, PonderNet's
    settings, the seeds a choosing and a reporting study share, the restarts' seed
    offsets, the rounds Chapter 2's check runs and the reading speed."""
    values = robust_values() | fixed_test_values() | prefixed("bar", the_bar())
    recipe = {"steps": LOCAL_UT.n_steps, "rounds": LOCAL_UT.n_rounds}
    values |= prefixed("one_ut_recipe", recipe | {"single": live.FIRST_100_UT_STEPS})
    values |= prefixed("pn", ponder_settings())
    both = studies.choose_report_overlap()
    values |= prefixed("overlap", {"low": both[0], "high": both[-1], "n": len(both)})
    restarts = attempt_seeds(0, 3)[1:]  # what the second and third run add to a seed
    values |= prefixed("restart", {"second": restarts[0], "third": restarts[1]})
    values["choosing_shared"] = shared_choosing_words()
    values["cell_stay_rounds"] = STAY_ROUNDS
    return values | {"reading_per_minute": WORDS_PER_MINUTE}


def one_run_values(one_run: pd.DataFrame) -> dict:
    """Chapter 4's local UT in the one-run study (``live_seeds_first_100.csv``)."""
    counts = live.live_counts(one_run, live.CHAPTER4_LOCAL_UT)
    return prefixed("one_ut", counts | {"bar": live.UT_EXACT})


def part_values(give_up: pd.DataFrame) -> dict:
    """Per part of Chapter 6's check, from the first runs' checks
    (``act_give_up.csv``): the runs whose stop it changes and of them those that
    would pass without it (``m6_part_held_changed``, ``m6_part_held_pass``), and the
    runs."""
    parts = without_each_part(give_up)
    values = {}
    for key, part in PARTS.items():
        values |= prefixed(f"m6_part_{key}", {
            "changed": int(parts.loc[part, "changed"]),
            "pass": int(parts.loc[part, "would pass"]),
        })  # fmt: skip
    return values | {"m6_part_runs": int(parts["runs"].iloc[0])}


def rounding_values(data) -> dict:
    """The seeds studied in two roundings (``data``'s tables): a sentence per pair of
    tables, what to expect under other rounding (``rounding_``)."""
    counts = studies.rounding_counts(Path(data))  # reporting seeds, then choosing
    values = {k: studies.rounding_sentence(c) for k, c in enumerate(counts)}
    values["expect"] = studies.rounding_expectation(counts)
    return prefixed("rounding", values)


def hundred_values(hundred: pd.DataFrame) -> dict:
    """Chapter 6's procedure on a hundred seeds (``act_hundred.csv``): how many met its
    bar, of how many, and the rates that count does not rule out (``hundred_``)."""
    counts = seed_counts(hundred, "BOOK_ACT")
    met, n = counts["met"], counts["n"]
    return prefixed("hundred", {"met": met, "n": n, "interval": interval_text(met, n)})


def other_cpu_values(here: pd.DataFrame, there: pd.DataFrame) -> dict:
    """The live trainings' study as it last ran without the pins
    (``unpinned/live_seeds.csv``) beside its rerun without them on a CPU of another
    kind (``other_cpu/live_seeds.csv``): the rows that changed, of how many, and
    :func:`~recur.studies.methods.cpu_words` (``cpu_``)."""
    changes = studies.cpu_changes(here, there)
    words = studies.cpu_words(changes, lead="On that CPU")
    return prefixed("cpu", {"changed": changes["changed"], "n": changes["n"],
                            "words": words})  # fmt: skip


# each bar's count on the ending's table, by its glue prefix there
BAR_COUNTS = {
    "c2": "end_c2",
    "deq": "end_deq",
    "c3": "end_c3",
    "c4": "end_c4",
    "pn": "end_pn",
    "act": "end_seeds",
}


def bar_words(met: int, n: int, verb: str = "passed") -> str:
    """A bar's count and its verdict under the book's rule, as words: "20 of 20 seeds
    passed, which meets the rule" or "14 of 20 seeds passed, short of the rule"."""
    verdict = "which meets the rule" if meets_rule(met, n) else "short of the rule"
    return f"{met} of {n} seeds {verb}, {verdict}"


def bar_values(data="data") -> dict:
    """Each bar's count and verdict as the ending's table counts it (``met_``;
    PonderNet's counts the seeds that show its shortcoming), Chapter 6's models on
    time on the hardest sums (``met_hard``), and the skeptic's claims at 1,024 bits:
    how many meet the rule, of how many, and the best count (``met_skeptic_words``)."""
    counts = ending.page_values(data) | skeptic_values(data)
    values = {
        key: bar_words(
            counts[f"{at}_met"],
            counts[f"{at}_n"],
            "showed it" if key == "pn" else "passed",
        )
        for key, at in BAR_COUNTS.items()
    }
    values["hard"] = bar_words(
        counts["end_hard_met"], counts["end_hard_n"], "were on time"
    )
    skeptic = ending.skeptic_counts(counts)
    held = sum(meets_rule(*c) for c in skeptic.values())
    _, (met, n) = ending.best_count(skeptic)
    verb = "meets" if held == 1 else "meet"
    values["skeptic_words"] = (
        f"{held} of the {len(skeptic)} procedures the ending's table counts on them "
        f"{verb} the rule at 1,024 bits (the most: {met} of {n} seeds)"
    )
    return prefixed("met", values)


def study_values(data="data") -> dict:
    """Every value of the appendix that its study tables in ``data`` give, and the
    fastest and slowest chapter (``bench.jsonl``, ``time_``)."""
    read = partial(read_table, data)  # read("act_give_up"): data/act_give_up.csv
    values = one_run_values(read("live_seeds_first_100"))
    values |= hundred_values(read("act_hundred"))
    unpinned = read("unpinned/live_seeds")
    values |= other_cpu_values(unpinned, read("other_cpu/live_seeds"))
    # the pinned rerun, the table the chapters read, against that unpinned run
    pinned = studies.cpu_words(
        studies.cpu_changes(unpinned, read("live_seeds")), lead="In the pinned rerun"
    )
    values["pinned_cpu_words"] = pinned
    values |= part_values(read("act_give_up")) | rounding_values(data)
    values |= bar_values(data)
    _, bench = read_bench(Path(data) / "bench.jsonl")
    values |= prefixed("time", chapter_range(bench))
    return {key: plain(value) for key, value in values.items()}


def shared_choosing_words(entries=seeds.REGISTRY) -> str:
    """:func:`shared_choosing_seeds` as words: "first recipe and recipe pieces (seeds
    0 to 2)", joined by semicolons; "" when no two share seeds."""
    return "; ".join(
        f"{one} and {other} (seeds {low} to {high})"
        for one, other, low, high in shared_choosing_seeds(entries)
    )
