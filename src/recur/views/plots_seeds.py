"""Chapter 6's spread over seeds: how each training seed of each recipe did
at the widest width of the ``seeds`` study, read from its table
(:func:`recur.studies.seed_study.seed_runs`); nothing is computed here."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from recur.core.bars import HARDEST_PAST, SUCCESS
from recur.views.palette import PALETTE
from recur.views.style import dodge, finish

TOP = (  # column, marker, colour; the no-carry waits are held to the long chains' bar
    ("exact", "o", PALETTE[0]),
    ("exact, long chains", "s", PALETTE[2]),
    ("exact, long waits without a carry", "^", PALETTE[4]),
)
EARLY = {  # column: (colour, legend)
    "halted before the carry": (PALETTE[1], "random sums"),
    "halted before the carry, long chains": (PALETTE[2], "long chains"),
}


def _exact_panel(ax, runs: pd.DataFrame, title: str, n_bits: int) -> None:
    """The upper panel of one recipe: exact match per seed, the bars dashed."""
    for column, marker, color in TOP:
        if column not in runs:  # a study without this column
            continue
        ax.plot(runs.index, runs[column], marker, color=color, label=column,
                ms=4 if marker == "^" else 6)  # fmt: skip
        if column in SUCCESS:
            ax.axhline(SUCCESS[column], color=color, ls="--", lw=0.8,
                       label=f"bar: {SUCCESS[column]:.0%}")  # fmt: skip
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.set_ylabel(f"exact match,\n{n_bits}-bit sums")


def _early_panel(low, runs: pd.DataFrame, early: list[str], early_max: float) -> None:
    """The lower panel of one recipe: the share that halted before the carry, per
    seed, side by side for random sums and long chains; seeds that missed the bar in
    red."""
    for j, column in enumerate(early):
        color, label = EARLY[column]
        low.bar(runs.index + dodge(j, len(early), 0.4), runs[column] * 100,
                width=0.4, color=color, label=label)  # fmt: skip
    low.set_ylim(0, early_max * 1.1)
    low.set_xlabel("training seed")
    low.set_xticks(runs.index, [str(s) for s in runs.index])
    for label, good in zip(low.get_xticklabels(), runs["success"], strict=True):
        label.set_color("black" if good else PALETTE[1])
    low.set_ylabel("halted before\nthe carry (%)")


def plot_seed_spread(
    table: pd.DataFrame, n_bits: int = 64, names: dict[str, str] | None = None
) -> plt.Figure:
    """One column per recipe: top, exact match on random and on long-chain
    ``n_bits``-bit sums for every seed (and, where measured, on long waits that end
    with no carry), with the bars of :data:`SUCCESS` dashed;
    bottom, the share of positions that halted before their carry could be known, in
    the random and (where measured) the long-chain sums.
    Seeds that missed the bar (``success`` false) get a red tick label. ``names``:
    the words a panel title gives a recipe (default: its name in the table)."""
    names = names or {}
    recipes = list(dict.fromkeys(table["recipe"]))
    fig, rows = plt.subplots(
        2 * len(recipes), 1, figsize=(9, 4.6 * len(recipes)), squeeze=False,
        gridspec_kw={"height_ratios": [2, 1] * len(recipes)},
    )  # fmt: skip  # one recipe under the other: room for every seed's number
    axes = [[row[0] for row in rows[0::2]], [row[0] for row in rows[1::2]]]
    top = table[table["bits"] == n_bits]
    early = [c for c in EARLY if c in top]  # the columns this table has
    early_max = max(top[early].max().max() * 100, 0.05)
    for k, recipe in enumerate(recipes):
        runs = top[top["recipe"] == recipe].set_index("seed").sort_index()
        ok = int(runs["success"].sum())
        title = f"{names.get(recipe, recipe)}: {ok} of {len(runs)} seeds met the bar"
        _exact_panel(axes[0][k], runs, title, n_bits)
        _early_panel(axes[1][k], runs, early, early_max)
        axes[0][k].set_xticks(runs.index, [])  # named under the lower panel
        axes[0][k].sharex(axes[1][k])  # each recipe's own seeds
    axes[0][0].legend(frameon=False, fontsize=9, loc="center left")
    axes[1][0].legend(frameon=False, fontsize=8, loc="upper left")
    finish(fig)
    for top_ax, low in zip(*axes, strict=True):  # close the gap tight_layout leaves
        upper, lower = top_ax.get_position(), low.get_position()
        bottom = lower.y1 + 0.01
        top_ax.set_position([upper.x0, bottom, upper.width, upper.y1 - bottom])
    return fig


def plot_pairs(table: pd.DataFrame, past: str, right: str, flag: str) -> plt.Figure:
    """The ``pairs`` study (:func:`recur.studies.hardest_study.pair_runs`): one panel
    without the piece and one with it (column ``flag``), the most rounds past the
    carry (column ``past``) on the hardest sums against the width, a line per seed,
    a cross where one of them came out wrong (column ``right`` false). The y axis is
    linear to 2 rounds and logarithmic above, so that both ends can be read."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), sharey=True)
    top = max(2, int(table[past].max()))
    for ax, as_set in zip(axes, (False, True), strict=True):
        runs = table[table[flag] == as_set]
        met = 0
        for _, seed_rows in runs.groupby("seed"):
            rows = seed_rows.sort_values("bits")
            late = (rows[past] > HARDEST_PAST).any() or not rows[right].all()
            met += not late
            color = PALETTE[1] if late else PALETTE[0]  # red: late or wrong
            ax.plot(rows["bits"], rows[past], "-", color=color, lw=1 if late else 2.5,
                    alpha=0.7, zorder=3 if late else 2)  # fmt: skip
            wrong = rows[~rows[right].astype(bool)]
            ax.plot(wrong["bits"], wrong[past], "x", color=PALETTE[1], ms=7)
        ax.axhline(HARDEST_PAST, color="k", ls=":", lw=1, zorder=4)
        ax.set_xscale("log", base=2)
        widths = sorted(runs["bits"].unique())
        ax.set_xticks(widths, [str(w) for w in widths])
        ax.set_yscale("symlog", linthresh=2)
        ticks = [t for t in (0, 1, 2, 5, 10, 20, 50, 100, 200, 500) if t <= top * 1.5]
        ax.set_yticks(ticks, [str(t) for t in ticks])
        ax.set_ylim(-0.3, top * 1.5)
        ax.set_xlabel("bits per operand")
        word = "each pair read as a set" if as_set else "pairs as they come"
        n_seeds = runs["seed"].nunique()
        ax.set_title(f"{word}:\n{met} of {n_seeds} on time", fontsize=10)  # two lines
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("most rounds past the carry\n(the hardest sums)")
    return finish(fig)
