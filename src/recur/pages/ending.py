"""The ending's glued values: what each chapter showed, from the code and from the
study tables (``book/data``), one function per table and :func:`page_values` reading
them all."""

from __future__ import annotations

from functools import partial

import pandas as pd

from recur.chapters.ch7_pondernet import seeds_that_wait
from recur.core.bars import HARDEST_PAST, WIDE_BAR
from recur.core.carry import chain_growth
from recur.core.intervals import CONFIDENCE, interval_range
from recur.core.tasks import random_batch, twice_width_plus_one
from recur.models.cell import LocalCell, n_parameters
from recur.pages.glue import plain, prefixed, read_table
from recur.pages.machines import pins_note
from recur.studies import live as lt
from recur.studies.hardest_study import hardest_by_width, hardest_counts
from recur.studies.seed_study import (
    meets_rule,
    robust_words,
    seed_counts,
    the_bar,
    waits_counts,
    wide_counts,
)
from recur.studies.skeptic_study import ROUNDS_PER_POSITION
from recur.views.text import listed

CHAIN_WIDTHS = [2**k for k in range(1, 13)]  # Chapter 1's widths, 2 to 4,096 bits
CHAIN_PAIRS = 4000  # random sums per width of Chapter 1's chain growth
UT_BITS = 64  # the width at which the ending counts an ACT model's rounds
# the live trainings of the summary table, by glue key
LIVE_KEYS = {
    "c2": lt.CHAPTER2_CELL,
    "c3": lt.CHAPTER3_INJECTED,
    "c4": lt.CHAPTER4_LOCAL_UT,
    "deq": lt.CHAPTER7_DEQ,
    "pn": lt.CHAPTER7_PONDERNET,
}


def code_values() -> dict:
    """What the ending states without a study table: the longest carry chain's growth
    per doubling of the width and its mean at 4,096 and at 64 bits (Chapter 1's rule,
    4,000 random sums per width; at 64 bits also as a share of a fixed-round model's
    65 rounds), Chapter 2's cell's parameters, the bar and its confidence."""
    growth = chain_growth(CHAIN_WIDTHS, n_pairs=CHAIN_PAIRS, seed=0)
    chain_64 = float(growth.stats.loc[UT_BITS, "mean"])  # a waiting sum's least cost
    values = {
        "end_slope": growth.slope,
        "end_chain_4096": float(growth.stats.loc[4096, "mean"]),
        "end_chain_64": chain_64,
        "end_chain_64_share": chain_64 / (UT_BITS + 1),
    }
    values["end_cell_params"] = n_parameters(LocalCell())
    values |= prefixed("bar", the_bar()) | {"end_hard_past": HARDEST_PAST}
    return values | {"end_confidence": CONFIDENCE}


def test_values() -> dict:
    """The size of each test in the results table (``end_t_``): the sums, their width
    and the rounds each model is read after, as the studies set them."""
    wide, injected = lt.WIDE_BITS, lt.CHAPTER3_INJECTED.fresh
    ponder = lt.CHAPTER7_PONDERNET.fresh
    per_position = ROUNDS_PER_POSITION["Chapter 3's injected cell"]
    values = {
        "chain_pairs": CHAIN_PAIRS,
        "wide_sums": lt.WIDE_SUMS,
        "wide_bits": wide,
        "wide_rounds": lt.CHAPTER2_CELL.wide_rounds(wide),
        "inj_sums": injected.n_sums,
        "inj_bits": injected.n_bits,
        "inj_rounds": injected.rounds,
        "inj_wide_rounds": per_position * (wide + 1),
        "cap": twice_width_plus_one(wide),
        "eight_sums": lt.EIGHT_BIT_SUMS,
        "pn_sums": ponder.n_sums,
        "pn_bits": ponder.n_bits,
    }
    return prefixed("end_t", values)


