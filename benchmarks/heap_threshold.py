"""What ``recur.core.device.limit_heap_growth``'s threshold costs and saves, each case
in a fresh process with one torch thread, the thresholds interleaved (A B C A B C ...):

- ``train``: seconds for 200 training steps of Chapter 6's model (``BOOK_ACT``, the
  seed of the registry's "freed memory", two held-out checks);
- ``memory``: peak resident MiB after three ACT forward passes over 100 random sums of
  256 bits for 800 rounds (the halting unit's bias set to -30, so that no position
  halts), the kind of run that fragments the C library's heap when it is left alone.

A threshold of 0 keeps the C library's default. Prints one JSON line per run. On 2
cores a training case takes 14-33 s and a memory case about 2 minutes, more at 64 KiB.

Run: ``.venv/bin/python benchmarks/heap_threshold.py [--repeats N] [--thresholds A,B]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import torch

THRESHOLDS = (0, 64 * 1024, 4 * 1024 * 1024)


def _train() -> float:
    from recur.core.seeds import by_name
    from recur.training.ut_recipe import BOOK_ACT, train_ut

    recipe = BOOK_ACT.but(
        n_steps=200, eval_every=100, stop_at_exact=None, progress=False, device="cpu"
    )
    seed = by_name("freed memory").first
    start = time.perf_counter()
    train_ut(recipe, seed)
    return time.perf_counter() - start


def _memory() -> float:
    from recur.core.tasks import random_batch
    from recur.models.running import run_model
    from recur.models.ut import UniversalTransformer
    from recur.training.ut_recipe import BOOK_ACT

    torch.manual_seed(0)
    model = UniversalTransformer(BOOK_ACT.model)
    model.halting.linear.bias.data.fill_(-30.0)  # no position halts before round 800
    for k in range(3):
        run_model(model, random_batch(100, 256, seed=k).bits, 800)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB


def one_case(case: str, threshold: int) -> dict:
    """Run ``case`` in this process with ``threshold`` (0: the C library's default)."""
    from recur.core.device import limit_heap_growth

    torch.set_num_threads(1)
    if threshold:
        limit_heap_growth(threshold)
    value = _train() if case == "train" else _memory()
    unit = "s" if case == "train" else "MiB"
    return {"case": case, "threshold": threshold, "value": value, "unit": unit}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", choices=["train", "memory"], help="a child: one case")
    parser.add_argument("--threshold", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)))
    args = parser.parse_args()
    if args.one:  # a child: one case, one threshold
        print(json.dumps(one_case(args.one, args.threshold)), flush=True)
        sys.exit(0)
    thresholds = [int(t) for t in args.thresholds.split(",")]
    for case in ("train", "memory"):
        for _ in range(args.repeats if case == "train" else 1):
            for threshold in thresholds:
                command = [sys.executable, __file__, "--one", case]
                command += ["--threshold", str(threshold)]
                subprocess.run(command, check=True)
