"""Chapter 7's figures: solver iterations, training memory, states that settle, ACT
against PonderNet, and the cost of attention. Each draws a table that a library
function measured; nothing here computes a result."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from recur.views.palette import PALETTE
from recur.views.style import finish, variant_colors, with_colors

MB = 2**20
SOLVER_NAMES = {"iteration": "plain iteration", "anderson": "Anderson acceleration"}


def plot_iterations_by_chain(table: pd.DataFrame, cap: int) -> plt.Figure:
    """Forward-solver iterations of the DEQ cell against the longest carry chain, one
    line per solver, beside the rounds the exact rule needs (the chain) and the cap."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for color, (method, rows) in with_colors(table.groupby("method")):
        ax.plot(
            rows["longest chain"],
            rows["iterations"],
            "o-",
            color=color,
            label=SOLVER_NAMES.get(method, method),
        )
    chains = np.sort(table["longest chain"].unique())
    ax.plot(chains, chains, "s--", color="#888", label="rounds the exact rule needs")
    ax.axhline(cap, color="k", ls=":", lw=1, label=f"the solver's cap ({cap})")
    ax.set_xlabel("longest carry chain of the sums")
    ax.set_ylabel("solver iterations (applications of F)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(frameon=False, fontsize=9, loc="upper left", bbox_to_anchor=(0, 0.93))
    ax.grid(alpha=0.3)
    return finish(fig)


def plot_training_memory(table: pd.DataFrame) -> plt.Figure:
    """Bytes kept for backward against rounds (unrolled) or solver iterations (DEQ)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for color, (method, rows) in with_colors(table.groupby("method")):
        ax.plot(rows["rounds"], rows["bytes"] / MB, "o-", color=color, label=method)
    ax.set_xlabel("rounds unrolled, or solver iterations")
    ax.set_ylabel("memory kept for backward (MiB)")
    ax.set_ylim(bottom=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return finish(fig)


def plot_state_changes(
    curves: dict[str, np.ndarray], floor: float = 1e-7
) -> plt.Figure:
    """|s_{r+1} - s_r| / |s_r| by round, one line per model, on a log axis (values
    below ``floor`` are drawn at the floor, which is marked)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for color, (name, values) in zip(
        variant_colors(len(curves)), curves.items(), strict=True
    ):
        rounds = np.arange(1, len(values) + 1)
        ax.semilogy(
            rounds, np.maximum(values, floor), "o-", ms=3, color=color, label=name
        )
    ax.axhline(floor, color="#888", ls=":", lw=1, label=f"{floor:g} or less")
    ax.set_xlabel("round r")
    ax.set_ylabel(r"$|s_{r+1} - s_r| \,/\, |s_r|$")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return finish(fig)


def _mean_and_band(ax, rows: pd.DataFrame, color: str, label: str) -> None:
    """Mean steps against the carry distance over the seeds of ``rows`` (a line), in
    a band from the least to the most seed."""
    by_d = rows.groupby("carry distance")["mean steps"]  # one value per seed
    mean = by_d.mean()
    ax.fill_between(
        mean.index, by_d.min().values, by_d.max().values, color=color, alpha=0.2, lw=0
    )
    ax.plot(mean.index, mean.values, "o-", ms=3, color=color, label=label)


def plot_halting_rules(distance: pd.DataFrame) -> plt.Figure:
    """Mean steps per position against the carry distance into it, ACT beside
    PonderNet: the mean over seeds as a line, the band from the least to the most seed,
    and steps = d (the fewest a local window of one can use)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for color, (method, rows) in with_colors(distance.groupby("method")):
        _mean_and_band(
            ax, rows, color, f"{method} (mean of {rows['seed'].nunique()} seeds)"
        )
    d = np.sort(distance["carry distance"].unique())
    ax.plot(d, d, "--", color="#888", label="steps = d")
    n_bits = int(distance["bits"].iloc[0])  # the study's width
    ax.set_xlabel(f"carry distance d into the position ({n_bits}-bit long-chain sums)")
    ax.set_ylabel("rounds run at that position")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return finish(fig)


def plot_attention_costs(table: pd.DataFrame) -> plt.Figure:
    """Seconds (top) and memory kept for backward (bottom) of one UT round against
    the length n, one line per kind of attention, on log-log axes; one panel above the
    other, so that each keeps the column's width on a phone."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 6.4))
    for color, (name, rows) in with_colors(table.groupby("attention", sort=False)):
        top.loglog(rows["n"], rows["seconds"] * 1e3, "o-", color=color, label=name)
        bottom.loglog(rows["n"], rows["bytes"] / MB, "o-", color=color, label=name)
    for ax, label in (
        (top, "milliseconds per round"),
        (bottom, "memory kept for backward (MiB)"),
    ):
        ax.set_xlabel("positions n (log scale)")
        ax.set_ylabel(label)
        ax.set_xticks(
            sorted(table["n"].unique()),
            [str(n) for n in sorted(table["n"].unique())],
            fontsize=9,
        )
        ax.minorticks_off()
        ax.grid(alpha=0.3)
    top.legend(frameon=False, fontsize=9)
    return finish(fig)


def plot_rounds_bought(distance: pd.DataFrame) -> plt.Figure:
    """What deciding how many rounds to run buys, on the long-chain sums of
    :func:`plot_halting_rules`: the rounds the carry needs at each carry distance d
    (d, the rule of Chapter 1), the rounds Chapter 2's cell runs everywhere (n + 1),
    and the rounds ACT's Transformer ran (mean over seeds, band least to most)."""
    n_bits = int(distance["bits"].iloc[0])  # the study's width
    act_rows = distance[distance["method"] == "ACT"]
    d = np.sort(distance["carry distance"].unique())
    cell_color, act_color = PALETTE[1], PALETTE[0]
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.plot(
        d,
        np.full(len(d), n_bits + 1),
        "-",
        color=cell_color,
        label=f"Chapter 2's cell: n + 1 = {n_bits + 1} everywhere",
    )
    seeds = act_rows["seed"].nunique()
    _mean_and_band(
        ax, act_rows, act_color, f"Chapter 6's ACT Transformer ({seeds} seeds)"
    )
    # drawn last, and in black, so that it shows where the ACT line lies on it
    needs = "the carry needs d rounds (Chapter 1)"
    ax.plot(d, d, ":", color="black", linewidth=1.6, zorder=5, label=needs)
    ax.set_xlabel(f"carry distance d into the position ({n_bits}-bit long-chain sums)")
    ax.set_ylabel("rounds run at that position")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, n_bits + 5)
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    ax.grid(alpha=0.3)
    return finish(fig)
