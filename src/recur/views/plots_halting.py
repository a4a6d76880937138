"""Chapters 5 and 6's figures of halting and pondering: ACT's halting sum and its
player, steps per position against the carry distance, the time penalty and the halting
units of positions that wait."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.animation import FuncAnimation
from matplotlib.ticker import MaxNLocator

from recur.models.act import ACT_EPS, halting_weights
from recur.views.palette import COLORS, MARKERS
from recur.views.style import (
    dodge,
    finish,
    legend_below,
    player_html,
    variant_colors,
    with_colors,
)
from recur.views.text import fit_words


def draw_halting(
    h: np.ndarray, eps: float, ax: plt.Axes, top: float = 0.0, vary: int | None = None
) -> None:
    """Halting probabilities h_r (bars), their running sum, the threshold 1 - eps, and
    the ACT weights p_r; N and R in the title, led by h_{vary} when a player varies
    it. The y axis reaches at least ``top`` and always the whole running sum."""
    import torch

    halt = halting_weights(torch.as_tensor(h, dtype=torch.float64), eps)
    steps = np.arange(1, len(h) + 1)
    ax.clear()
    ax.bar(
        steps - 0.2,
        h,
        width=0.4,
        color=COLORS["halting"],
        edgecolor="#555",
        label="h_r (halting probability)",
    )
    ax.bar(
        steps + 0.2,
        halt.weights.numpy(),
        width=0.4,
        color=COLORS["weight"],
        label="p_r (ACT weight)",
    )
    ax.plot(steps, np.cumsum(h), "k.-", lw=1, label="h_1 + ... + h_r")
    ax.axhline(1 - eps, color="k", ls="--", lw=1, label=f"1 − ε = {1 - eps:g}")
    n_steps, rem = int(halt.n_steps), float(halt.remainder)
    ax.axvspan(n_steps - 0.5, n_steps + 0.5, color="#eee", zorder=0)
    ax.set_xticks(steps)
    ax.set_xlabel("round r")
    ax.set_ylim(0, max(1.6, top, float(np.cumsum(h).max()) + 0.1))
    lead = "" if vary is None else f"h_{vary} = {h[vary - 1]:.2g}:  "
    ax.set_title(
        f"{lead}N = {n_steps},  R = {rem:.2f},  ponder N + R = {n_steps + rem:.2f}",
        fontsize=10,
        loc="left",
    )
    ax.legend(frameon=False, fontsize=9, loc="upper left")


def plot_halting(h, eps: float = ACT_EPS) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    draw_halting(np.asarray(h, dtype=float), eps, ax)
    return finish(fig)


def halting_player(h, step: int, values, eps: float = ACT_EPS, alt: str = ""):
    """A scrubbable player: h_{step} takes each of ``values`` in turn, the rest stay."""
    h = np.array(h, dtype=float)  # a copy: the caller's array is left alone
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    rest = h.sum() - h[step - 1]
    top = rest + max(values) + 0.1  # one y axis for every frame, the largest sum in

    def frame(k):
        h[step - 1] = values[k]
        draw_halting(h, eps, ax, top, vary=step)

    frame(0)
    fig.tight_layout()
    anim = FuncAnimation(fig, frame, frames=len(values), interval=700)
    plt.close(fig)
    return player_html(anim, alt or f"ACT halting as h_{step} varies")


def plot_ponder_map(
    steps: np.ndarray, distance: np.ndarray, n_show: int = 12
) -> plt.Figure:
    """ACT steps per position (top) above the carry distance into it (bottom), for the
    same sums; bit 0 on the right as in Chapter 1. One above the other, so that each
    keeps the column's width and its numbers stay readable on a phone."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 7.6), sharex=True)
    panels = [
        (top, steps[:n_show], "ACT steps per position", "Oranges"),
        (bottom, distance[:n_show], "carry distance into the position", "Blues"),
    ]
    for ax, data, title, cmap in panels:
        image = ax.imshow(data[:, ::-1], cmap=cmap, aspect="auto")
        for (row, col), value in np.ndenumerate(data[:, ::-1]):
            ax.text(col, row, f"{value:.0f}", ha="center", va="center", fontsize=9)
        n = data.shape[1]
        ax.set_xticks(
            range(n), ["out"] + [str(k) for k in range(n - 2, -1, -1)], fontsize=9
        )
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_ylabel("sum")
        fig.colorbar(image, ax=ax, fraction=0.04)
    bottom.set_xlabel("bit position")
    return finish(fig)


