"""Chapter 4's glued values: from the code and the live-seed table (``book/data``,
:func:`code_values`, :func:`study_values`), and from the page's own runs, one function
per point of the page where a run gives them."""

from __future__ import annotations

import pandas as pd

from recur.chapters.ch2_shared_update import first_right_round
from recur.chapters.ch4_universal_transformer import (
    curve_words,
    example_words,
    full_words,
)
from recur.models.cell import LocalCell
from recur.pages.glue import plain, prefixed, read_table
from recur.studies.live import CHAPTER4_LOCAL_UT, UT_EXACT, live_counts
from recur.studies.seed_study import robust_words
from recur.training.ut_recipe import FULL_UT, LOCAL_UT, UT_SIZE
from recur.views.bench_view import chapter_time

SHARED = ("n_rounds", "lr")  # the settings the prose says the two UTs share
FULL, LOCAL, RULE = "UT, full attention", "UT, local window 1", "exact rule (local)"
PAST = 12  # the round past the trained ones that the page reads


def code_values(bench="data/bench.jsonl") -> dict:
    """What the page states from the code: its running time (``make bench``), the
    UTs' size and the settings both share (``ut_set_``; an error if they differ),
    and each one's most training steps (``steps_``)."""
    for name in SHARED:
        if getattr(LOCAL_UT, name) != getattr(FULL_UT, name):
            raise ValueError(f"the two UTs differ in {name}, which the page shares")
    sizes = {"d": UT_SIZE["d_model"], "heads": UT_SIZE["n_heads"]}
    values = prefixed(
        "ut_set", sizes | {"rounds": LOCAL_UT.n_rounds, "lr": LOCAL_UT.lr}
    )
    values |= prefixed("steps", {"full": FULL_UT.n_steps, "local": LOCAL_UT.n_steps})
    return values | {"run_time": chapter_time("04_universal_transformer", bench)}


def study_values(data="data") -> dict:
    """The local UT's live-seed study (``live_seeds.csv``): its counts, the share of
    8-bit sums it is asked for and whether its count meets the book's bar
    (``seeds_ut_``)."""
    counts = live_counts(read_table(data, "live_seeds"), CHAPTER4_LOCAL_UT)
    counts |= {"bar": UT_EXACT, "verdict": robust_words(counts["met"], counts["n"])}
    return {key: plain(value) for key, value in prefixed("seeds_ut", counts).items()}


def rounds_values(table: pd.DataFrame) -> dict:
    """From the page's ``rounds_table`` (with the rule's column): the full-attention
    UT's and the rule's share right after rounds 2 and 3 and words for the full UT
    (``ut_full_``, ``ut_rule_``); the local UT's best round, its share there and after
    round 12, words for its curve against the rule's and for round 12 against round 9
    (``ut_local_``)."""
    full, rule, local = table[FULL], table[RULE], table[LOCAL]
    trained = LOCAL_UT.n_rounds
    values = prefixed(
        "ut_full",
        {"r2": full[2], "r3": full[3]} | full_words(full, rule, UT_EXACT, trained),
    )
    values |= prefixed("ut_rule", {"r2": rule[2], "r3": rule[3]})
    values |= prefixed(
        "ut_local",
        {
            "first_best": local.idxmax(),
            "best": local.max(),
            "r12": local[PAST],
            "curve": curve_words(local, rule, trained),
        },
    )
    return values | {"ut_local_drift": drift_words(local[PAST] >= local[trained])}


def drift_words(held: bool) -> str:
    """Whether the local UT did no worse after round 12 than after round 9, the last
    its loss read, as a sentence."""
    if held:
        return (
            "The local UT does no worse after round 12 than after round 9, the last "
            "round its loss looked at."
        )
    return (
        "The local UT's answers drift after round 9, the last round its loss looked at."
    )


def training_values(local_ut) -> dict:
    """What the page's local UT training (a ``CheckedRun``) did, in words."""
    return {"ut_local_words": local_ut.words()}


def example_values(example: pd.DataFrame, names: dict) -> dict:
    """Words for the two UTs on the running example (``running_example_table`` of
    the models called ``names``, the local one first), from the first round each is
    right."""
    first = first_right_round(example)
    return {"ex4_words": example_words(first, *names)}


def params_values(params: dict, local) -> dict:
    """The sidebar's parameter counts of a shared layer and of 12 separate ones
    (``count_parameters``'s dict, ``sharing_``), and the page's local UT's parameters
    beside Chapter 2's cell's (``params_``, Exercise 2)."""
    layers = {"one": params["one layer"], "twelve": params["12 separate layers"]}
    small = {
        "ut": sum(p.numel() for p in local.parameters()),
        "cell": sum(p.numel() for p in LocalCell().parameters()),
    }
    small["ratio"] = small["ut"] / small["cell"]
    return prefixed("sharing", layers) | prefixed("params", small)
