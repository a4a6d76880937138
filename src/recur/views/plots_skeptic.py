"""Chapter 2's figure of a fading answer: round by round and position by position,
which readout bits are right, with each position's wait; and how far the state of one
position moves each round."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.ticker import FuncFormatter

from recur.views.palette import COLORS, PALETTE
from recur.views.style import finish

RIGHT_WRONG = ListedColormap([COLORS["wrong"], COLORS["one"]])  # 0 wrong, 1 right


def plot_fade(walks: dict, read_round: int) -> plt.Figure:
    """A grid of panels, one per walk (a ``Walk`` of :mod:`recur.chapters.ch2_skeptic`
    keyed "sum, model"): a row per sum, a column per model. Rounds run down on a log
    axis, positions across as the sum is written (the carry out on the left); wrong
    bits pink, right ones blue; the black line is each position's wait, the dashed
    one the round the book reads."""
    sums = list(dict.fromkeys(key.split(", ", 1)[0] for key in walks))
    models = list(dict.fromkeys(key.split(", ", 1)[1] for key in walks))
    fig, axes = plt.subplots(
        len(sums), len(models), figsize=(3.3 * len(models), 2.9 * len(sums)),
        squeeze=False, sharex=True, sharey=True,
    )  # fmt: skip
    cells = [(r, c) for r in enumerate(sums) for c in enumerate(models)]
    for (row, name), (col, model) in cells:
        w, ax = walks[f"{name}, {model}"], axes[row][col]
        n_pos = w.right.shape[1]
        x_edges = np.arange(n_pos + 1) - 0.5
        y_edges = np.arange(w.n_rounds + 1) + 0.5
        ax.pcolormesh(
            x_edges, y_edges, w.right[:, ::-1].astype(int), cmap=RIGHT_WRONG,
            vmin=0, vmax=1, shading="flat", rasterized=True,
        )  # fmt: skip
        ax.plot(np.arange(n_pos), w.wait[::-1], color="black", lw=1)
        ax.axhline(read_round, color="black", ls="--", lw=1)
        ax.set_yscale("log")
        ax.set_ylim(w.n_rounds + 0.5, 0.5)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))
        if row == 0:
            ax.set_title(model, fontsize=10)
        if col == 0:
            ax.set_ylabel(f"{name}\nround")
        if row == len(sums) - 1:
            ax.set_xlabel("position (carry out left)")
            ax.set_xticks([0, n_pos - 1], [f"{n_pos - 1}", "0"])
    return finish(fig)


def plot_hold(changes: dict[str, np.ndarray], floor: float = 1e-12) -> plt.Figure:
    """How far one position's state moves in each round, one line per model, on a log
    axis (no move at all is drawn at ``floor``, which is marked)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for color, (name, values) in zip(PALETTE, changes.items(), strict=False):
        rounds = np.arange(1, len(values) + 1)
        ax.semilogy(rounds, np.maximum(values, floor), color=color, lw=1.2, label=name)
    ax.axhline(floor, color="#888", ls=":", lw=1, label="no move at all")
    ax.set_xscale("log")
    ax.set_xlabel("round r")
    ax.set_ylabel(r"$|s_r - s_{r-1}|$ at the carry out")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return finish(fig)
