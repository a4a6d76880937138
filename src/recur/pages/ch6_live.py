"""Chapter 6's glued values from the page's own training run: one function per point
of the page where the run gives them, each returning ``{glue key: value}``. The values
from the settings and the study tables are in :mod:`recur.pages.ch6_act_ut`."""

from __future__ import annotations

import pandas as pd

from recur.chapters.ch6_measures import KILL_WAITS, ponder_summary, share_waiting
from recur.core.bars import HARDEST_PAST
from recur.core.seeds import PAGE_HELD_SUMS
from recur.core.tasks import AdditionBatch, long_chain_batch
from recur.pages.glue import prefixed
from recur.studies.seed_study import act_verdict
from recur.views.text import fit_words, margin_words, percent_text

FAR = 5  # a wait of at least five rounds: more than half the trained width
FAR_CHAINS_SEED = PAGE_HELD_SUMS  # the long chains set beside the held-out random sums
UNSEEN = "64 bits, long chains (never seen)"  # the fit the page reads, of two


def training_values(book) -> dict:
    """From :func:`~recur.chapters.ch6_act_ut.train_book_act`'s result: its seconds,
    the kept checkpoint's share of held-out pairs right (and in words), what the check
    said."""
    return {
        "act_seconds": book.seconds,
        "act_exact": book.kept.heldout,
        "act_exact_words": "every held-out pair"
        if book.kept.heldout == 1
        else (f"{percent_text(book.kept.heldout)} of the held-out pairs"),
        "act_check_words": book.words(),
    }


def ponder_values(fit: tuple) -> dict:
    """From :func:`~recur.chapters.ch6_measures.ponder_vs_distance`'s (table, slope,
    intercept) on the held-out sums: the fitted line, :func:`ponder_summary`, and
    words for both (``local_fit``, ``local_margin``)."""
    table, slope, intercept = fit
    summary = ponder_summary(table)
    values = prefixed("local", {"slope": slope, "intercept": intercept} | summary)
    values["local_fit"] = fit_words(slope, intercept)
    return values | {"local_margin": margin_words(summary["margin_max"])}


def far_values(held: AdditionBatch) -> dict:
    """The share of all positions of the held-out random sums ``held`` that wait at
    least :data:`FAR` rounds, beside as many long-chain sums of the same width."""
    n_bits = held.n_positions - 1  # the top position is the overflow
    chains = long_chain_batch(len(held), n_bits, seed=FAR_CHAINS_SEED)
    far = {"random": share_waiting(held, FAR), "chains": share_waiting(chains, FAR)}
    return prefixed("far", far | {"sums": len(held), "at": FAR})


def held_values(longest: dict, right: dict) -> dict:
    """The longest wait of the long chains, by width (``longest_``), and the share of
    sums right, by rounds held back (``held_``)."""
    held = {delay: float(share) for delay, share in right.items()}
    return prefixed("longest", longest) | prefixed("held", held)


def ring_values(ring: dict) -> dict:
    """The largest halting sum in a ring, by rounds (``ring_8``, ...)."""
    return prefixed("ring", ring)


def live_values(longer: pd.DataFrame, unseen: dict) -> dict:
    """From the page's model tested on wider sums (an ``act_length_table`` with long
    chains and waits): per width its shares right (``live_64_exact``, ``_chains``,
    ``_waits``); its steps against distance on unseen long chains (``live64_``); and
    what the bar says of it (``live_ok``, ``live_words``, ``live_claim``)."""
    values = {}
    for bits, row in longer.iterrows():
        shares = {"exact": row["exact"], "chains": row["exact, long chains"]}
        values |= prefixed(f"live_{bits}", shares | {"waits": row[KILL_WAITS]})
    table, slope, _ = unseen[UNSEEN]
    values |= prefixed("live64", {"slope": slope} | ponder_summary(table))
    return values | prefixed("live", act_verdict(longer))


def live_hard_values(hard: pd.DataFrame) -> dict:
    """Words for the page's model on the hardest sums (a ``hardest_summary``)."""
    return {"live_hard_words": hardest_words(hard, HARDEST_PAST)}


def first_values(first: pd.DataFrame, n_sums: int) -> dict:
    """The first recipe's model on ``n_sums`` fresh sums of 8 and 16 bits (an
    ``act_length_table`` with long chains): its shares right (``first_``)."""
    shares = {"n": n_sums, "8": first.loc[8, "exact"], "16": first.loc[16, "exact"]}
    shares["chains_16"] = first.loc[16, "exact, long chains"]
    return prefixed("first", shares)


def hardest_words(summary: pd.DataFrame, on_time: int, up_to: int = 64) -> str:
    """What a page may say of one model from :func:`hardest_summary`, at the widths up
    to ``up_to``: on time (every hardest sum right, no position more than
    ``on_time`` rounds past its carry) at all of them, or where it was not: the sums it
    got wrong, then the rounds it ran past the carry, width by width."""
    within = summary.loc[[b for b in summary.index if b <= up_to]]
    wrong = within[within["right"] < within["of"]]
    late = within[within["most rounds past the carry"] > on_time]
    if wrong.empty and late.empty:
        span = f"{within.index.min()} to {within.index.max()} bits"
        return f"was on time at each width from {span}"
    parts = [
        f"got {r['right']} of {r['of']} right at {b} bits" for b, r in wrong.iterrows()
    ]
    for b, r in late.iterrows():
        past = r["most rounds past the carry"]
        parts.append(
            f"ran {past} round{'' if past == 1 else 's'} past the carry at {b} bits"
        )
    return "; ".join(parts)
