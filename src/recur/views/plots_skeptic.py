"""Chapter 2's figure of a fading answer: round by round and position by position,
which readout bits are right, with each position's wait; and how far the state of one
position moves each round."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from recur.views.palette import COLORS, PALETTE
from recur.views.style import finish

RIGHT_WRONG = ListedColormap([COLORS["wrong"], COLORS["one"]])  # 0 wrong, 1 right


def plot_fade(walks: dict, read_round: int) -> plt.Figure:
    """One panel per walk (a ``Walk`` of :mod:`recur.chapters.ch2_skeptic`, titled by
    its key): rounds down, positions across as the sum is written (the carry out on
    the left), wrong bits pink, right ones blue; the black line is each position's
    wait, the dashed one the round the book reads."""
    fig, axes = plt.subplots(
        1, len(walks), figsize=(3.2 * len(walks), 4.2), squeeze=False
    )
    for ax, (title, w) in zip(axes[0], walks.items(), strict=True):
        n_pos = w.right.shape[1]
        ax.imshow(
            w.right[:, ::-1].astype(int), cmap=RIGHT_WRONG, vmin=0, vmax=1,
            aspect="auto", interpolation="nearest",
            extent=(-0.5, n_pos - 0.5, w.n_rounds + 0.5, 0.5),
        )  # fmt: skip
        ax.plot(np.arange(n_pos), w.wait[::-1], color="black", lw=1)
        ax.axhline(read_round, color="black", ls="--", lw=1)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("position (carry out on the left)")
        ax.set_xticks([0, n_pos - 1], [f"{n_pos - 1}", "0"])
    axes[0][0].set_ylabel("round")
    return finish(fig)


def plot_hold(changes: dict[str, np.ndarray], floor: float = 1e-6) -> plt.Figure:
    """How far one position's state moves in each round, one line per model, on a log
    axis (no move at all is drawn at ``floor``, which is marked)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for color, (name, values) in zip(PALETTE, changes.items(), strict=False):
        rounds = np.arange(1, len(values) + 1)
        ax.semilogy(rounds, np.maximum(values, floor), color=color, lw=1.2, label=name)
    ax.axhline(floor, color="#888", ls=":", lw=1, label="no move at all")
    ax.set_xlabel("round r")
    ax.set_ylabel(r"$|s_r - s_{r-1}|$ at the carry out")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return finish(fig)
