"""Figures for the book. Each function takes a result object and returns a Figure (or an
animation); none of them computes anything the library does not already return."""

from __future__ import annotations

import html
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.animation import FuncAnimation
from matplotlib.patches import FancyBboxPatch, Rectangle
from matplotlib.ticker import MaxNLocator

from recur.carry import CarryTrace, ChainGrowth, longest_chain_span
from recur.palette import COLORS, MEANING

ROWS = ("a", "b", "carry in", "readout")


PALETTE = (
    "#1f4e79",
    "#c0392b",
    "#f39c12",
    "#5b9bd5",
    "#2e8b57",
    "#8e44ad",
    "#7f7f7f",
    "#e377c2",
    "#bcbd22",
    "#17becf",
)


def variant_colors(n: int) -> list[str]:
    """``n`` distinct colours: the book's palette, then matplotlib's tab20."""
    extra = [plt.get_cmap("tab20")(k % 20) for k in range(max(0, n - len(PALETTE)))]
    return [*PALETTE, *extra][:n]


def _exact_axis(ax: plt.Axes, label: str = "exact match") -> None:
    """A share of sums is drawn on its whole range, 0 to 1, never zoomed in."""
    ax.set_ylabel(label)
    ax.set_ylim(-0.02, 1.02)


def _done(fig: plt.Figure) -> plt.Figure:
    """Lay out, and close so that the figure is shown once, as the cell's value."""
    fig.tight_layout()
    plt.close(fig)
    return fig


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
    purple, and a legend (colours from :mod:`recur.palette`)."""
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


def plot_round(trace: CarryTrace, r: int) -> plt.Figure:
    """One round of a trace as a figure."""
    fig, ax = plt.subplots(figsize=_grid_size(trace))
    draw_round(trace, r, ax)
    return _done(fig)


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
    return _player(animate_trace(trace), alt)


# matplotlib's player draws its buttons with Font Awesome icons from a public CDN; the
# book works offline, so the buttons get plain characters instead.
_ICONS = {
    "fa fa-minus": "\u2212",
    "fa fa-fast-backward": "|\u25c0\u25c0",
    "fa fa-step-backward": "|\u25c0",
    "fa fa-play fa-flip-horizontal": "\u25c0",
    "fa fa-pause": "||",
    "fa fa-play": "\u25b6",
    "fa fa-step-forward": "\u25b6|",
    "fa fa-fast-forward": "\u25b6\u25b6|",
    "fa fa-plus": "+",
}


def _player(anim: FuncAnimation, alt: str):
    """The animation as a play/step/scrub player (no kernel needed), with alt text,
    loading nothing from the network."""
    player = anim.to_jshtml(default_mode="once")
    player = re.sub(r"<link[^>]*font-awesome[^>]*>", "", player)
    for icon, text in _ICONS.items():
        player = player.replace(f'<i class="{icon}"></i>', text)
    from IPython.display import HTML  # only where a page shows it

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
        color=PALETTE[1],
        label=f"fit: {growth.fit_text}",
    )
    ax.set_xticks(log_n, [f"{n}" for n in stats.index], fontsize=9)
    ax.set_xlabel("width n in bits (log scale)")
    ax.set_ylabel("longest carry chain = rounds needed")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return _done(fig)


# --------------------------------------------------------------------------- Chapter 2


def plot_training(history: pd.DataFrame, title: str = "") -> plt.Figure:
    """Held-out exact match and training loss against wall-clock seconds."""
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    ax.plot(history["seconds"], history["exact"], "o-", color="#1f4e79", ms=3)
    ax.set_xlabel("seconds of training")
    ax.set_ylabel("held-out exact match", color="#1f4e79")
    ax.set_ylim(-0.02, 1.02)
    twin = ax.twinx()
    twin.semilogy(history["seconds"], history["loss"], color="#c0392b", alpha=0.7)
    twin.set_ylabel("training loss", color="#c0392b")
    ax.set_title(title, fontsize=10, loc="left")
    ax.grid(alpha=0.3)
    return _done(fig)


def plot_accuracy_by_round(table: pd.DataFrame, n_bits: int) -> plt.Figure:
    """Exact match after every round: the learned cell next to the exact rule."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.plot(
        table.index,
        table["exact rule"],
        "s--",
        color="#888",
        label="exact rule (Ch. 1)",
    )
    ax.plot(table.index, table["learned"], "o-", color="#1f4e79", label="learned cell")
    ax.axvline(
        n_bits + 1, color="#c0392b", ls=":", label=f"{n_bits + 1} rounds = width + 1"
    )
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _exact_axis(ax, f"exact match, {n_bits}-bit sums")
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    ax.grid(alpha=0.3)
    return _done(fig)


