"""Chapter 3's glued values: from the code and the live-seed table (``book/data``,
:func:`code_values`, :func:`study_values`), and from the page's own runs, one function
per point of the page where a run gives them."""

from __future__ import annotations

import pandas as pd

from recur.chapters.ch2_shared_update import first_right_round
from recur.chapters.ch3_input_injection import seeds_that_lose
from recur.pages.glue import plain, prefixed, read_table
from recur.studies.live import (
    CHAPTER2_CELL,
    CHAPTER3_INJECTED,
    WIDE_SUMS,
    live_seed_values,
)
from recur.views.bench_view import chapter_time

FACTORS = ("1x", "4x")  # the rounds the prose reads, as multiples of n + 1
WIDEST = 32  # the widest sums of the ablation


def code_values(bench="data/bench.jsonl") -> dict:
    """The page's running time (``make bench``)."""
    return {"run_time": chapter_time("03_input_injection", bench)}


def study_values(data="data") -> dict:
    """The injected cell's live-seed study (``live_seeds.csv``, ``seeds_inj_``), and
    how often three seeds would all reach the training's target if each did so at the
    twenty's share (``seeds_inj_three_all``); and Chapter 2's cell, the same cell
    trained with a check and restarts (``seeds_inj_c2_``)."""
    seeds = live_seed_values(read_table(data, "live_seeds"), CHAPTER3_INJECTED)
    seeds["three_all"] = (seeds["reached"] / seeds["n"]) ** 3
    cell = live_seed_values(read_table(data, "live_seeds"), CHAPTER2_CELL)
    seeds |= {"c2_met": cell["met"], "c2_n": cell["n"], "c2_verdict": cell["verdict"],
              "c2_sums": WIDE_SUMS}  # fmt: skip
    return {key: plain(value) for key, value in prefixed("seeds_inj", seeds).items()}


def ablation_values(budget: dict, summary: pd.DataFrame, table: pd.DataFrame) -> dict:
    """From the page's ablation: its training budget (``abl_budget_``), each variant's
    mean share right at ``n + 1`` and ``4 (n + 1)`` rounds (``abl_True_1_8_4x``:
    injected, final-round loss, 8 bits; from ``ablation_summary``), and, from its
    table, the seeds the uninjected cell with every round in its loss lost sums on."""
    values = prefixed("abl_budget", budget)
    for (inject, window, bits), row in summary.iterrows():
        for factor in FACTORS:
            values[f"abl_{inject}_{window}_{bits}_{factor}"] = row[f"exact {factor}"]
    lost = seeds_that_lose(table, inject=False, window="all")  # seed by seed
    values["abl_kept"] = kept_words(lost)
    return {key: plain(value) for key, value in values.items()}


def example_values(example: pd.DataFrame) -> dict:
    """From the running example's table (``running_example_table``): the first round
    from which the injected cell and the uninjected one trained on every round are
    right, and the rounds the uninjected one trained on the final round got right."""
    first = first_right_round(example)
    right = int(example["no injection, final loss"].str.endswith("✓").sum())
    rounds = len(example)
    said = (
        f"after none of these {rounds} rounds"
        if right == 0
        else (f"after {right} of these {rounds} rounds")
    )
    every = example["no injection, every round"]
    return {
        "ex3_inject": first["injected, final loss"],
        "ex3_every_words": kept_or_lost(every),
        "ex3_final_right": right,
        "ex3_final_words": said,
    }


def kept_or_lost(column: pd.Series) -> str:
    """What a column of the running example's table (readouts after the rounds of its
    index, "✓" where right) says of a cell: right from some round on, right and then
    wrong again (the decay), or never right."""
    right = [r for r, text in column.items() if text.endswith("✓")]
    if not right:
        return "is never right in these rounds"
    lost = [r for r, text in column.items() if r > right[-1]]
    if not lost:
        return (
            f"is right from round {right[0]} on: a 4-bit sum is too short to show "
            "the decay that the 32-bit numbers above show"
        )
    when = " and ".join(str(r) for r in lost[:2]) + (", ..." if len(lost) > 2 else "")
    return (
        f"is right after rounds {right[0]} to {right[-1]} and wrong again after "
        f"round{'s' * (len(lost) > 1)} {when}: the decay of the 32-bit numbers "
        "above, on a 4-bit sum"
    )


def gradient_values(norms: dict) -> dict:
    """How many times smaller the uninjected cell's gradient from its last round is
    than from its first, at initialisation (``gradient_comparison``'s norms), and the
    same to two significant figures (``grad_drop_about``), as "about" states it."""
    uninjected = norms["no injection"]  # (rounds,): round 1 first
    drop = float(uninjected[0] / uninjected[-1])
    return {"grad_drop": drop, "grad_drop_about": f"{float(f'{drop:.2g}'):,.0f}"}


def kept_words(lost: dict) -> str:
    """The sentence "... the task is learned ..." from :func:`seeds_that_lose`: not
    kept when every seed lost sums at every width, kept when none did, else the
    counts."""
    n, widths = lost["n"], [k for k in lost if k != "n"]
    fewer = "right on fewer sums after 4(n + 1) rounds than after its best round"
    learned = "the task is learned at the trained width"
    if all(lost[w] == n for w in widths):
        return f"{learned} but not kept: every seed is {fewer}"
    if not any(lost[w] for w in widths):
        return f"{learned} and kept: no seed is {fewer}"
    counts = " and ".join(f"{lost[w]} of {n} seeds at {w} bits" for w in widths)
    return f"{learned}, and not always kept: {counts} are {fewer}"