def ut_rounds_values(seeds: pd.DataFrame) -> dict:
    """How many rounds Chapter 6's model runs at a 64-bit position with a carry, beside
    the 65 of a fixed-round model: the mean carry distance ``d`` of such positions
    (2,000 random sums), plus the mean steps beyond the carry of the seeds
    (``act_seeds.csv``) that met the bar at 64 bits."""
    query = f"recipe == 'BOOK_ACT' and bits == {UT_BITS} and success"
    beyond = seeds.query(query)["steps beyond the carry"].mean()
    distance = random_batch(2000, UT_BITS, seed=UT_BITS).distance  # (B, n + 1)
    d = float(distance[distance >= 1].float().mean())
    rounds = d + beyond
    values = {"beyond": beyond, "d": d, "rounds": rounds}
    return prefixed("end_ut", values | {"share": rounds / (UT_BITS + 1)})


def seed_values(seeds: pd.DataFrame, every: pd.DataFrame) -> dict:
    """Chapter 6's twenty seeds (``act_seeds.csv``): the seeds that met the bar, with
    words, the rates the count does not rule out and the seeds that also add the waits
    without a carry (``end_seeds_``); the same in other rounding (``act_seeds_every``,
    ``end_every_``); and the hardest sums, with words for their count
    (``end_hard_``)."""
    counts = seed_counts(seeds, "BOOK_ACT")
    met, n = counts["met"], counts["n"]
    counts |= {"words": robust_words(met, n), "waits": waits_counts(seeds)["BOOK_ACT"]}
    values = prefixed("end_seeds", counts | {"range": interval_range(met, n)})
    other = seed_counts(every, "BOOK_ACT")  # the same training, other rounding
    other["words"] = robust_words(other["met"], other["n"])
    values |= prefixed("end_every", other)
    hard = hardest_counts(seeds)
    hard["words"] = robust_words(hard["met"], hard["n"])
    return values | prefixed("end_hard", hard)


def positions_values(positions: pd.DataFrame) -> dict:
    """The first recipe's mean share of random 24-bit sums right, with the sinusoid
    (``act_positions.csv``)."""
    first = positions.groupby(["variant", "bits"])["exact"].mean()
    return {"end_first_24": float(first["sinusoid (positions 0-8)", 24])}


def live_values(live: pd.DataFrame) -> dict:
    """The live trainings over twenty seeds (``live_seeds.csv``): each one's counts and
    the rates its count does not rule out (``end_c2_``, ..., ``end_pn_``), the words
    for those short of the bar, Chapter 4's bar, and PonderNet's seeds that learned
    but waited (``end_pn_others``)."""
    values = {}
    for key, training in LIVE_KEYS.items():
        counts = lt.live_counts(live, training)
        counts["range"] = interval_range(counts["met"], counts["n"])
        values |= prefixed(f"end_{key}", counts)
    values |= {
        "end_live_short": lt.short_of_the_bar_words(live),
        "end_c4_bar": lt.UT_EXACT,
    }
    ponder = live[live["model"] == lt.CHAPTER7_PONDERNET.name]
    waited = seeds_that_wait(ponder, lt.UT_EXACT, lt.PONDER_SLOPE)
    return values | prefixed("end_pn", waited)


def inj_values(live: pd.DataFrame) -> dict:
    """Chapter 3's injected cell's counts (``live_seeds.csv``) as the prose on it
    reads them (``end_inj_``: no ``range``)."""
    return prefixed("end_inj", lt.live_counts(live, lt.CHAPTER3_INJECTED))


def settle_values(settle: pd.DataFrame) -> dict:
    """How far ACT's and PonderNet's states still moved in the last round of the
    settling study at 8 bits (``ch7_settle.csv``), the mean over seeds."""
    at_8 = settle.query("bits == 8")
    last = at_8[at_8["round"] == at_8["round"].max()]
    by_method = last.groupby("method")["change"].mean()
    return prefixed(
        "end_settle", {"act": by_method["ACT"], "ponder": by_method["PonderNet"]}
    )


def wide_values(wide: pd.DataFrame) -> dict:
    """Chapter 6's wide study (``act_wide.csv``): the seeds at the wide bar on random
    1,024-bit sums, the seeds that met it and how wide each reached, the bar
    (``end_wide_``), and the seeds with every hardest sum right at 256 and 1,024 bits
    (``end_hard_256``, ``end_hard_1024``)."""
    at_1024 = wide[wide["bits"] == 1024]
    values = {"end_wide_1024": int((at_1024["exact"] >= WIDE_BAR["exact"]).sum())}
    values |= prefixed("end_wide", wide_counts(wide))
    values |= {
        "end_wide_bar_exact": WIDE_BAR["exact"],
        "end_wide_bar_chains": WIDE_BAR["exact, long chains"],
    }
    right = hardest_by_width(wide)["all right"]  # seeds with every one right
    return values | prefixed("end_hard", {b: int(right[b]) for b in (256, 1024)})


