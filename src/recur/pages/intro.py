"""The introduction's glued values: the book's headline counts from the study tables
(``book/data``) and the sizes it states from the code."""

from __future__ import annotations

from functools import partial

from recur.core.bars import HARDEST_PAST, SUCCESS
from recur.models.cell import LocalCell
from recur.pages.glue import plain, prefixed, read_table
from recur.studies.hardest_study import hardest_counts
from recur.studies.live import CHAPTER2_CELL, WIDE_BITS, live_counts
from recur.studies.seed_study import SEED_WIDTHS, meets_rule, seed_counts
from recur.training.config import TrainConfig
from recur.views.text import WORDS_PER_MINUTE


def code_values() -> dict:
    """What the introduction states from the code: Chapter 2's cell's parameters, the
    widest training sum, the widest sums of the live tests and the rounds they run,
    how many times the trained width Chapter 6 tests and the shares its bar asks, the
    rounds past its carry that a position may halt on the hardest sums, and the reading
    speed."""
    trained = TrainConfig().max_bits  # the widest training sum of every chapter
    return prefixed("intro", {
        "cell_params": sum(p.numel() for p in LocalCell().parameters()),
        "trained": trained, "wide": WIDE_BITS, "wide_rounds": WIDE_BITS + 1,
        "act_wider": SEED_WIDTHS[-1] // trained,  # Chapter 6's widest test
        "words_per_minute": WORDS_PER_MINUTE,
        "hard_past": HARDEST_PAST,  # "on time": rounds past the carry allowed
        "bar_exact": SUCCESS["exact"], "bar_chains": SUCCESS["exact, long chains"],
    })  # fmt: skip


def study_values(data="data") -> dict:
    """The seeds that met each headline result: Chapter 2's cell (``live_seeds.csv``),
    Chapter 6's procedure and, of it, those on time on the hardest sums
    (``act_seeds.csv``; of the hundred further seeds, ``act_hundred.csv``)."""
    read = partial(read_table, data)  # read("act_seeds"): data/act_seeds.csv
    cell = live_counts(read("live_seeds"), CHAPTER2_CELL)
    seeds = read("act_seeds")
    act, hard = seed_counts(seeds, "BOOK_ACT"), hardest_counts(seeds)
    values = {"cell_met": cell["met"], "cell_n": cell["n"], "act_met": act["met"],
              "act_n": act["n"], "hard_met": hard["met"],
              "hard_n": hard["n"]}  # fmt: skip
    hundred = hardest_counts(read("act_hundred"))
    values |= {"hard_hundred_met": hundred["met"], "hard_hundred_n": hundred["n"]}
    values |= hardest_words(hard["met"], hard["n"])
    return {key: plain(value) for key, value in prefixed("intro", values).items()}


def hardest_words(met: int, n: int) -> dict:
    """The sentence on Chapter 6's hardest sums, for "Where it works" when ``met`` of
    ``n`` seeds meets the book's rule (``hard_works``), else for "Where it breaks"
    (``hard_breaks``); the other is empty."""
    sums = (
        "On Chapter 6's hardest sums of each width up to 64 bits, such as 11…1 + 1, "
        "the Transformer is right and on time (no position halting more than "
        f"{HARDEST_PAST} round after its carry could be known) for"
    )
    if meets_rule(met, n):
        return {"hard_works": f"{sums} {met} of {n} seeds.", "hard_breaks": ""}
    return {"hard_works": "", "hard_breaks": f"{sums} only {met} of {n} seeds."}
