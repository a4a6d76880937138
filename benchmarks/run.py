"""Print the performance table, one JSON object per line: {"name", "value", "unit"}.

Run with `make bench`. Timings are medians of repeated runs on this machine; the book
reads nothing from here by hand.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "2")  # the book's target: a 2-core laptop

import nbformat  # noqa: E402
import numpy as np  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

from recur.carry import longest_chains, parallel_add  # noqa: E402

BOOK = Path(__file__).resolve().parents[1] / "book"


def emit(name: str, value: float, unit: str) -> None:
    print(
        json.dumps({"name": name, "value": round(value, 4), "unit": unit}), flush=True
    )


def median_seconds(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_carry() -> None:
    rng = np.random.default_rng(0)
    a, b = ("".join(rng.choice(["0", "1"], 4096)) for _ in range(2))
    emit("carry_trace_4096bit_random", median_seconds(lambda: parallel_add(a, b)), "s")
    worst = ("1" * 4096, "1")  # the carry walks all 4096 positions
    emit("carry_trace_4096bit_worst", median_seconds(lambda: parallel_add(*worst)), "s")
    emit(
        "carry_chains_10000_pairs_4096bit",
        median_seconds(lambda: longest_chains(10_000, 4096, seed=0)),
        "s",
    )


def bench_chapters(names: list[str]) -> None:
    for path in sorted(BOOK.glob("[0-9][0-9]_*.ipynb")):
        if names and path.stem not in names:
            continue
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb, timeout=600, resources={"metadata": {"path": str(BOOK)}}
        )
        start = time.perf_counter()
        client.execute()
        emit(f"chapter_seconds_{path.stem}", time.perf_counter() - start, "s")


if __name__ == "__main__":
    bench_carry()
    bench_chapters(sys.argv[1:])