# the trained rows of the results table that state a claim (PonderNet's row states a
# shortcoming), by the glue prefix of their counts
CLAIM_ROWS = {
    "Chapter 2's cell on random sums": "end_c2",
    "Chapter 2's cell on the skeptic's sums": "sk_c2_1024",
    "Chapter 2's holding cell on the skeptic's sums": "sk_hold_1024",
    "Chapter 3's injected cell": "end_c3",
    "Chapter 3's injected cell on the skeptic's sums": "sk_c3_1024",
    "Chapter 4's local UT": "end_c4",
    "Chapter 6's Transformer": "end_seeds",
    "Chapter 6's Transformer on the skeptic's sums": "sk_ut_1024",
    "Chapter 7's DEQ cell": "end_deq",
    "Chapter 7's DEQ cell on the skeptic's sums": "sk_deq_1024",
}


def verdict_words(values: dict) -> str:
    """The results table's verdict, derived from its counts (``PREFIX_met`` and
    ``PREFIX_n`` of :data:`CLAIM_ROWS` in ``values``): which claims meet the book's
    rule, and how many rows are reported without being claimed."""
    held = [
        name
        for name, key in CLAIM_ROWS.items()
        if meets_rule(int(values[f"{key}_met"]), int(values[f"{key}_n"]))
    ]
    if not held:
        return "No claim of the table meets the book's rule."
    short = len(CLAIM_ROWS) - len(held)
    return (
        f"Of the table's {len(CLAIM_ROWS)} claims (its trained rows but PonderNet's, "
        f"which counts a shortcoming), {len(held)} meet the book's rule: "
        f"{listed(held)}. The other {short} are counts short of it, reported and not "
        "claimed."
    )


def rule_values(values: dict) -> dict:
    """For each claim of :data:`CLAIM_ROWS`, the holding DEQ cell's count and Chapter
    6's hardest-sum counts (twenty and a hundred seeds), whether the count meets the
    book's rule, in words (``PREFIX_rule``)."""
    keys = [*CLAIM_ROWS.values(), "sk_hdeq_1024", "end_hard", "end_hard_hundred"]
    return {
        f"{key}_rule": "meets the book's rule"
        if meets_rule(int(values[f"{key}_met"]), int(values[f"{key}_n"]))
        else "short of the book's rule"
        for key in keys
    }


def chapter3_words(live: pd.DataFrame, report: pd.DataFrame) -> str:
    """Why Chapter 3's two rows count differently, in words: of the seeds whose cell
    got every skeptic's 1,024-bit sum right (``report``), those whose training missed a
    held-out pair and those that lost a random 32-bit sum (``live``), and the seeds
    that passed the random row but missed a skeptic's sum."""
    name = lt.CHAPTER3_INJECTED.name
    runs = live[live["model"] == name].set_index("seed")
    rows = report[(report["model"] == name) & (report["n_bits"] == 1024)]
    held = rows.loc[rows["passed"] == rows["sums"], "seed"]
    reached = runs["reached 100%"].astype(bool)
    success = runs["success"].astype(bool)
    unchecked = int((~reached[held]).sum())
    lost = int((reached[held] & ~success[held]).sum())
    missed = int(success.drop(held).sum())
    both = int(success[held].sum())
    return (
        f"Chapter 3's two rows count different tests, and {both} seeds passed both. "
        f"Of the {len(held)} whose cell got every skeptic's sum right, {unchecked} "
        f"missed a held-out pair in training and {lost} lost a random 32-bit sum; "
        f"{missed} that passed the random row missed a skeptic's sum."
    )


# the skeptic's counts at 1,024 bits, by model: the table's skeptic rows and the DEQ
# row's second count, the holding DEQ cell
SKEPTIC_COUNTS = {
    name.removesuffix(" on the skeptic's sums"): key
    for name, key in CLAIM_ROWS.items()
    if key.startswith("sk_")
} | {"Chapter 7's holding DEQ cell": "sk_hdeq_1024"}


