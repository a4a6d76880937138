"""The Performance page's figure of how long each page takes to execute, from
``make bench``'s ``chapter_seconds_*`` entries (read by
:func:`recur.views.bench_view.read_bench`), in the book's order."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from recur.views.bench_view import page_title
from recur.views.palette import PALETTE
from recur.views.style import finish


def chapter_seconds(bench: pd.DataFrame, book=".") -> pd.Series:
    """From :func:`read_bench`'s rows: each page's execution seconds, in the book's
    order (the introduction, the chapters, the back matter), indexed by the page as a
    reader knows it (:func:`page_title`)."""
    rows = bench[bench["name"].str.startswith("chapter_seconds_")]
    if rows.empty:
        raise ValueError("no chapter_seconds_* rows: run make bench")
    stems = rows["name"].str.removeprefix("chapter_seconds_")
    seconds = pd.Series(rows["value"].to_numpy(), index=stems.to_numpy())
    seconds = seconds.loc[sorted(seconds.index, key=_book_order)]
    return seconds.rename(
        index=lambda stem: "Introduction" if stem == "intro" else page_title(stem, book)
    )


def _book_order(stem: str) -> tuple[int, str]:
    """The introduction, the numbered chapters, then the back matter by name."""
    number = stem.split("_")[0]
    if stem == "intro":
        return (0, stem)
    return (int(number), stem) if number.isdigit() else (100, stem)


def plot_chapter_seconds(seconds: pd.Series):
    """:func:`chapter_seconds` as horizontal bars, the first page at the top, each
    bar labelled with its seconds."""
    fig, ax = plt.subplots(figsize=(6.4, 0.32 * len(seconds) + 1.0))
    y = range(len(seconds))[::-1]  # the first page on top
    ax.barh(list(y), seconds.to_numpy(), color=PALETTE[0])
    ax.set_yticks(list(y), seconds.index)
    for k, value in zip(y, seconds.to_numpy(), strict=True):
        ax.text(value, k, f" {value:.0f} s", va="center", fontsize=9)
    ax.set_xlabel("seconds to execute, one CPU thread (make bench)")
    ax.set_xlim(0, 1.15 * float(seconds.max()))
    ax.grid(axis="x", alpha=0.3)
    return finish(fig)
