"""Chapter 4's glued values: from the code and the live-seed table (``book/data``,
:func:`code_values`, :func:`study_values`), and from the page's own runs, one function
per point of the page where a run gives them."""

from __future__ import annotations

import pandas as pd

from recur.chapters.ch2_shared_update import first_right_round
from recur.models.cell import LocalCell
from recur.pages.glue import plain, prefixed, read_table
from recur.studies.live import CHAPTER4_LOCAL_UT, UT_EXACT, live_counts
from recur.studies.seed_study import robust_words
from recur.training.ut_recipe import FULL_UT, LOCAL_UT, UT_SIZE
from recur.views.bench_view import chapter_time
from recur.views.text import listed, percent_text

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
    8-bit sums it is asked for and whether its count meets the book's rule
    (``seeds_ut_``); and the same seeds trained in one run without a restart
    (``live_seeds_first_100.csv``, ``seeds_ut_one_``)."""
    counts = live_counts(read_table(data, "live_seeds"), CHAPTER4_LOCAL_UT)
    counts |= {"bar": UT_EXACT, "verdict": robust_words(counts["met"], counts["n"])}
    one = live_counts(read_table(data, "live_seeds_first_100"), CHAPTER4_LOCAL_UT)
    counts |= {"one_met": one["met"], "one_n": one["n"]}
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


def wider_values(wider: pd.DataFrame, trained_bits: int = 8) -> dict:
    """From the page's ``exact_by_width`` table of the local UT (random sums, n + 1
    rounds): the share right at each width past the trained one (``wide4_``) and words
    that follow from them (``wide4_words``)."""
    past = wider.loc[wider.index > trained_bits, "exact"]
    if past.empty:
        raise ValueError(f"no width past the trained {trained_bits} bits")
    shares = " and ".join(
        f"{percent_text(x)} of the {n}-bit sums" for n, x in past.items()
    )
    if past.min() >= UT_EXACT:
        words = f"It adds wider sums too: it is right on {shares}."
    else:
        words = (
            "Past the width it was trained on, n + 1 rounds, enough for any carry, do "
            f"not make it right: it is right on {shares}."
        )
    return {"wide4_words": words} | {f"wide4_{n}": x for n, x in past.items()}


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


SAME = 1e-6  # two shares of the same sums closer than this are the same count


def curve_words(model: pd.Series, rule: pd.Series, last: int) -> str:
    """Where a local model's exact match after each round lies against the exact
    rule's in rounds 1 .. ``last`` (both indexed by round), for the sentence "The local
    UT ...": above it after some round, on it in every round, or below it and then on
    it from some round (or never) through ``last``."""
    model, rule = model.loc[1:last], rule.loc[1:last]
    above = model.index[(model > rule + SAME).to_numpy()]
    if len(above):
        r = above[0]
        return (
            f"is above the rule's curve after round {r} ({percent_text(model[r])} "
            f"against {percent_text(rule[r])}): it guessed carries that had not yet "
            "arrived, and these sums rewarded the guesses"
        )
    gap = rule - model  # (rounds,): how far below the rule, >= 0
    below = gap.index[(gap > SAME).to_numpy()]
    if not len(below):
        return (
            f"is on the rule's curve in every round from 1 to {last}: it passes the "
            "carry one position per round, as the rule does"
        )
    worst = gap.idxmax()
    lag = f"{100 * gap[worst]:.1f} percentage points (after round {worst})"
    if below[-1] == last:
        return (
            f"stays below the rule's curve through round {last}, by up to {lag}: it "
            "passes the carry more slowly than the rule"
        )
    return (
        f"is below the rule's curve through round {below[-1]}, by up to {lag}, and on "
        f"it from round {below[-1] + 1} to round {last}: it learned to pass the carry "
        "one position per round"
    )


def example_words(first: dict, local: str, full: str, rule: str = "exact rule") -> str:
    """Two sentences on the running example from the first rounds of
    :func:`recur.chapters.ch2_shared_update.first_right_round` (``None``: wrong at the
    last listed round) of the ``local`` and ``full`` models and of the ``rule``, which
    is right from the round that the sum's longest carry chain needs."""
    needed = first[rule]
    return (
        f"{_local_example(first[local], needed)} {_full_example(first[full], needed)}"
    )


