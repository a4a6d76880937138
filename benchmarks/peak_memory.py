"""Peak resident memory of one training step of Chapter 7's cell, in a fresh process:
``python benchmarks/peak_memory.py METHOD ROUNDS`` prints the growth of the process's
peak resident set (MiB) over a forward + loss + backward on 64 sums of 1,024 bits, for
the cell unrolled over ROUNDS rounds (``unrolled``) or the DEQ cell made to run exactly
ROUNDS solver iterations (``implicit``). Used by ``run.py``'s ``bench_deq``."""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from recur.core.tasks import random_batch
from recur.models.deq import EquilibriumCell


def peak_mib() -> float:
    """This process's peak resident set (VmHWM, Linux). Not ``getrusage``: its maxrss
    keeps the parent's peak across exec, which would hide a small child's growth."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB -> MiB
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def main(method: str, n_rounds: int) -> float:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    implicit = method == "implicit"
    model = EquilibriumCell(tol=1e-30, implicit=implicit)  # never stops early
    batch = random_batch(64, 1024, seed=0)
    with torch.no_grad():
        model(batch.bits, 2)  # allocate what any step needs, then take the baseline
    before = peak_mib()
    logits = model(batch.bits, n_rounds).logits[-1]  # (B, n)
    F.binary_cross_entropy_with_logits(logits, batch.target).backward()
    return peak_mib() - before


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="One training step's peak memory.")
    parser.add_argument("method", choices=["implicit", "unrolled"])
    parser.add_argument("n_rounds", type=int)
    args = parser.parse_args()
    print(main(args.method, args.n_rounds))
