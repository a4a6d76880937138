"""Chapter 2's glued values: from the code and the study tables (``book/data``,
:func:`code_values`, :func:`study_values`), and from the page's own runs, one function
per point of the page where a run gives them."""

from __future__ import annotations

import inspect
from functools import partial

import pandas as pd

from recur.chapters.ch2_shared_update import (
    ChainExperiment,
    chain_seed_words,
    train_cell,
    train_holding_cell,
)
from recur.chapters.ch2_skeptic import drift_words, fade_words, guess_words
from recur.core.carry import chain_growth
from recur.core.intervals import interval_text
from recur.models.cell import LocalCell, n_parameters
from recur.pages.glue import plain, prefixed, read_table
from recur.pages.skeptic import apart_words
from recur.studies.live import (
    CHAPTER2_CELL,
    WIDE_BITS,
    WIDE_SUMS,
    live_seed_values,
    page_counts,
)
from recur.studies.seed_study import robust_words
from recur.studies.skeptic_study import all_passed
from recur.training.checked import STAY_ROUNDS
from recur.views.bench_view import chapter_time
from recur.views.explorers import MAX_BITS, PAGE_MAX_BITS
from recur.views.text import share_words

WIDEST = 1024  # the widest sums the page runs the cell on
STAYS = ("every one stays right", "{} stay right")  # share_words: all, or a share
ENDS = ("every sum of every chain length is", "{} of the sums of each are")


def code_values(bench="data/bench.jsonl") -> dict:
    """What the page states from the code: its running time (``make bench``), the
    cell's parameters, the rounds its check runs the held-out pairs through, the most
    runs its procedure makes (``train_cell``'s ``max_attempts``), the mean longest
    chain of random 1,024-bit sums (as Chapter 1 measures it) and the explorer's
    limits (in the browser, in Jupyter)."""
    attempts = inspect.signature(train_cell).parameters["max_attempts"].default
    widths = [2**k for k in range(1, 11)]  # Chapter 1's widths up to 1,024, its sums
    wide = chain_growth(widths, n_pairs=4000, seed=0).stats.loc[WIDE_BITS, "mean"]
    return {
        "cell_attempts": attempts,
        "chain_wide_mean": f"{wide:.0f}",
        "run_time": chapter_time("02_shared_update", bench),
        "n_params": n_parameters(LocalCell()),
        "stay_rounds": STAY_ROUNDS,
        "try_bits": PAGE_MAX_BITS["cell"],
        "try_bits_kernel": MAX_BITS // 2,
    }


def study_values(data="data") -> dict:
    """The cell's live-seed study (``live_seeds.csv``, ``seeds_``), the same with one
    run per seed stopped at the first 100% (``live_seeds_first_100.csv``, ``first_``)
    the seeds trained in the browser (``browser_cell_seeds.csv``, ``page_train_``)
    and twenty more that no choice was made on (``browser_cell_seeds_new.csv``,
    ``page_new_``, with the interval of its count and whether those that added the
    wide sums meet the book's rule), and the holding recipe trained in
    the page (``browser_cell_holding.csv``, ``page_hold_``)."""
    read = partial(read_table, data)  # read("live_seeds"): data/live_seeds.csv
    seeds = live_seed_values(read("live_seeds"), CHAPTER2_CELL) | {"sums": WIDE_SUMS}
    first = live_seed_values(read("live_seeds_first_100"), CHAPTER2_CELL)
    values = prefixed("seeds", seeds) | prefixed("first", first)
    # of the cells that reached every held-out pair, those that added every wide sum:
    # stopped there (first_) against stopped by the whole check (seeds_)
    values["first_apart"] = apart_words(
        (first["reached"] - first["short"], first["reached"]),
        (seeds["reached"] - seeds["short"], seeds["reached"]),
    )
    values |= prefixed("page_train", page_counts(read("browser_cell_seeds")))
    fresh = page_counts(read("browser_cell_seeds_new"))
    fresh["interval"] = interval_text(fresh["passed"], fresh["n"])
    fresh["wide_words"] = robust_words(fresh["wide"], fresh["n"])
    values |= prefixed("page_new", fresh)
    held = holding_page_counts(read("browser_cell_holding"))
    # beside the library's holding cells on the same sums
    library = all_passed(read("skeptic_report"), "holding cell", 1024)
    held["apart"] = apart_words((held["held"], held["n"]), library)
    values |= prefixed("page_hold", held)
    return {key: plain(value) for key, value in values.items()}


