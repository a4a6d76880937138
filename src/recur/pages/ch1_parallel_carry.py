"""Chapter 1's glued values: its running time, and the fitted growth of the longest
carry chain from the page's own measurement."""

from __future__ import annotations

from recur.core.carry import ChainGrowth
from recur.views.bench_view import chapter_time

WIDEST = 4096  # the widest sums the page measures


def code_values(bench="data/bench.jsonl") -> dict:
    """The page's running time (``make bench``)."""
    return {"run_time": chapter_time("01_parallel_carry", bench)}


def growth_values(growth: ChainGrowth) -> dict:
    """From ``chain_growth``: the fitted line as text, its slope (rounds per doubling
    of the width), and the mean and longest chain at 4,096 bits."""
    return {
        "chain_fit": growth.fit_text,
        "chain_slope": growth.slope,
        "chain_mean_4096": float(growth.stats.loc[WIDEST, "mean"]),
        "chain_max_4096": int(growth.stats.loc[WIDEST, "max"]),
    }
