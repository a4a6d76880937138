"""Chapter 2's figure of a fading answer: round by round and position by position,
which readout bits are right, with each position's wait and the answers wrong after the
round they are read."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.ticker import FuncFormatter

from recur.views.palette import COLORS
from recur.views.style import finish

RIGHT_WRONG = ListedColormap([COLORS["wrong"], COLORS["one"]])  # 0 wrong, 1 right


def linear_then_log(linear_to: float, last: float, log_share: float = 0.35):
    """A y-scale's forward and inverse maps: linear from 0 to ``linear_to``, then
    logarithmic up to ``last``, the log part taking ``log_share`` of the axis. The
    rounds around the read stay a row each; the thousand rounds after it fit above."""
    k = linear_to * log_share / (1 - log_share) / np.log(last / linear_to)

    def forward(y):
        y = np.maximum(np.asarray(y, dtype=float), 1e-9)
        return np.where(y <= linear_to, y, linear_to + k * np.log(y / linear_to))

    def inverse(u):
        u = np.asarray(u, dtype=float)
        above = linear_to * np.exp(np.minimum((u - linear_to) / k, 700))
        return np.where(u <= linear_to, u, above)

    return forward, inverse


def late_marks(right: np.ndarray, read_round: int) -> tuple[np.ndarray, np.ndarray]:
    """Where an answer is wrong at or after the round it is read: per position
    (columns of ``right``, rounds by positions, bit 0 first), the first such round.
    Returns (positions as drawn, the carry out at 0; rounds)."""
    after = ~right[read_round - 1 :, ::-1]  # rounds read_round on, carry out first
    columns = np.flatnonzero(after.any(axis=0))
    return columns, read_round + after[:, columns].argmax(axis=0)


def late_label(n_late: int) -> str:
    """The words beside a panel's red marks: how many positions are wrong at or after
    the read."""
    noun = "position" if n_late == 1 else "positions"
    return f"{n_late} {noun} wrong\nat or after the read"


def draw_walk(ax, w, read_round: int, marks: tuple) -> int:
    """One walk on ``ax``: right and wrong bits by round and position (the carry out
    on the left), the wait line, the read line and the late ``marks``; returns the
    number of positions."""
    n_pos = w.right.shape[1]
    ax.pcolormesh(
        np.arange(n_pos + 1) - 0.5, np.arange(w.n_rounds + 1) + 0.5,
        w.right[:, ::-1].astype(int), cmap=RIGHT_WRONG, vmin=0, vmax=1,
        shading="flat", rasterized=True,
    )  # fmt: skip
    ax.plot(np.arange(n_pos), w.wait[::-1], color="black", lw=1)
    ax.axhline(read_round, color="black", ls="--", lw=1)
    ax.plot(*marks, "x", color=COLORS["late"], ms=7, mew=2, zorder=5)
    return n_pos


def zoom_on_marks(ax, w, marks: tuple, read_round: int) -> None:
    """An inset in the lower right of ``ax`` that magnifies the corner where a walk's
    late marks sit: a few positions past the last mark and a few rounds either side
    of the read, titled by :func:`late_label`."""
    x, y = marks
    zoom = ax.inset_axes([0.38, 0.06, 0.58, 0.4])
    n_pos = draw_walk(zoom, w, read_round, marks)
    zoom.set_xlim(-0.5, min(n_pos, int(x.max()) + 8) - 0.5)
    zoom.set_ylim(min(w.n_rounds, int(y.max()) + 4) + 0.5, read_round - 8 - 0.5)
    zoom.set_xticks([])
    zoom.set_yticks([read_round])
    zoom.set_title(late_label(len(x)), color=COLORS["late"], fontsize=8)
    ax.indicate_inset_zoom(zoom, edgecolor="0.3")


def plot_fade(walks: dict, read_round: int) -> plt.Figure:
    """A grid of panels, one per walk (a ``Walk`` of :mod:`recur.chapters.ch2_skeptic`
    keyed "sum, model"): a row per sum, a column per model. Rounds run down, linear to
    just past the read and logarithmic after; positions across as the sum is written
    (the carry out on the left); wrong bits pink, right ones blue; the black line is
    each position's wait, the dashed one the round the book reads, and a red mark each
    position still or again wrong at or after the read (:func:`late_marks`)."""
    sums = list(dict.fromkeys(key.split(", ", 1)[0] for key in walks))
    models = list(dict.fromkeys(key.split(", ", 1)[1] for key in walks))
    fig, axes = plt.subplots(
        len(sums), len(models), figsize=(3.3 * len(models), 2.9 * len(sums)),
        squeeze=False, sharex=True, sharey=True,
    )  # fmt: skip
    cells = [(r, c) for r in enumerate(sums) for c in enumerate(models)]
    for (row, name), (col, model) in cells:
        w, ax = walks[f"{name}, {model}"], axes[row][col]
        marks = late_marks(w.right, read_round)
        n_pos = draw_walk(ax, w, read_round, marks)
        if len(marks[0]):  # the marks sit in a corner: a zoom on them, below
            zoom_on_marks(ax, w, marks, read_round)
        linear_to = read_round + 15  # a row per round up to just past the read
        scale = linear_then_log(linear_to, w.n_rounds + 0.5)
        ax.set_yscale("function", functions=scale)
        ax.set_ylim(w.n_rounds + 0.5, 0.5)
        ticks = [1, read_round, *(t for t in (200,) if t < w.n_rounds), w.n_rounds]
        ax.set_yticks(ticks)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))
        if row == 0:
            ax.set_title(model, fontsize=10)
        ax.axhline(linear_to, color="0.4", ls=":", lw=1)  # where the log scale starts
        if col == 0:
            ax.set_ylabel(f"{name}\nround (log scale past {linear_to})")
        if row == len(sums) - 1:
            ax.set_xlabel("position (carry out left)")
            ax.set_xticks([0, n_pos - 1], [f"{n_pos - 1}", "0"])
    return finish(fig)
