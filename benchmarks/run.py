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
import torch  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

from recur.carry import longest_chains, parallel_add  # noqa: E402
from recur.experiments import length_generalization, train_variant  # noqa: E402
from recur.ut import UTBlock, sinusoid  # noqa: E402
from recur.ut_experiments import train_ut  # noqa: E402

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


def bench_shared() -> None:
    """Chapter 2's cell: seconds to 100% on 10,000 held-out 8-bit pairs (median of three
    seeds, CPU, 2 threads), then exact match on wider sums with width + 1 rounds."""
    torch.set_num_threads(2)
    runs = [train_variant(True, 1, seed=seed, device="cpu") for seed in range(3)]
    seconds = [r.seconds_to_target for _, r in runs]
    if any(s is None for s in seconds):
        emit("shared_runs_not_reaching_100pct", sum(s is None for s in seconds), "runs")
    done = sorted(s for s in seconds if s is not None)
    emit(
        "shared_seconds_to_exact_8bit",
        statistics.median(done) if done else float("nan"),
        "s",
    )
    sizes = {16: 2000, 64: 1000, 256: 300, 1024: 100}
    table = length_generalization(runs[0][0], sizes, {"width + 1": 1.0}, seed=123)
    for n_bits in sizes:
        exact = float(table.loc[n_bits, "exact: width + 1"])
        emit(
            f"shared_exact_match_{n_bits}bit",
            exact,
            f"fraction of {sizes[n_bits]} sums",
        )


def bench_ut_step(d_model: int = 256, n_heads: int = 8, d_ff: int = 1024) -> None:
    """Forward + backward of one UT round against torch's TransformerEncoderLayer of the
    same width, heads and feed-forward size (post-LN, ReLU, no dropout), same batch."""
    torch.set_num_threads(2)
    x = torch.randn(16, 64, d_model)
    block = UTBlock(d_model, n_heads, d_ff)
    signal = sinusoid(torch.arange(64), d_model)
    ref = torch.nn.TransformerEncoderLayer(
        d_model, n_heads, d_ff, dropout=0.0, batch_first=True
    )

    def ut_round():
        block(x + signal, None).sum().backward()

    def torch_layer():
        ref(x).sum().backward()

    ut, base = median_seconds(ut_round, 20), median_seconds(torch_layer, 20)
    emit("ut_step_ratio_vs_torch_encoder_layer", ut / base, "ratio")


def bench_act_ut() -> None:
    """Chapter 6's model: seconds to 99% exact match on 10,000 held-out 8-bit pairs."""
    torch.set_num_threads(2)
    seconds = [
        train_ut(
            window=1,
            act=True,
            n_rounds=12,
            seed=seed,
            n_steps=1500,
            progress=False,
            device="cpu",
        )[1].seconds_to_target
        for seed in range(3)
    ]
    done = sorted(s for s in seconds if s is not None)
    emit("act_ut_runs_reaching_99pct", len(done), "of 3 seeds")
    emit(
        "act_ut_seconds_to_99_8bit",
        statistics.median(done) if done else float("nan"),
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
    bench_shared()
    bench_ut_step()
    bench_act_ut()
    bench_chapters(sys.argv[1:])