def plot_ponder_vs_distance(tables: dict) -> plt.Figure:
    """Mean ACT steps (± std) against carry distance, one colour per model: the means
    as dots with error bars, the least-squares line over all positions dashed."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    colors = variant_colors(len(tables))
    for k, ((name, (table, slope, intercept)), color) in enumerate(
        zip(tables.items(), colors, strict=True)
    ):
        ax.errorbar(
            table.index + dodge(k, len(tables), 0.2),  # side by side, not on top
            table["mean"],
            yerr=table["std"],
            fmt=MARKERS[k % len(MARKERS)],
            color=color,
            capsize=3,
            ms=7 if k == 0 else 4,  # the first drawn large and on top: shorter series
            zorder=3 + len(tables) - k,
            label=f"{name}: {fit_words(slope, intercept)}",
        )
        d = np.array([0, table.index.max()])
        ax.plot(d, slope * d + intercept, "--", color=color, lw=1)
    top = max(t.index.max() for t, _, _ in tables.values())
    fewest = [1, *range(1, top + 1)]  # max(1, d): a local window of one, d = 0..top
    fewest_label = "fewest possible (local; at d = 0, at least)"
    ax.plot(range(top + 1), fewest, "k:", lw=1, label=fewest_label)
    ax.set_xlabel("carry distance d into the position")
    ax.set_ylabel("ACT steps at that position")
    ax.grid(alpha=0.3)
    return legend_below(fig, ax, per_row=2)


def plot_tau_sweep(table: pd.DataFrame) -> plt.Figure:
    """Steps beyond the carry (the mean of N - d over positions with a carry) against
    the time penalty, one line per seed, with 0, the fewest a local model can use."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    seeds = list(table.groupby("seed"))
    for k, (color, (seed, runs)) in enumerate(with_colors(seeds)):
        tau = runs["tau"] * 2 ** dodge(k, len(seeds), 0.06)  # side by side, not on top
        style = {"marker": MARKERS[k % len(MARKERS)], "color": color}
        ax.semilogx(tau, runs["steps beyond the carry"], label=f"seed {seed}", **style)
    ax.axhline(0, color="k", ls=":", lw=1, label="none beyond the carry")
    ax.set_ylim(bottom=min(0.0, float(table["steps beyond the carry"].min())) - 0.2)
    ax.set_xlabel("time penalty τ")
    ax.set_ylabel("steps beyond the carry,\nfresh 8-bit sums")
    ax.grid(alpha=0.3)
    return legend_below(fig, ax)


def plot_waiting_halting(
    tables: dict[str, pd.DataFrame], trained_bits: int
) -> plt.Figure:
    """Mean halting probability h_r of positions still waiting for their carry, by
    round r (tables from ``halting_while_waiting``, one line each; top), above the
    running sum of those means (bottom): ACT halts a position once its sum reaches
    1 - eps. One legend below both."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True)
    colors = variant_colors(len(tables))
    for (name, table), color in zip(tables.items(), colors, strict=True):
        h = table["mean h while waiting"]
        top.plot(h.index, h.values, "o-", color=color, label=name)
        bottom.plot(h.index, h.cumsum().values, "o-", color=color, label=name)
    for ax in (top, bottom):
        ax.axvline(trained_bits, color="k", ls=":", lw=1)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    bottom.set_xlabel("round r")
    top.text(trained_bits + 0.2, 0.9, f"longest wait in training: {trained_bits}",
             fontsize=9, va="top")  # fmt: skip
    bottom.axhline(1 - ACT_EPS, color="k", ls="--", lw=1)
    bottom.text(1, 1.03, f"1 − ε = {1 - ACT_EPS:.2f}: halt", fontsize=9)
    top.set_ylabel("mean $h_r$ while waiting")
    bottom.set_ylabel("running sum\nof the means")
    top.set_ylim(-0.02, 1.02)
    return legend_below(fig, top, per_row=2)
