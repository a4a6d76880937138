"""Chapters 1 and 3's figures of the carry itself: the round-by-round grid of a sum and
its player, how the longest chain grows with the width, and the two axes of
recurrence."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.patches import Rectangle

from recur.core.carry import CarryTrace, ChainGrowth, longest_chain_span
from recur.views.palette import COLORS, MEANING, PALETTE
from recur.views.style import arrow, box, finish, player_html

ROWS = ("a", "b", "carry in", "readout")


def _cells(trace: CarryTrace, r: int) -> list[list[str]]:
    """Row strings of the grid, column 0 being the carry out of the top bit."""
    carries = "".join(str(c) for c in trace.carries[r][::-1])  # out, n-1, ..., 0
    return [
        " " + trace.a,
        " " + trace.b,
        carries,
        str(trace.carry_out(r)) + trace.readout(r),
    ]


def draw_round(trace: CarryTrace, r: int, ax: plt.Axes) -> None:
    """Draw the state after ``r`` rounds: inputs, carries (new ones orange), readout
    (bits that differ from the true sum pink), the longest carry chain underlined in
    purple, and a legend (colours from :mod:`recur.views.palette`)."""
    ax.clear()
    n = trace.n_bits
    moved = trace.moved(r)[::-1]  # (n + 1,), column order: out, n-1, ..., 0
    truth = trace.true_sum  # with the carry-out bit
    for row, text in enumerate(_cells(trace, r)):
        for col, ch in enumerate(text):
            fill = _fill(ch, row == 2 and moved[col], row == 3 and ch != truth[col])
            ax.add_patch(
                Rectangle((col, -row - 1), 1, 1, facecolor=fill, edgecolor="#999")
            )
            ax.text(col + 0.5, -row - 0.5, ch, ha="center", va="center", fontsize=11)
    _chain_underline(ax, trace)
    _grid_legend(ax)
    ax.set_yticks([-0.5 - k for k in range(4)], ROWS)
    ax.set_xticks(
        np.arange(n + 1) + 0.5,
        ["out"] + [str(k) for k in range(n - 1, -1, -1)],
        fontsize=9,
    )
    ax.set_aspect("equal")
    ax.set_xlim(0, n + 1)
    ax.set_ylim(-5, 0)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.xaxis.tick_top()
    ax.set_title(f"after {r} round{'s' * (r != 1)}", fontsize=10, loc="left")


def _chain_underline(ax: plt.Axes, trace: CarryTrace) -> None:
    """The longest carry chain underlined in the chain's colour, with its length."""
    span = longest_chain_span(trace)
    if span is None:
        return
    n, (j, i) = trace.n_bits, span  # LSB indices -> columns n - index
    ax.plot([n - i + 0.1, n - j + 0.9], [-4.25, -4.25], color=COLORS["chain"], lw=3)
    ax.text(n - (i + j) / 2 + 0.5, -4.45, f"longest chain: {i - j}",
            color=COLORS["chain"], ha="center", va="top", fontsize=9)  # fmt: skip


def _fill(ch: str, moved: bool, wrong: bool) -> str:
    if wrong:
        return COLORS["wrong"]
    if moved:
        return COLORS["moved"]
    return COLORS["one"] if ch == "1" else COLORS["zero"]


def _grid_legend(ax: plt.Axes) -> None:
    """The colours' meanings, below the grid: the same words as the widgets'."""
    handles = [
        Rectangle((0, 0), 1, 1, facecolor=COLORS[k], edgecolor="#999")
        for k in ("moved", "wrong")
    ]
    handles.append(plt.Line2D([], [], color=COLORS["chain"], lw=3))
    labels = [MEANING[k] for k in ("moved", "wrong", "chain")]
    ax.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.02),
        ncol=3,
        frameon=False,
        fontsize=9,
        handlelength=1.2,
        columnspacing=1.0,
    )


def _grid_size(trace: CarryTrace) -> tuple[float, float]:
    return max(4.5, 0.42 * (trace.n_bits + 1) + 1.4), 3.3


