"""What a training run is asked to do (:class:`TrainConfig`), what it returns
(:class:`TrainResult`), the step-size and ponder-weight schedules, and the restart
rule every checked procedure shares (:func:`restarting`)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from torch import nn

from recur.core.seeds import RESTART_STRIDE


@dataclass
class TrainConfig:
    n_steps: int = 1500
    batch_size: int = 128
    lr: float = 1e-2
    lr_decay: str = "none"  # "cosine": the step size falls to 0 over n_steps
    clip_norm: float = 1.0  # gradient clipping, the usual guard for unrolled loops
    min_bits: int = 1  # training widths are drawn from min_bits..max_bits
    max_bits: int = 8
    chain_share: float = 0.0  # share of each batch drawn by chain_batch
    chain_kill_share: float = 0.0  # of those, the share with no carry (a kill below)
    n_rounds: int | None = None  # default max_bits + 1: enough for any carry chain
    max_rounds: int | None = None  # if set, each step runs n_rounds..max_rounds rounds
    loss_window: int = 1  # the loss reads the last loss_window rounds of each run
    aux_warmup: int = 0  # the model's extra loss (ACT's ponder cost) ramps up over this
    eval_every: int = 50
    eval_size: int = 10_000  # held-out pairs of max_bits bits, never trained on
    stop_at_exact: float | None = 1.0  # stop once held-out exact match reaches this
    seed: int = 0
    device: str = "auto"
    n_threads: int | None = None  # CPU threads; None: see recur.core.device.cpu_threads
    progress: bool = True  # a progress bar (never on the static page: recur.core.page)

    def rounds(self) -> int:
        """Rounds of the shortest training run (and of the held-out check)."""
        return self.n_rounds if self.n_rounds is not None else self.max_bits + 1

    def eval_rounds(self) -> int:
        """Rounds of the held-out check: the longest run the model was trained for."""
        return self.max_rounds if self.max_rounds is not None else self.rounds()

    def check(self) -> None:
        if min(self.n_steps, self.batch_size, self.eval_size, self.eval_every) < 1:
            raise ValueError(
                "n_steps, batch_size, eval_size and eval_every must be >= 1"
            )
        if not 1 <= self.min_bits <= self.max_bits:
            raise ValueError(
                f"need 1 <= min_bits <= max_bits, got {self.min_bits}, {self.max_bits}"
            )
        if self.max_rounds is not None and self.max_rounds < self.rounds():
            raise ValueError(
                f"max_rounds must be >= {self.rounds()}, got {self.max_rounds}"
            )
        if self.lr_decay not in ("none", "cosine"):
            raise ValueError(
                f"lr_decay must be 'none' or 'cosine', got {self.lr_decay!r}"
            )
        if not 0 <= self.chain_share <= 1:
            raise ValueError(f"chain_share must be in [0, 1], got {self.chain_share}")
        if not 0 <= self.chain_kill_share <= 1:
            share = self.chain_kill_share
            raise ValueError(f"chain_kill_share must be in [0, 1], got {share}")
        if not 1 <= self.loss_window <= self.rounds():
            raise ValueError(
                f"loss_window must be in 1..{self.rounds()}, got {self.loss_window}"
            )


HISTORY_COLUMNS = ["step", "loss", "exact", "pairs", "seconds"]


class GiveUp(Exception):
    """Raised by :func:`train`'s ``done`` check to stop a run that, by what the check
    saw, will not reach its target: :func:`train` returns what it has, ``gave_up``."""


@dataclass
class TrainResult:
    model: nn.Module
    history: pd.DataFrame  # one row per evaluation: HISTORY_COLUMNS
    seconds: float  # wall time of the whole run
    seconds_to_target: (
        float | None
    )  # when held-out exact match first reached the target
    interrupted: bool = False
    config: TrainConfig = field(default_factory=TrainConfig)
    gave_up: bool = False  # a ``done`` check raised :class:`GiveUp`

    @property
    def reached(self) -> bool:
        """Whether held-out exact match reached the target (``stop_at_exact``)."""
        return self.seconds_to_target is not None

    def seconds_to(self, target: float) -> float:
        """Seconds from the start until a check first measured at least ``target``
        held-out exact match (on the pairs that check measured: the 1,000-pair screen,
        or all of them once the screen reached ``stop_at_exact``, 100% when that is
        None); NaN if no check did. Any run, whatever made it stop."""
        hits = self.history[self.history["exact"] >= target]
        return float(hits["seconds"].iloc[0]) if len(hits) else float("nan")

    def words(self) -> str:
        """What the run did, for the page, derived from its history: when it reached
        the target on the held-out pairs, or how far it got."""
        last = self.history.iloc[-1]
        steps, pairs = int(last["step"]), int(last["pairs"])
        if self.gave_up:
            return f"gave up after {steps:,} steps (its check said it would not pass)"
        if self.reached:
            target = self.config.stop_at_exact
            share = "all" if target == 1.0 else f"{target:.0%} of the"
            return (
                f"added {share} {pairs:,} held-out pairs after {steps:,} steps "
                f"({self.seconds_to_target:.1f} s on this machine)"
            )
        return (
            f"did not reach its target in {steps:,} steps; at its last check it added "
            f"{last['exact']:.2%} of {pairs:,} held-out pairs"
        )

    def table(self, rows: int = 12) -> pd.DataFrame:
        """Every check of the history as a reader wants it: exact match in per cent,
        the number of held-out pairs checked, seconds to one decimal. A longer history
        is thinned to ``rows`` evenly spaced checks, the first and the last kept."""
        if rows < 2:
            raise ValueError(f"rows must be >= 2 (the first and last), got {rows}")
        picks = np.linspace(0, len(self.history) - 1, rows).round().astype(int)
        shown = self.history.iloc[np.unique(picks) if len(self.history) else []]
        return pd.DataFrame(
            {
                "loss": shown["loss"].map("{:.4f}".format).to_numpy(),
                "held-out exact": shown["exact"].map("{:.2%}".format).to_numpy(),
                "pairs checked": shown["pairs"].map("{:,}".format).to_numpy(),
                "seconds": shown["seconds"].map("{:.1f}".format).to_numpy(),
            },
            index=pd.Index(shown["step"].to_numpy(), name="step"),
        )


def aux_scale(step: int, warmup: int) -> float:
    """Weight of the model's extra loss at ``step`` (1-based): linear from 0 to 1 over
    ``warmup`` steps, then 1."""
    return 1.0 if warmup <= 0 else min(1.0, (step - 1) / warmup)


def step_size(step: int, cfg: TrainConfig) -> float:
    """The step size at ``step`` (1-based): ``cfg.lr``, or with ``lr_decay="cosine"``
    ``lr * (1 + cos(pi * (step - 1) / n_steps)) / 2``, from ``lr`` towards 0."""
    if cfg.lr_decay == "none":
        return cfg.lr
    return cfg.lr * (1 + math.cos(math.pi * (step - 1) / cfg.n_steps)) / 2


def attempt_seeds(seed: int, max_attempts: int) -> list[int]:
    """The seeds of a training procedure that starts again when its check never
    passes (Chapters 2, 6 and 7): ``seed``, then ``seed + RESTART_STRIDE``,
    ``seed + 2 * RESTART_STRIDE``, ..., ``max_attempts`` in all
    (:data:`recur.core.seeds.RESTART_STRIDE`)."""
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
    return [seed + RESTART_STRIDE * attempt for attempt in range(max_attempts)]


def restarting(
    train_once: Callable[[int], Any],
    passed: Callable[[Any], bool],
    seed: int,
    max_attempts: int,
) -> tuple[Any, int, float]:
    """A training procedure that starts again from a new seed when its check never
    passes (Chapters 2, 4, 6 and 7): ``train_once(s)`` for each ``s`` of
    :func:`attempt_seeds` until ``passed`` says yes of what it returned. The last
    run's result, the number of runs and the seconds of all of them."""
    start = time.perf_counter()
    seeds = attempt_seeds(seed, max_attempts)
    for attempt_seed in seeds:
        result = train_once(attempt_seed)
        if passed(result):
            break
    n_runs = seeds.index(attempt_seed) + 1
    return result, n_runs, time.perf_counter() - start
