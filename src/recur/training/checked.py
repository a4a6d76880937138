"""Training with a check and restarts, as Chapters 2 and 7 train their cells (which
chapters restart, and how, is said once, at :func:`recur.training.config.restarting`):
a run stops at the first check that passes; if none does, training starts again from
the next seed of :func:`recur.training.config.attempt_seeds`. Each chapter brings its
own check (Chapter 2's: held-out answers that stay right through :data:`STAY_ROUNDS`).
Chapter 6's procedure, with its checkpoints and giving up, is in its chapter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn

from recur.core.device import seed_everything
from recur.core.tasks import AdditionBatch
from recur.training.config import TrainConfig, TrainResult, restarting
from recur.training.evaluate import evaluate
from recur.training.loop import heldout_pairs, train

STAY_ROUNDS = 64  # Chapter 2's check runs the held-out pairs this many rounds


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
class Check:
    """One check of :func:`checked_training`, made once every held-out pair was right:
    the step, and the share of the held-out pairs the chapter's check found right."""

    step: int
    stays: float

    @property
    def passed(self) -> bool:
        return self.stays == 1.0


@dataclass(frozen=True)
class ExtraCheck:
    """What a check asks beyond every held-out pair right, in the words of
    :meth:`CheckedRun.words`: what a passing run did (``kept``) and what the share of a
    failing run's last check counts (``share``)."""

    kept: str
    share: str


STAYS_RIGHT = ExtraCheck(
    kept=f"kept them right through round {STAY_ROUNDS}",
    share=f"stay right through round {STAY_ROUNDS}",
)


@dataclass
class CheckedRun:
    """What a trainer with a check and restarts returns: the model and training run of
    the last attempt, every check of every attempt, the number of attempts and the
    seconds of all. ``extra_check`` says what the check asks beyond every held-out pair
    right; ``None`` when it asks nothing more (Chapter 4's local UT)."""

    model: nn.Module
    run: TrainResult
    checks: list[Check]
    attempts: int
    seconds: float
    extra_check: ExtraCheck | None

    @property
    def passed(self) -> bool:
        return self.run.reached  # the last attempt stopped on a passing check

    def words(self) -> str:
        """What happened, for the page: derived from the run, never assumed."""
        runs = "one training run" if self.attempts == 1 else f"{self.attempts} runs"
        extra = self.extra_check
        if self.passed:
            pairs = int(self.run.history["pairs"].iloc[-1])
            steps = int(self.run.history["step"].iloc[-1])
            kept = f" and {extra.kept}" if extra else ""
            return (
                f"added all {pairs:,} held-out pairs after {steps:,} steps{kept}, "
                f"in {runs} ({self.seconds:.1f} s on this machine)"
            )
        last = self.run.history.iloc[-1]
        failed = "passed no check" if extra else "missed held-out pairs"
        words = (
            f"{failed} in {runs}: after {int(last['step']):,} steps it adds "
            f"{last['exact']:.2%} of the {int(last['pairs']):,} held-out pairs checked"
        )
        if extra and self.checks:
            words += f", and {self.checks[-1].stays:.2%} of them {extra.share}"
        return words


def checked_training(
    make_model: Callable[[], nn.Module],
    settings: dict,
    check: Callable,
    seed: int,
    max_attempts: int,
    extra_check: ExtraCheck,
) -> CheckedRun:
    """Train ``make_model()`` (its initial weights from the run's seed) with
    ``settings`` for :class:`TrainConfig`, stopping at the first check at which every
    held-out pair is right and ``check(model, heldout, cfg)`` returns 1; if none passes,
    start again with the next of :func:`recur.training.config.attempt_seeds`, at most
    ``max_attempts`` runs. ``extra_check`` words what ``check`` asks."""
    checks: list[Check] = []

    def train_once(attempt_seed: int) -> tuple:
        cfg = TrainConfig(**(settings | {"seed": attempt_seed, "stop_at_exact": None}))
        seed_everything(attempt_seed)  # the initial weights come from this seed
        model = make_model()
        return model, train(model, cfg, _checking(check, cfg, checks))

    (model, run), n_runs, seconds = restarting(
        train_once, lambda result: result[1].reached, seed, max_attempts
    )
    return CheckedRun(model, run, checks, n_runs, seconds, extra_check)


def _checking(check: Callable, cfg: TrainConfig, checks: list) -> Callable:
    """The ``done`` of one run of :func:`checked_training`: ``check`` once every
    held-out pair is right; each check is appended to ``checks``."""
    heldout, _ = heldout_pairs(cfg)  # the pairs training keeps out and checks

    def done(model: nn.Module, row: dict) -> bool:
        if row["pairs"] < len(heldout) or row["exact"] < 1.0:
            return False  # not every held-out pair right yet (or only the screen)
        checks.append(Check(int(row["step"]), check(model, heldout, cfg)))
        return checks[-1].passed

    return done
