"""Figures for the book. Each function takes a result object and returns a Figure (or an
animation); none of them computes anything the library does not already return."""

from __future__ import annotations

import html

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML
from matplotlib.animation import FuncAnimation
from matplotlib.patches import Rectangle

from recur.carry import CarryTrace, ChainGrowth, longest_chain_span

COLORS = {"one": "#cfe3f6", "moved": "#f6a04d", "chain": "#c0392b", "zero": "white"}
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
    """Draw the state after ``r`` rounds: inputs, carries (new ones in orange), readout,
    and the longest carry chain underlined in red."""
    ax.clear()
    n = trace.n_bits
    moved = trace.moved(r)[::-1]  # (n + 1,), column order: out, n-1, ..., 0
    for row, text in enumerate(_cells(trace, r)):
        for col, ch in enumerate(text):
            fill = COLORS["one"] if ch == "1" else COLORS["zero"]
            if row == 2 and moved[col]:
                fill = COLORS["moved"]
            ax.add_patch(
                Rectangle((col, -row - 1), 1, 1, facecolor=fill, edgecolor="#999")
            )
            ax.text(col + 0.5, -row - 0.5, ch, ha="center", va="center", fontsize=11)
    span = longest_chain_span(trace)
    if span is not None:
        j, i = span  # LSB indices -> columns n - index
        ax.plot([n - i + 0.1, n - j + 0.9], [-4.25, -4.25], color=COLORS["chain"], lw=3)
        ax.text(
            n - (i + j) / 2 + 0.5,
            -4.45,
            f"longest chain: {i - j}",
            color=COLORS["chain"],
            ha="center",
            va="top",
            fontsize=9,
        )
    ax.set_yticks([-0.5 - k for k in range(4)], ROWS)
    ax.set_xticks(
        np.arange(n + 1) + 0.5,
        ["out"] + [str(k) for k in range(n - 1, -1, -1)],
        fontsize=8,
    )
    ax.set_aspect("equal")
    ax.set_xlim(0, n + 1)
    ax.set_ylim(-5, 0)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.xaxis.tick_top()
    ax.set_title(f"after {r} round{'s' * (r != 1)}", fontsize=10, loc="left")


def _grid_size(trace: CarryTrace) -> tuple[float, float]:
    return max(4.5, 0.42 * (trace.n_bits + 1) + 1.4), 2.9


def plot_round(trace: CarryTrace, r: int) -> plt.Figure:
    """One round of a trace as a figure."""
    fig, ax = plt.subplots(figsize=_grid_size(trace))
    draw_round(trace, r, ax)
    fig.tight_layout()
    plt.close(fig)  # shown once, as the cell's value
    return fig


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


def trace_player(trace: CarryTrace, alt: str = "") -> HTML:
    """A play/step/scrub player of every round; works in the static HTML (no kernel)."""
    alt = alt or f"The rounds of {trace.a} + {trace.b}, one frame per round"
    player = animate_trace(trace).to_jshtml(default_mode="once")
    return HTML(player.replace("<img id=", f'<img alt="{html.escape(alt)}" id=', 1))


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
        color=COLORS["chain"],
        label=f"fit: {growth.fit_text}",
    )
    ax.set_xticks(log_n, [f"{n}" for n in stats.index], fontsize=8)
    ax.set_xlabel("width n in bits (log scale)")
    ax.set_ylabel("longest carry chain = rounds needed")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    plt.close(fig)
    return fig
