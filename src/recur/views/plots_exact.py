"""Chapters 2 to 4's figures of exact match, by round or by width: training curves,
the learned cell against the rule, the injection ablation and its gradients, the rounds
table of the Universal Transformers and the length studies."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from recur.views.palette import MARKERS
from recur.views.style import (
    dodge,
    exact_axis,
    finish,
    legend_below,
    variant_colors,
    width_axis,
)


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
    return finish(fig)


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
    exact_axis(ax, f"exact match, {n_bits}-bit sums")
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    ax.grid(alpha=0.3)
    return finish(fig)


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
    left.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))  # legible
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
    right.set_ylabel("first round, all right")
    right.legend(frameon=False, fontsize=9)
    right.grid(alpha=0.3)
    return finish(fig)


VARIANT_STYLE = {
    (True, "1"): ("#1f4e79", "inject, loss on final round"),
    (True, "all"): ("#5b9bd5", "inject, loss on every round"),
    (False, "1"): ("#c0392b", "no injection, loss on final round"),
    (False, "all"): ("#f39c12", "no injection, loss on every round"),
}


def plot_ablation(table: pd.DataFrame) -> plt.Figure:
    """Exact match against test rounds, one panel per width, one above the other (each
    keeps the column's width on a phone); mean over seeds (thick) and every seed
    (thin). Dotted: width + 1 rounds, enough for any carry chain."""
    widths = sorted(table["bits"].unique())
    fig, axes = plt.subplots(
        len(widths), 1, figsize=(6.4, 2.8 * len(widths)), squeeze=False
    )
    for ax, n_bits in zip(axes[:, 0], widths, strict=True):
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
        exact_axis(ax)
        ax.grid(alpha=0.3)
    return legend_below(fig, axes[-1][0], per_row=2)


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
    return finish(fig)


def plot_rounds_table(table: pd.DataFrame) -> plt.Figure:
    """Exact match after each round, one line per column of ``table``."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for name in table.columns:
        style = "s--" if "rule" in name else "o-"
        color = "#888" if "rule" in name else None
        ax.plot(table.index, table[name], style, color=color, label=name, ms=4)
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    exact_axis(ax)
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    ax.grid(alpha=0.3)
    return finish(fig)


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
    n = len(variants)
    for ax, column in zip(axes[0], columns, strict=True):
        for k, ((name, runs), color) in enumerate(zip(variants, colors, strict=True)):
            shift = 2 ** dodge(k, n, 0.04)  # side by side where the lines coincide
            mean = runs.groupby("bits")[column].mean()
            marker = MARKERS[k % len(MARKERS)]
            ax.plot(
                mean.index * shift, mean.values, f"{marker}-", color=color, label=name
            )
            ax.plot(runs["bits"] * shift, runs[column], ".", color=color, alpha=0.35)
        if reference is not None:
            ax.plot(
                reference.index,
                reference[column],
                "s--",
                color="k",
                label=reference_label,
                zorder=1,
            )
        width_axis(ax, sorted(table["bits"].unique()), trained_bits, column)
    axes[0][0].set_ylabel("exact match (mean over seeds)")
    return legend_below(fig, axes[0][-1], per_row=3 if len(columns) == 1 else 4)


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
    return finish(fig)