def skeptic_counts(values: dict) -> dict[str, tuple[int, int]]:
    """(seeds that passed, seeds tried) of each model of :data:`SKEPTIC_COUNTS`."""
    return {
        name: (int(values[f"{key}_met"]), int(values[f"{key}_n"]))
        for name, key in SKEPTIC_COUNTS.items()
    }


def best_count(counts: dict[str, tuple[int, int]]) -> tuple[str, tuple[int, int]]:
    """The model whose (met, n) is the largest share, the first of those tied."""
    best = max(counts, key=lambda name: counts[name][0] / counts[name][1])
    return best, counts[best]


# the claims on random sums whose test runs more rounds than training did (Chapter 4's
# local UT is tested in its trained rounds, on its trained width)
ON_RANDOM = {
    name.removesuffix(" on random sums"): key
    for name, key in CLAIM_ROWS.items()
    if not key.startswith("sk_") and name != "Chapter 4's local UT"
}


def skeptic_standing(values: dict) -> tuple[list, str, tuple[int, int]]:
    """The skeptic's counts against the book's rule: the models whose count meets it,
    and the best model with its count (:func:`best_count`)."""
    skeptic = skeptic_counts(values)
    held = [name for name, count in skeptic.items() if meets_rule(*count)]
    return held, *best_count(skeptic)


def skeptic_words(values: dict) -> str:
    """How the skeptic's counts stand against the book's rule, as a clause: the models
    whose count meets it, else the best count (:func:`skeptic_standing`)."""
    held, best, (met, n) = skeptic_standing(values)
    if held:
        return f"{listed(held)} did too"
    return f"none does yet (the most: {met} of {n} seeds, {best})"


def holding_words(values: dict) -> str:
    """The closing list's point on holding a state, derived from the skeptic's counts
    (:func:`skeptic_standing`): whether some model meets the book's rule on them, else
    the best count."""
    held, best, (met, n) = skeptic_standing(values)
    sums = "on the skeptic's sums, which make a state wait hundreds of rounds,"
    if held:
        verb = "meets" if len(held) == 1 else "meet"
        return f"Holding can be learned: {sums} {listed(held)} {verb} the book's rule."
    return (
        f"Holding is the open part: {sums} no model meets the book's rule yet; the "
        f"most is {met} of {n} seeds, {best}."
    )


def answer_words(values: dict) -> str:
    """The page's answer in one sentence, derived from the results table's counts as
    :func:`verdict_words` reads them: which claims on random sums that run more rounds
    than training did meet the book's rule, and how the skeptic's counts stand
    (:func:`skeptic_words`)."""
    on_random = [
        name
        for name, key in ON_RANDOM.items()
        if meets_rule(int(values[f"{key}_met"]), int(values[f"{key}_n"]))
    ]
    first = (
        f"More rounds computed more on random sums: {listed(on_random)} meet the "
        "book's rule (at least 19 of 20 seeds)"
        if on_random
        else "On random sums, no learned model meets the book's rule (19 of 20 seeds)"
    )
    hold = "on the skeptic's sums, which ask a state to hold for hundreds of rounds,"
    return f"{first}; {hold} {skeptic_words(values)}."


def page_values(data="data") -> dict:
    """Every value the ending glues: :func:`code_values` and each study table's, read
    from the CSV files in ``data`` (``book/data``)."""
    read = partial(read_table, data)  # read("act_seeds"): data/act_seeds.csv
    seeds, live = read("act_seeds"), read("live_seeds")
    values = code_values() | test_values() | ut_rounds_values(seeds)
    values |= seed_values(seeds, read("act_seeds_every"))
    values |= positions_values(read("act_positions"))
    values |= live_values(live) | inj_values(live) | settle_values(read("ch7_settle"))
    values |= wide_values(read("act_wide"))
    values["end_c3_two_tests"] = chapter3_words(live, read("skeptic_report"))
    values |= prefixed("end_hard_hundred", hardest_counts(read("act_hundred")))
    values["end_hundred_pins"] = pins_note(data, "act_hundred", "Those hundred seeds")
    return {key: plain(value) for key, value in values.items()}
