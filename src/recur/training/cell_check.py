"""Chapter 2's training procedure for the learned cell.

The cell is trained on sums of at most 8 bits and read out after its 9 rounds. Its
check runs the held-out pairs, still 8 bits, through round :data:`STAY_ROUNDS` and asks
every one to be right after round 9 and after every round after it: a 1,024-bit sum
runs 1,025 rounds, and an answer that does not stay right fails there (chosen on seeds
600-619, the registry's "cell check"). Training goes on until a check passes; if none
does, it starts again from a new seed. Nothing wider than 8 bits is looked at. Chapters
4 and 7 train their models with the same check and restart (:func:`checked_training`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn

from recur.core.device import seed_everything
from recur.core.tasks import AdditionBatch
from recur.models.cell import LocalCell
from recur.training.config import TrainConfig, TrainResult, restarting
from recur.training.evaluate import evaluate
from recur.training.loop import heldout_pairs, train

STAY_ROUNDS = 64  # the check's held-out pairs run this many rounds (trained: 9)


def stays_right(
    model: nn.Module, batch: AdditionBatch, from_round: int, to_round: int = STAY_ROUNDS
) -> float:
    """Share of the sums of ``batch`` that are right after round ``from_round`` and
    after every round after it, through round ``to_round`` (rounds counted from 1)."""
    if not 1 <= from_round <= to_round:
        raise ValueError(
            f"need 1 <= from_round <= to_round, got {from_round} and {to_round}"
        )
    correct = evaluate(model, batch, to_round).correct  # (R, B)
    return float(correct[from_round - 1 :].all(dim=0).float().mean())


@dataclass
class CellCheck:
    """One check of :func:`train_cell`, made once every held-out pair was right after
    the trained rounds: the step, and the share of them still right through every
    round up to :data:`STAY_ROUNDS`."""

    step: int
    stays: float

    @property
    def passed(self) -> bool:
        return self.stays == 1.0


@dataclass
class CellRun:
    """What :func:`train_cell`, :func:`recur.chapters.ch7_fixed_points.train_deq` and
    :func:`recur.chapters.ch4_universal_transformer.train_local_ut` return: the model
    and training run of the last attempt, every check of every attempt, the number of
    attempts and the seconds of all. ``kept`` and ``share`` say what the check asks, for
    :meth:`words`; ``kept=""`` when it asks no more than every held-out pair right
    (Chapter 4's local UT)."""

    model: nn.Module
    run: TrainResult
    checks: list[CellCheck]
    attempts: int
    seconds: float
    kept: str = f"kept them right through round {STAY_ROUNDS}"
    share: str = f"stay right through round {STAY_ROUNDS}"

    @property
    def passed(self) -> bool:
        return self.run.reached  # the last attempt stopped on a passing check

    def words(self) -> str:
        """What happened, for the page: derived from the run, never assumed."""
        runs = "one training run" if self.attempts == 1 else f"{self.attempts} runs"
        if self.passed:
            pairs = int(self.run.history["pairs"].iloc[-1])
            steps = int(self.run.history["step"].iloc[-1])
            kept = f" and {self.kept}" if self.kept else ""
            return (
                f"added all {pairs:,} held-out pairs after {steps:,} steps{kept}, "
                f"in {runs} ({self.seconds:.1f} s on this machine)"
            )
        last = self.run.history.iloc[-1]
        failed = "passed no check" if self.kept else "missed held-out pairs"
        words = (
            f"{failed} in {runs}: after {int(last['step']):,} steps it adds "
            f"{last['exact']:.2%} of the {int(last['pairs']):,} held-out pairs checked"
        )
        if self.checks:
            words += f", and {self.checks[-1].stays:.2%} of them {self.share}"
        return words


def train_cell(seed: int = 0, max_attempts: int = 2, **overrides) -> CellRun:
    """Chapter 2's cell (:class:`LocalCell`, initial weights from ``seed``) trained on
    sums of at most 8 bits, stopping at the first check (every ``eval_every`` steps) at
    which every held-out pair is right after the trained rounds and stays right through
    :data:`STAY_ROUNDS` (:func:`stays_right`); if none passes, it starts again with the
    next of :func:`recur.training.config.attempt_seeds`, at most ``max_attempts`` runs.
    ``overrides`` go to :class:`TrainConfig` (``device``, ``progress``, ...)."""
    settings = {"max_bits": 8} | overrides
    # a lambda, not LocalCell itself: the class is looked up when each run starts
    return checked_training(
        lambda: LocalCell(), settings, stays_right_check, seed, max_attempts
    )


def stays_right_check(
    model: nn.Module, heldout: AdditionBatch, cfg: TrainConfig
) -> float:
    """:func:`train_cell`'s check: the share of the held-out pairs right after the
    trained rounds and every round after them, through :data:`STAY_ROUNDS`."""
    return stays_right(model, heldout, cfg.rounds())


def checked_training(
    make_model: Callable[[], nn.Module],
    settings: dict,
    check: Callable,
    seed: int,
    max_attempts: int,
    **words: str,
) -> CellRun:
    """Train ``make_model()`` (its initial weights from the run's seed) with
    ``settings`` for :class:`TrainConfig`, stopping at the first check at which every
    held-out pair is right and ``check(model, heldout, cfg)`` returns 1; if none passes,
    start again with the next of :func:`recur.training.config.attempt_seeds`, at most
    ``max_attempts`` runs. ``words`` (``kept``, ``share``) go to :class:`CellRun`."""
    checks: list[CellCheck] = []

    def train_once(attempt_seed: int) -> tuple:
        cfg = TrainConfig(**(settings | {"seed": attempt_seed, "stop_at_exact": None}))
        seed_everything(attempt_seed)  # the initial weights come from this seed
        model = make_model()
        return model, train(model, cfg, _checking(check, cfg, checks))

    (model, run), n_runs, seconds = restarting(
        train_once, lambda result: result[1].reached, seed, max_attempts
    )
    return CellRun(model, run, checks, n_runs, seconds, **words)


def _checking(check: Callable, cfg: TrainConfig, checks: list) -> Callable:
    """The ``done`` of one run of :func:`checked_training`: ``check`` once every
    held-out pair is right; each check is appended to ``checks``."""
    heldout, _ = heldout_pairs(cfg)  # the pairs training keeps out and checks

    def done(model: nn.Module, row: dict) -> bool:
        if row["pairs"] < len(heldout) or row["exact"] < 1.0:
            return False  # not every held-out pair right yet (or only the screen)
        checks.append(CellCheck(int(row["step"]), check(model, heldout, cfg)))
        return checks[-1].passed

    return done
