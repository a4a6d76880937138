"""Pictures of the machines the book builds, drawn by code (no image files): the local
cell unrolled over positions and rounds (Chapter 2), the Universal Transformer block
unrolled over rounds (Chapter 4), and the ACT Universal Transformer with a halting unit
at every position (Chapter 6). Each function returns a closed matplotlib figure."""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
from matplotlib.patches import Circle

from recur.views.style import EDGE, arrow, box, finish

STATE, PROBLEM, SHARED, HALTED = "#dbe8f5", "#fde3c8", "#e3f1e3", "#eeeeee"


INJECT = "#c26a1b"  # the problem's bits fed in again: a darker PROBLEM
HALTING_TEXT = "#555555"  # not purple: the palette keeps purple for the longest chain


TEXT = 9  # points: legible at the page's width


_box = functools.partial(box, pad=0.03, fontsize=TEXT)  # the diagrams' boxes


def _node(ax, x, y, text, color=STATE, radius=0.3) -> None:
    ax.add_patch(Circle((x, y), radius, facecolor=color, edgecolor=EDGE))
    ax.text(x, y, text, ha="center", va="center", fontsize=TEXT)


def _check(n_positions: int, n_rounds: int) -> None:
    if n_positions < 2 or n_rounds < 1:
        raise ValueError(
            f"need >= 2 positions and >= 1 round, got {n_positions} and {n_rounds}"
        )


def draw_local_cell(n_positions: int = 4, n_rounds: int = 3) -> plt.Figure:
    """Chapter 2's cell unrolled: a grid of states s_r at bit i (columns: bits, most
    significant on the left as the sums are written; rows: rounds). Each state of round
    r + 1 is F of its own state and the state of the bit below in round r, plus the
    problem's two bits (injection): one F, shared by every node."""
    _check(n_positions, n_rounds)
    fig, ax = plt.subplots(figsize=(1.5 * n_positions + 2.2, 1.1 * n_rounds + 2.0))
    x = {i: 1.5 * (n_positions - 1 - i) for i in range(n_positions)}  # bit 0 right
    for i in range(n_positions):
        _box(ax, x[i], -0.9, f"$a_{i}, b_{i}$", PROBLEM, w=0.9, h=0.45)
        ax.text(x[i], -1.45, f"bit {i}", ha="center", fontsize=TEXT)
        _injection(ax, x[i], n_rounds)
        for r in range(n_rounds + 1):
            _node(ax, x[i], 1.1 * r, f"$s_{r}$")
            if r:
                _cell_arrows(ax, x, i, r)
    left = x[n_positions - 1] - 1.0
    for r in range(n_rounds + 1):
        label = f"round {r}" if r else "start"
        ax.text(left, 1.1 * r, label, ha="right", va="center", fontsize=TEXT)
    note = "each node is F(own state, state of the bit below, the bits): one F for all"
    ax.text(
        (x[0] + left + 1.0) / 2, 1.1 * n_rounds + 0.65, note, ha="center", fontsize=TEXT
    )
    ax.set_xlim(x[n_positions - 1] - 2.4, x[0] + 1.2)
    ax.set_ylim(-1.7, 1.1 * n_rounds + 0.9)
    return _bare(ax, fig)


def _injection(ax, x: float, n_rounds: int) -> None:
    """The problem's bits re-fed before every round: a dashed line up the left of the
    column from the bits' box, with a short arrow into each state from round 1 on."""
    side = x - 0.42  # the left edge of the bits' box
    ax.plot([side, side], [-0.67, 1.1 * n_rounds - 0.3], ls="--", lw=1, color=INJECT)
    for r in range(1, n_rounds + 1):
        arrow(ax, (side, 1.1 * r - 0.3), (x - 0.25, 1.1 * r - 0.17), color=INJECT)


def _cell_arrows(ax, x: dict, i: int, r: int) -> None:
    """Into s_r at bit i: from its own state and from the bit below (to the right)."""
    arrow(ax, (x[i], 1.1 * (r - 1) + 0.3), (x[i], 1.1 * r - 0.3))
    if i:
        start, end = (
            (x[i - 1] - 0.25, 1.1 * (r - 1) + 0.18),
            (x[i] + 0.25, 1.1 * r - 0.18),
        )
        arrow(ax, start, end)


INCHES_PER_UNIT = 0.75  # a diagram's scale: its size follows what it draws


def _fitted(xlim: tuple, ylim: tuple) -> tuple[float, float]:
    """The figure size that holds ``xlim`` by ``ylim`` at :data:`INCHES_PER_UNIT`, so
    that no blank margin makes the figure wider, and its letters smaller on a phone,
    than the drawing needs."""
    return (
        INCHES_PER_UNIT * (xlim[1] - xlim[0]),
        INCHES_PER_UNIT * (ylim[1] - ylim[0]),
    )