def holding_page_counts(runs: pd.DataFrame) -> dict:
    """The holding recipe trained in the page (``browser_cell_holding.csv``, one row
    per seed): seeds, seeds that passed the check, seeds whose cell then passed every
    skeptic's 1,024-bit sum (with the interval), and the median and longest seconds of
    a seed's whole training."""
    passed = runs["passed"].astype(bool)
    held = passed & (runs["skeptic passed"] == runs["skeptic sums"])
    n, met = len(runs), int(held.sum())
    return {"n": n, "passed": int(passed.sum()), "held": met,
            "interval": interval_text(met, n),
            "median": float(runs["seconds"].median()),
            "longest": float(runs["seconds"].max())}  # fmt: skip


def fade_values(seed: int, walks: dict, read_round: int, holding_run) -> dict:
    """What the page's walks (:func:`recur.chapters.ch2_skeptic.fade_walks`, keyed
    "sum, model") show, in words, and what its holding cell's training did."""
    sums = {"nocarry": "1 + 111…10", "carry": "all ones + 1"}
    models = {"c2": "Chapter 2's cell", "hold": "holding cell"}
    values = {"fade_seed": seed, "hold_words": holding_run.words()}
    values["hold_attempts"] = (
        inspect.signature(train_holding_cell).parameters["max_attempts"].default
    )
    for key, name in sums.items():
        for who, model in models.items():
            values[f"fade_{who}_{key}"] = fade_words(
                walks[f"{name}, {model}"], read_round
            )
    for who, model in models.items():
        walk = {key: walks[f"{name}, {model}"] for key, name in sums.items()}
        values[f"fade_{who}_guess"] = guess_words(walk["nocarry"], walk["carry"])
    values["fade_drift_words"] = drift_words(
        [walks[f"{name}, {models['c2']}"] for name in sums.values()]
    )
    return values


def training_values(checked_run) -> dict:
    """What the page's training (``train_cell``'s result) did, in words."""
    return {"train_words": checked_run.words()}


def example_values(first: dict) -> dict:
    """The first round from which the rule and the learned cell are right on the
    running example (``first_right_round``'s dict)."""
    return {"ex_rule": first["exact rule"], "ex_cell": first["learned cell"]}


def by_round_values(by_round: pd.DataFrame, n_sums: int) -> dict:
    """From ``accuracy_by_round`` on ``n_sums`` random 8-bit sums: the learned cell's
    share right after round 9, the last it trained with, and after round 18."""
    return {
        "by_round_sums": n_sums,
        "exact_round_9": float(by_round.loc[9, "learned"]),
        "exact_round_18": float(by_round.loc[18, "learned"]),
    }


def generalization_values(generalization: pd.DataFrame) -> dict:
    """From ``length_table``: the share of 1,024-bit sums right after width + 1
    rounds, and of 16-bit sums after a quarter of that."""
    return {
        "exact_1024": float(generalization.loc[WIDEST, "exact: width + 1"]),
        "quarter_16": float(generalization.loc[16, "exact: a quarter"]),
    }


def chain_values(runs: list[ChainExperiment], max_rounds: int) -> dict:
    """From the chain experiment's cells (seed 0 first): the least share of the sums
    once right that stay right, and of the sums right after the last round, in words
    (``words_stays``, ``words_end``), the rounds run, and each cell beside the rule."""
    stays = min(float(run.stays_right.min()) for run in runs)
    end = min(float(run.right_at_end.min()) for run in runs)
    words = {"stays": share_words(stays, *STAYS), "end": share_words(end, *ENDS)}
    seeds = [chain_seed_words(run, f"Seed {k}") for k, run in enumerate(runs)]
    return prefixed("words", words) | {
        "chain_rounds": max_rounds,
        "chain_words": " ".join(seeds),
    }