def _local_example(k: int | None, needed: int) -> str:
    if k is None:
        return "The local UT is still wrong on this sum after the last listed round."
    if k > needed:
        return f"The local UT is right only from round {k} of those listed: later."
    if k == needed:
        return (
            f"The local UT is right from round {k}, like the rule: its carry walks one "
            "place per round too."
        )
    return (
        f"The local UT is right from round {k}, before the rule: before round "
        f"{needed} the position that the longest carry must reach has not seen the "
        "bit where it starts, so its answer there is a guess that a carry is coming. "
        "This sum rewards the guess; the same propagating bits above a kill would "
        "not."
    )


def _full_example(k: int | None, needed: int) -> str:
    if k is None:
        return "The full-attention UT is still wrong on it after the last listed round."
    if k >= needed:
        return (
            f"The full-attention UT is right from round {k}: reading all the bits "
            "below at once did not make it faster than the rule on this sum."
        )
    return (
        f"The full-attention UT is right from round {k}, before a carry walking one "
        "place per round could arrive: it reads all the bits below at once, and this "
        "sum is one it gets right."
    )


def full_words(full: pd.Series, rule: pd.Series, bar: float, trained: int) -> dict:
    """Words for the full-attention UT's exact match after each round (``full``)
    against the rule's (``rule``): whether it beats the rule after rounds 1 to 3
    (``shows`` and ``early``); whether it reaches ``bar`` after any round (``exact``,
    with its share after round ``trained``, the last its loss read, and after the last
    round, and its best round when more rounds cost it sums; ``reach``, with where it
    ended if it fell back)."""
    beats = [r for r in EARLY_ROUNDS if full[r] > rule[r] + SAME]  # rounds ahead
    ahead = len(beats) == len(EARLY_ROUNDS)
    reached = full.index[(full >= bar).to_numpy()]
    last = full.index[-1]
    if len(reached):
        exact = f"It reaches {bar:.0%} of the sums after round {reached[0]}"
    else:
        exact = (
            f"{'But fast is not exact: it' if ahead else 'It'} does not reach "
            f"{bar:.0%} of the sums after any of the {last} rounds"
        )
    exact += (
        f" ({percent_text(full[trained])} after round {trained}, the last it was "
        f"trained on, and {percent_text(full[last])} after round {last})"
    )
    best = full.idxmax()
    if full[last] < full[best] - SAME:
        exact += (
            f"; its best is {percent_text(full[best])}, after round {best}: more "
            "rounds cost it sums"
        )
    return {
        "shows": _shows_words(beats),
        "early": _early_words(beats),
        "exact": exact,
        "reach": _reach_words(full, bar, reached),
    }


EARLY_ROUNDS = (1, 2, 3)  # where a window of one still limits the rule


def _rounds_text(rounds: list[int]) -> str:
    """ "round 2", "rounds 1 and 2", "rounds 1, 2 and 3"."""
    return ("round " if len(rounds) == 1 else "rounds ") + listed(
        list(map(str, rounds))
    )


def _shows_words(beats: list[int]) -> str:
    """Whether this run shows full attention ahead of the rule, after which of rounds
    1 to 3 (``beats``)."""
    if not beats:
        return "though this run does not show it"
    if len(beats) == len(EARLY_ROUNDS):
        return "and here it shows"
    return f"and here it shows after {_rounds_text(beats)}"


def _early_words(beats: list[int]) -> str:
    """How the full-attention UT compared with the rule after rounds 1 to 3."""
    if not beats:
        return "was right on no more sums than the rule after rounds 1 to 3"
    words = f"was right on more sums than the rule after {_rounds_text(beats)}"
    others = [r for r in EARLY_ROUNDS if r not in beats]
    return words + (f", and on no more after {_rounds_text(others)}" if others else "")


def _reach_words(full: pd.Series, bar: float, reached: pd.Index) -> str:
    """Whether ``full`` reached ``bar`` after some round, and where it ended if it
    fell below ``bar`` again by its last round."""
    if not len(reached):
        return f"did not reach {bar:.0%} of the sums after any round"
    words = f"reached {bar:.0%} of the sums after round {reached[0]}"
    last = full.index[-1]
    if full[last] < bar:
        words += f", then fell to {percent_text(full[last])} by round {last}"
    return words