def plot_chain_experiment(runs: list) -> plt.Figure:
    """Left: exact match by chain length and round (first run). Right: the first round
    at which every sum is right, against the chain length, for every run."""
    first = runs[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    image = left.imshow(
        first.exact,
        aspect="auto",
        origin="lower",
        cmap="Blues",
        vmin=0,
        vmax=1,
        extent=(0.5, first.exact.shape[1] + 0.5, -0.5, len(first.chain_lengths) - 0.5),
    )
    left.set_yticks(range(len(first.chain_lengths)), first.chain_lengths)
    left.set_xlabel("round")
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_ylabel("longest carry chain")
    left.set_title(f"exact match, {first.n_bits}-bit sums", fontsize=10, loc="left")
    fig.colorbar(image, ax=left, fraction=0.05)
    lengths = np.array(first.chain_lengths)
    right.plot(lengths, np.maximum(lengths, 1), "s--", color="#888", label="exact rule")
    for k, run in enumerate(runs):
        right.plot(
            lengths, run.first_right, "o-", alpha=0.8, label=f"learned, seed {k}"
        )
    right.set_xlabel("longest carry chain")
    right.set_ylabel("first round with all sums right")
    right.legend(frameon=False, fontsize=9)
    right.grid(alpha=0.3)
    return _done(fig)


# --------------------------------------------------------------------------- Chapter 3

VARIANT_STYLE = {
    (True, "1"): ("#1f4e79", "inject, loss on final round"),
    (True, "all"): ("#5b9bd5", "inject, loss on every round"),
    (False, "1"): ("#c0392b", "no injection, loss on final round"),
    (False, "all"): ("#f39c12", "no injection, loss on every round"),
}


def plot_ablation(table: pd.DataFrame) -> plt.Figure:
    """Exact match against test rounds, one panel per width; mean over seeds (thick) and
    every seed (thin). Dotted: width + 1 rounds, enough for any carry chain."""
    widths = sorted(table["bits"].unique())
    fig, axes = plt.subplots(
        1, len(widths), figsize=(5 * len(widths), 3.8), squeeze=False
    )
    for ax, n_bits in zip(axes[0], widths, strict=True):
        part = table[table["bits"] == n_bits]
        for (inject, window), (color, label) in VARIANT_STYLE.items():
            runs = part[(part["inject"] == inject) & (part["loss window"] == window)]
            if runs.empty:
                continue
            for _, seed_run in runs.groupby("seed"):
                ax.plot(
                    seed_run["round"], seed_run["exact"], color=color, lw=0.6, alpha=0.4
                )
            mean = runs.groupby("round")["exact"].mean()
            ax.plot(mean.index, mean.values, color=color, lw=2, label=label)
        ax.axvline(n_bits + 1, color="#888", ls=":", label="width + 1 rounds")
        ax.set_title(f"{n_bits}-bit sums", fontsize=10, loc="left")
        ax.set_xlabel("rounds at test time")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _exact_axis(ax)
        ax.grid(alpha=0.3)
    axes[0][-1].legend(frameon=False, fontsize=9, loc="center right")
    return _done(fig)


def plot_gradient_by_round(norms: dict[str, np.ndarray]) -> plt.Figure:
    """Gradient reaching the problem embedding from the loss of round r alone."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for label, values in norms.items():
        ax.semilogy(np.arange(1, len(values) + 1), values, "o-", label=label)
    ax.set_xlabel("round r whose readout is in the loss")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("‖∂ loss_r / ∂ embedding‖")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return _done(fig)


def _box(ax, x, y, text, color):
    ax.add_patch(
        FancyBboxPatch(
            (x - 0.55, y - 0.28),
            1.1,
            0.56,
            boxstyle="round,pad=0.02",
            facecolor=color,
            edgecolor="#555",
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=9)


def _arrow(ax, start, end, **kw):
    ax.annotate(
        "", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color="#555", **kw)
    )


def plot_two_axes(n_steps: int = 4) -> plt.Figure:
    """Seed 004's picture: the sequence axis t (a new input each step) against the round
    axis r (the same input, the same update, one more round)."""
    fig, ax = plt.subplots(figsize=(8.5, 3.6))
    for k in range(n_steps):
        _box(ax, 2 * k, 1.6, f"s[t={k}, r=0]", COLORS["one"])
        ax.text(2 * k, 2.35, f"input x{k}", ha="center", fontsize=9)
        _arrow(ax, (2 * k, 2.25), (2 * k, 1.9))
        _box(ax, 2 * k, 0, f"s[t=0, r={k}]", "#fde3c8")
        if k:
            _arrow(ax, (2 * k - 1.42, 1.6), (2 * k - 0.58, 1.6))
            _arrow(ax, (2 * k - 1.42, 0), (2 * k - 0.58, 0))
            ax.text(2 * k - 1, 1.72, "cell", ha="center", fontsize=9)
            ax.text(2 * k - 1, 0.12, "same F", ha="center", fontsize=9)
            _arrow(ax, (2 * (n_steps - 1) / 2, -0.8), (2 * k, -0.32), lw=0.6)
    ax.text(
        2 * (n_steps - 1) / 2,
        -1.0,
        "the same input x0, fed again every round (injection)",
        ha="center",
        fontsize=9,
    )
    ax.text(-0.6, 1.6, "sequence\nstep t", ha="right", va="center", fontsize=10)
    ax.text(-0.6, 0, "inner\nround r", ha="right", va="center", fontsize=10)
    ax.set_xlim(-2, 2 * n_steps - 1)
    ax.set_ylim(-1.3, 2.6)
    ax.axis("off")
    return _done(fig)


# --------------------------------------------------------------------------- Chapter 5


def draw_halting(h: np.ndarray, eps: float, ax: plt.Axes) -> None:
    """Halting probabilities h_r (bars), their running sum, the threshold 1 - eps, and
    the ACT weights p_r; N and R in the title."""
    import torch

    from recur.act import halting_weights

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
    ax.set_ylim(0, max(1.6, float(np.cumsum(h)[n_steps - 1]) + 0.1))
    ax.set_title(
        f"N = {n_steps},  R = {rem:.2f},  ponder N + R = {n_steps + rem:.2f}",
        fontsize=10,
        loc="left",
    )
    ax.legend(frameon=False, fontsize=9, loc="upper left")


def plot_halting(h, eps: float = 0.01) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    draw_halting(np.asarray(h, dtype=float), eps, ax)
    return _done(fig)


def halting_player(h, step: int, values, eps: float = 0.01, alt: str = ""):
    """A scrubbable player: h_{step} takes each of ``values`` in turn, the rest stay."""
    h = np.array(h, dtype=float)  # a copy: the caller's array is left alone
    fig, ax = plt.subplots(figsize=(6.4, 3.4))

    def frame(k):
        h[step - 1] = values[k]
        draw_halting(h, eps, ax)

    frame(0)
    fig.tight_layout()
    anim = FuncAnimation(fig, frame, frames=len(values), interval=700)
    plt.close(fig)
    return _player(anim, alt or f"ACT halting as h_{step} varies")


# --------------------------------------------------------------------------- Chapter 4


def plot_rounds_table(table: pd.DataFrame) -> plt.Figure:
    """Exact match after each round, one line per column of ``table``."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for name in table.columns:
        style = "s--" if "rule" in name else "o-"
        color = "#888" if "rule" in name else None
        ax.plot(table.index, table[name], style, color=color, label=name, ms=4)
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _exact_axis(ax)
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    ax.grid(alpha=0.3)
    return _done(fig)


# --------------------------------------------------------------------------- Chapter 6


def plot_ponder_map(
    steps: np.ndarray, distance: np.ndarray, n_show: int = 12
) -> plt.Figure:
    """ACT steps per position (left) beside the carry distance into it (right), for the
    same sums; bit 0 on the right as in Chapter 1."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    panels = [
        (left, steps[:n_show], "ACT steps per position", "Oranges"),
        (right, distance[:n_show], "carry distance into the position", "Blues"),
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
        ax.set_xlabel("bit position")
        fig.colorbar(image, ax=ax, fraction=0.04)
    left.set_ylabel("sum")
    return _done(fig)


def plot_ponder_vs_distance(tables: dict) -> plt.Figure:
    """Mean ACT steps (± std) against carry distance, one colour per model: the means
    as dots with error bars, the least-squares line over all positions dashed."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    colors = variant_colors(len(tables))
    for (name, (table, slope, intercept)), color in zip(
        tables.items(), colors, strict=True
    ):
        ax.errorbar(
            table.index,
            table["mean"],
            yerr=table["std"],
            fmt="o",
            color=color,
            capsize=3,
            label=f"{name}: fit {slope:.2f}·d + {intercept:.2f}",
        )
        d = np.array([0, table.index.max()])
        ax.plot(d, slope * d + intercept, "--", color=color, lw=1)
    top = max(t.index.max() for t, _, _ in tables.values())
    fewest = [1, *range(1, top + 1)]  # max(1, d): a local window of one, d = 0..top
    ax.plot(range(top + 1), fewest, "k:", lw=1, label="fewest possible (local)")
    ax.set_xlabel("carry distance d into the position")
    ax.set_ylabel("ACT steps at that position")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return _done(fig)


def plot_tau_sweep(table: pd.DataFrame) -> plt.Figure:
    """Held-out exact match and mean ACT steps against the time penalty, per seed."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    for seed, runs in table.groupby("seed"):
        left.semilogx(runs["tau"], runs["exact"], "o-", label=f"seed {seed}")
        right.semilogx(runs["tau"], runs["mean steps"], "o-", label=f"seed {seed}")
    _exact_axis(left, "exact match, fresh 8-bit sums")
    right.set_ylabel("mean ACT steps per position")
    for ax in (left, right):
        ax.set_xlabel("time penalty τ")
        ax.grid(alpha=0.3)
        ax.legend(frameon=False, fontsize=9)
    return _done(fig)


def _width_axis(ax, widths: list[int], trained_bits: int, title: str) -> None:
    """A width axis: the trained width marked, log-2 when widths span a factor of 4."""
    ax.axvline(trained_bits, color="k", ls=":", lw=1)
    ax.text(trained_bits * 1.03, 0.03, f"trained up to {trained_bits} bits", fontsize=9)
    if widths[-1] >= 4 * widths[0]:
        ax.set_xscale("log", base=2)
        ax.set_xticks(widths, [str(w) for w in widths])
    ax.set_xlabel("bits per operand")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)


def _legend_below(fig: plt.Figure, ax) -> plt.Figure:
    """One legend for all panels, four entries per row, below them."""
    handles, labels = ax.get_legend_handles_labels()
    n_rows = -(-len(labels) // 4)
    fig.set_figheight(fig.get_figheight() + 0.25 * n_rows)
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False, fontsize=9)
    fig.tight_layout(rect=(0, 0.25 * n_rows / fig.get_figheight() + 0.01, 1, 1))
    plt.close(fig)
    return fig


def plot_length_study(
    table: pd.DataFrame,
    trained_bits: int,
    columns: tuple[str, ...] = ("exact",),
    reference: pd.DataFrame | None = None,
    reference_label: str = "",
) -> plt.Figure:
    """Exact match against input width, one panel per column of ``table`` (random sums,
    long chains...), one line per variant (mean over seeds) with each seed as a faint
    dot; the widest training sums (``trained_bits``) marked, and an optional reference
    model (indexed by width, same columns) as a dashed black line, drawn underneath."""
    width = 7 if len(columns) == 1 else 10
    fig, axes = plt.subplots(
        1, len(columns), figsize=(width, 3.8), squeeze=False, sharey=True
    )
    variants = table.groupby("variant", sort=False)
    colors = variant_colors(len(variants))
    for ax, column in zip(axes[0], columns, strict=True):
        for (name, runs), color in zip(variants, colors, strict=True):
            mean = runs.groupby("bits")[column].mean()
            ax.plot(mean.index, mean.values, "o-", color=color, label=name)
            ax.plot(runs["bits"], runs[column], ".", color=color, alpha=0.35)
        if reference is not None:
            ax.plot(
                reference.index,
                reference[column],
                "s--",
                color="k",
                label=reference_label,
                zorder=1,
            )
        _width_axis(ax, sorted(table["bits"].unique()), trained_bits, column)
    axes[0][0].set_ylabel("exact match (mean over seeds)")
    if len(columns) > 1:
        return _legend_below(fig, axes[0][-1])
    axes[0][0].legend(frameon=False, fontsize=9)
    return _done(fig)


def plot_waiting_halting(
    tables: dict[str, pd.DataFrame], trained_bits: int
) -> plt.Figure:
    """Mean halting probability h_r of positions still waiting for their carry, by
    round n (tables from ``halting_while_waiting``, one line each), with the running
    sum of those means: ACT halts a position once its sum reaches 1 - eps."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    colors = variant_colors(len(tables))
    for (name, table), color in zip(tables.items(), colors, strict=True):
        h = table["mean h while waiting"]
        left.plot(h.index, h.values, "o-", color=color, label=name)
        right.plot(h.index, h.cumsum().values, "o-", color=color, label=name)
    for ax in (left, right):
        ax.axvline(trained_bits, color="k", ls=":", lw=1)
        ax.set_xlabel("round n")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    left.text(
        trained_bits + 0.2,
        0.9,
        f"longest wait in\ntraining: {trained_bits}",
        fontsize=9,
        va="top",
    )
    right.axhline(0.99, color="k", ls="--", lw=1)
    right.text(1, 1.03, "1 - eps: halt", fontsize=9)
    left.set_ylabel("mean $h_r$ while waiting")
    right.set_ylabel("running sum of the means")
    left.set_ylim(-0.02, 1.02)
    left.legend(frameon=False, fontsize=9)
    return _done(fig)


def plot_rounds_by_width(curves: pd.DataFrame, longest: dict[int, int]) -> plt.Figure:
    """Chapter 2's headline: exact match after each round (log-2 axis) for each width
    (from ``exact_by_round_and_width``), with the longest carry chain of each width's
    sample as a dotted line in the same colour: the rule needs exactly that many."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    widths = sorted(curves["bits"].unique())
    for n_bits, color in zip(widths, variant_colors(len(widths)), strict=True):
        one = curves[curves["bits"] == n_bits]
        ax.plot(one["round"], one["exact"], "-", color=color, label=f"{n_bits} bits")
        ax.axvline(longest[n_bits], color=color, ls=":", lw=1.2)
    ax.set_xscale("log", base=2)
    ticks = [2**k for k in range(0, int(np.log2(curves["round"].max())) + 1)]
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.set_xlabel("rounds run (dotted: the longest carry chain in that sample)")
    ax.set_ylabel("exact match")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    return _done(fig)