def _bare(ax, fig: plt.Figure) -> plt.Figure:
    """Equal scales, no axes: a diagram, not a plot."""
    ax.set_aspect("equal")
    ax.axis("off")
    return finish(fig)


def draw_ut_unrolled(n_rounds: int = 3) -> plt.Figure:
    """Chapter 4's Universal Transformer unrolled over rounds, bottom to top as the
    other diagrams draw rounds: the states H^0, H^1, ... (all positions at once), one
    block of self-attention and transition with the same weights in every round, and
    the position-and-round signal P^r added before each round. Drawn tall and narrow,
    so that it keeps its letters on a phone."""
    if n_rounds < 1:
        raise ValueError(f"need >= 1 round, got {n_rounds}")
    step = 1.7  # from one state to the next
    fig, ax = plt.subplots(figsize=(5.0, step * n_rounds + 1.5))
    for r in range(n_rounds + 1):
        label = f"$H^{{{r}}}$ (all bits)" if r else "$H^0$: the embedded bits"
        _box(ax, 0, step * r, label, STATE, w=3.0, h=0.5)
        if r:
            mid = step * r - step / 2
            _box(ax, 0, mid, "self-attention + transition", SHARED, w=3.0, h=0.5)
            arrow(ax, (0, step * (r - 1) + 0.27), (0, mid - 0.27))
            arrow(ax, (0, mid + 0.27), (0, step * r - 0.27))
            ax.text(
                -2.25, mid, f"$+P^{{{r}}}$", ha="center", va="center", fontsize=TEXT
            )
            arrow(ax, (-1.95, mid), (-1.53, mid))
    note = (
        "one set of weights, shared\nby every round (green);\n$P^r$ says where and when"
    )
    ax.text(
        1.65, step * n_rounds - step / 2, note, ha="left", va="center", fontsize=TEXT
    )
    ax.set_xlim(-2.6, 3.9)
    ax.set_ylim(-0.4, step * n_rounds + 0.4)
    return _bare(ax, fig)


def _act_column(ax, x: float, x_below: float | None, n_steps: int, n_rounds: int):
    """One position of the ACT UT: blue while it runs (with its halting unit h and
    arrows from its own and the lower state), grey once halted, "copy" just above."""
    for r in range(n_rounds + 1):
        running = r <= n_steps
        _node(ax, x, 1.2 * r, "" if r else "$s_0$", STATE if running else HALTED)
        if r and running:
            arrow(ax, (x, 1.2 * (r - 1) + 0.3), (x, 1.2 * r - 0.3))
            if x_below is not None:  # the bit below, to the right
                start, end = (
                    (x_below - 0.25, 1.2 * r - 1.02),
                    (x + 0.25, 1.2 * r - 0.18),
                )
                arrow(ax, start, end)
            ax.text(x + 0.36, 1.2 * r + 0.12, "h", fontsize=TEXT, color=HALTING_TEXT)
        if r and r == n_steps + 1:
            ax.text(
                x,
                1.2 * r,
                "copy",
                ha="center",
                va="center",
                fontsize=TEXT,
                color="#777",
            )


def draw_act_ut(steps: tuple[int, ...] = (1, 3, 2, 1)) -> plt.Figure:
    """Chapter 6's ACT Universal Transformer: one column per bit (bit 0 on the right),
    one row per round. After each round a halting unit h reads each running position's
    state; a position that halted (after ``steps[i]`` rounds) is copied unchanged,
    drawn grey, while the others go on. Local attention: each state reads its own and
    the one below."""
    n_positions, n_rounds = len(steps), max(steps, default=0)
    _check(n_positions, n_rounds)
    if min(steps) < 1:
        raise ValueError(f"every position runs at least one step, got {steps}")
    x = {i: 1.7 * (n_positions - 1 - i) for i in range(n_positions)}
    left = x[n_positions - 1]
    xlim, ylim = (left - 2.3, x[0] + 1.0), (-2.4, 1.2 * n_rounds + 1.6)
    fig, ax = plt.subplots(figsize=_fitted(xlim, ylim))
    for i, n_steps in enumerate(steps):
        _box(ax, x[i], -0.9, f"$a_{i}, b_{i}$", PROBLEM, w=0.9, h=0.45)
        ax.text(
            x[i], -1.3, f"bit {i}\nN = {n_steps}", ha="center", va="top", fontsize=TEXT
        )
        _act_column(ax, x[i], x.get(i - 1), n_steps, n_rounds)
    for r in range(1, n_rounds + 1):
        ax.text(
            left - 0.9, 1.2 * r, f"round {r}", ha="right", va="center", fontsize=TEXT
        )
    note = (
        "h: a halting unit per position after every round\ngrey: halted, state copied"
    )
    ax.text(
        (x[0] + left) / 2,
        1.2 * n_rounds + 0.55,
        note,
        ha="center",
        va="bottom",
        fontsize=TEXT,
    )
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    return _bare(ax, fig)
