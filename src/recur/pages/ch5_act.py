"""Chapter 5's glued value: its running time (the rest of the page computes by hand)."""

from __future__ import annotations

from recur.views.bench_view import chapter_time


def code_values(bench="data/bench.jsonl") -> dict:
    """The page's running time (``make bench``)."""
    return {"run_time": chapter_time("05_act", bench)}