def animate_trace(trace: CarryTrace, interval_ms: int = 900) -> FuncAnimation:
    """Every round of a trace as an animation; ``.to_jshtml()`` gives a player that
    that needs no kernel."""
    fig, ax = plt.subplots(figsize=_grid_size(trace))
    draw_round(trace, 0, ax)
    fig.tight_layout()  # after drawing, so that the title and labels fit
    anim = FuncAnimation(
        fig,
        lambda r: draw_round(trace, r, ax),
        frames=trace.n_rounds + 1,
        interval=interval_ms,
    )
    plt.close(fig)
    return anim


def trace_player(trace: CarryTrace, alt: str = ""):
    """A play/step/scrub player of every round; works in the static HTML (no kernel)."""
    alt = alt or f"The rounds of {trace.a} + {trace.b}, one frame per round"
    return player_html(animate_trace(trace), alt)


def plot_chain_growth(growth: ChainGrowth) -> plt.Figure:
    """Mean longest carry chain (± one std) against log2 n, with the fitted line."""
    stats = growth.stats
    log_n = np.log2(stats.index.to_numpy())
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.fill_between(
        log_n,
        stats["mean"] - stats["std"],
        stats["mean"] + stats["std"],
        color=COLORS["one"],
        label="mean ± 1 std",
    )
    ax.plot(log_n, stats["mean"], "o", color="#1f4e79", label="measured mean")
    ax.plot(
        log_n, stats["max"], "x", color="#888", label=f"max of {growth.n_pairs:,} pairs"
    )
    ax.plot(
        log_n,
        growth.slope * log_n + growth.intercept,
        "--",
        color=PALETTE[1],
        label=f"fit: {growth.fit_text}",
    )
    ax.set_xticks(log_n, [f"{n}" for n in stats.index], fontsize=9)
    ax.set_xlabel("width n in bits (log scale)")
    ax.set_ylabel("longest carry chain = rounds needed")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return finish(fig)


def plot_two_axes(n_steps: int = 4) -> plt.Figure:
    """The picture of "Why is the same Transformer worth running one more round?":
    the sequence axis t (a new input each step) against the round axis r (the same
    input, the same update, one more round). Boxes wide enough for their labels at the
    size a phone needs (:func:`recur.views.style.legible`)."""
    gap, w = 2.4, 1.75  # from one box to the next; a box's width
    xlim, ylim = (-2.3, gap * (n_steps - 1) + 1.0), (-1.3, 2.6)
    fig, ax = plt.subplots(
        figsize=(0.75 * (xlim[1] - xlim[0]), 0.8 * (ylim[1] - ylim[0]))
    )
    for k in range(n_steps):
        x = gap * k
        box(ax, x, 1.6, f"s[t={k}, r=0]", COLORS["one"], w=w)
        ax.text(x, 2.35, f"input x{k}", ha="center", fontsize=9)
        arrow(ax, (x, 2.25), (x, 1.9))
        box(ax, x, 0, f"s[t=0, r={k}]", "#fde3c8", w=w)
        if k:
            start, end = x - gap + w / 2 + 0.05, x - w / 2 - 0.05
            arrow(ax, (start, 1.6), (end, 1.6))
            arrow(ax, (start, 0), (end, 0))
            ax.text(x - gap / 2, 1.72, "cell", ha="center", fontsize=9)
            ax.text(x - gap / 2, 0.12, "F", ha="center", fontsize=9)  # the same F
            arrow(ax, (gap * (n_steps - 1) / 2, -0.8), (x, -0.32), lw=0.6)
    ax.text(
        gap * (n_steps - 1) / 2,
        -1.0,
        "the same input x0, fed again every round (injection)",
        ha="center",
        fontsize=9,
    )
    ax.text(-w / 2 - 0.1, 1.6, "sequence\nstep t", ha="right", va="center", fontsize=10)
    ax.text(-w / 2 - 0.1, 0, "inner\nround r", ha="right", va="center", fontsize=10)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.axis("off")
    return finish(fig)
