"""One timing of the book's two trainings at this process's CPU numerics, as JSON:
``bench_pins`` in ``run.py`` runs it pinned and with ``RECUR_UNPINNED=1``, in turn.

Seconds of 300 steps of Chapter 2's cell and 100 of Chapter 6's ACT Transformer (one
torch thread), each after a warm-up of a few steps."""

from __future__ import annotations

import json
import time

from recur.chapters.ch2_shared_update import train_cell
from recur.core.machine import numerics_in_effect
from recur.training.ut_recipe import BOOK_ACT, train_ut

QUIET = {"stop_at_exact": None, "progress": False, "eval_every": 10_000, "n_threads": 1}


def seconds(fn, n_steps: int) -> float:
    fn(n_steps=5)  # warm-up: first calls allocate and pick kernels
    start = time.perf_counter()
    fn(n_steps=n_steps)
    return time.perf_counter() - start


def cell(n_steps: int) -> None:
    train_cell(seed=0, max_attempts=1, n_steps=n_steps, **QUIET)


def act_ut(n_steps: int) -> None:
    train_ut(BOOK_ACT.but(**QUIET, n_steps=n_steps), seed=0)


if __name__ == "__main__":
    print(
        json.dumps(
            {
                "cell_seconds": seconds(cell, 300),
                "act_ut_seconds": seconds(act_ut, 100),
                **numerics_in_effect(),
            }
        )
    )
