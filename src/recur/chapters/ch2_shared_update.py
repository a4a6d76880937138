"""Chapter 2: what the learned shared update gets right, round by round and width by
width, the chain experiment, and its training procedure (:func:`train_cell`). Pure
functions of a model, sizes and seeds; the plots are in :mod:`recur.views`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn

from recur.core.carry import parallel_add
from recur.core.tasks import (
    AdditionBatch,
    chain_batch,
    long_chain_batch,
    random_batch,
)
from recur.models.cell import LocalCell
from recur.models.running import learned_readouts
from recur.training import holding
from recur.training.checked import (
    STAYS_RIGHT,
    CheckedRun,
    checked_training,
    stays_right,
)
from recur.training.config import TrainConfig
from recur.training.evaluate import evaluate
from recur.views.text import listed


def rule_exact_by_round(batch: AdditionBatch, n_rounds: int) -> torch.Tensor:
    """Exact match of Chapter 1's rule after rounds 1..R: right once carries arrived."""
    needed = batch.distance.max(dim=1).values  # (B,) the longest chain of each sum
    rounds = torch.arange(1, n_rounds + 1)  # (R,)
    return (needed[None, :] <= rounds[:, None]).float().mean(dim=1)  # (R,)


def accuracy_by_round(
    model: nn.Module, batch: AdditionBatch, n_rounds: int
) -> pd.DataFrame:
    """Exact match after every round, for the learned model and for the exact rule."""
    learned = evaluate(model, batch, n_rounds)
    return pd.DataFrame(
        {
            "learned": learned.exact.numpy(),
            "exact rule": rule_exact_by_round(batch, n_rounds).numpy(),
            "learned bit accuracy": learned.bit.numpy(),
        },
        index=pd.RangeIndex(1, n_rounds + 1, name="round"),
    )


def running_example_table(
    models: dict[str, nn.Module], a: str, b: str, rounds: list[int]
) -> pd.DataFrame:
    """One sum through the exact rule and each model: the readout (MSB first, carry-out
    bit included) after each of ``rounds``, marked ✓ where it is the true sum."""
    if not rounds or min(rounds) < 1:
        raise ValueError(f"rounds must be a non-empty list of rounds >= 1: {rounds}")
    n_rounds = max(rounds)
    rule = parallel_add(a, b, n_rounds)
    truth = rule.true_sum
    columns = {"exact rule": [str(rule.carry_out(r)) + rule.readout(r) for r in rounds]}
    for name, model in models.items():
        readouts = learned_readouts(model, rule.a, rule.b, n_rounds)  # rounds 1..R
        columns[name] = [readouts[r - 1] for r in rounds]
    table = pd.DataFrame(columns, index=pd.Index(rounds, name="after round"))
    return table.map(lambda bits: f"{bits} {'✓' if bits == truth else '✗'}")


def first_right_round(table: pd.DataFrame) -> dict[str, int | None]:
    """For each column of :func:`running_example_table`, the first listed round from
    which every listed readout is right (``None`` if the last one is wrong)."""
    first = {}
    for name, column in table.items():
        right = column.str.endswith("✓").to_numpy()  # (rounds,)
        wrong = np.flatnonzero(~right)
        last_wrong = wrong[-1] + 1 if len(wrong) else 0
        first[name] = None if last_wrong == len(right) else int(table.index[last_wrong])
    return first


def exact_by_round_and_width(
    model: nn.Module, sizes: dict[int, int], seed: int = 0
) -> tuple[pd.DataFrame, dict[int, int]]:
    """Exact match after every round 1 .. n + 1 on random ``n``-bit sums (``sizes``:
    width -> number of sums, seeded ``seed + n``): a long table (bits, round, exact),
    and the longest carry chain in each width's sample."""
    frames, longest = [], {}
    for n_bits, n_sums in sizes.items():
        batch = random_batch(n_sums, n_bits, seed=seed + n_bits)
        acc = evaluate(model, batch, n_bits + 1).exact  # (n + 1,)
        rounds = np.arange(1, n_bits + 2)
        frames.append(pd.DataFrame({"bits": n_bits, "round": rounds, "exact": acc}))
        longest[n_bits] = int(batch.distance.max())
    return pd.concat(frames, ignore_index=True), longest


def length_generalization(
    model: nn.Module, sizes: dict[int, int], rounds: dict[str, float], seed: int = 0
) -> pd.DataFrame:
    """Exact match on random ``n``-bit sums (``sizes``: width -> number of sums), after
    ``factor * (n + 1)`` rounds (at most n + 1) for each named factor in ``rounds``."""
    curves, longest = exact_by_round_and_width(model, sizes, seed)
    return length_table(curves, longest, sizes, rounds)


def length_table(
    curves: pd.DataFrame,
    longest: dict[int, int],
    sizes: dict[int, int],
    rounds: dict[str, float],
) -> pd.DataFrame:
    """The :func:`length_generalization` table, read off curves already measured."""
    rows = []
    for n_bits, n_sums in sizes.items():
        exact = curves[curves["bits"] == n_bits].set_index("round")["exact"]
        row = {"bits": n_bits, "sums": n_sums, "longest chain": longest[n_bits]}
        for name, f in rounds.items():
            r = min(n_bits + 1, max(1, round(f * (n_bits + 1))))
            row |= {f"rounds: {name}": r, f"exact: {name}": float(exact[r])}
        rows.append(row)
    return pd.DataFrame(rows).set_index("bits")


def exact_by_width(
    model: nn.Module,
    widths: list[int],
    n_sums: int,
    n_rounds: Callable[[int], int],
    seed: int = 0,
    long_chains: int = 0,
) -> pd.DataFrame:
    """Exact match of a fixed-round model after ``n_rounds(n)`` rounds on ``n_sums``
    random n-bit sums (seeded ``seed + n``) and, with ``long_chains``, on that many sums
    whose chains span most of the width: the same sums ``act_length_table`` draws."""
    rows = []
    for n_bits in widths:
        row = {"bits": n_bits, "rounds": n_rounds(n_bits)}
        row["exact"] = float(
            evaluate(
                model, random_batch(n_sums, n_bits, seed=seed + n_bits), row["rounds"]
            ).exact[-1]
        )
        if long_chains:
            hard = long_chain_batch(long_chains, n_bits, seed=seed + n_bits)
            row["exact, long chains"] = float(
                evaluate(model, hard, row["rounds"]).exact[-1]
            )
        rows.append(row)
    return pd.DataFrame(rows).set_index("bits")


@dataclass(frozen=True)
class ChainExperiment:
    """The experiment of "Why is the same Transformer worth running one more
    round?": fixed width, growing carry chains, accuracy per round."""

    n_bits: int
    chain_lengths: list[int]
    exact: np.ndarray  # (L, R): exact match after round r, for each chain length
    first_right: np.ndarray  # (L,): first round with every sum right (-1: never)
    stays_right: np.ndarray  # (L,): of the sums once right, the share that stay right
    right_at_end: np.ndarray  # (L,): exact match after the last round

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "first round all right": self.first_right,
                "exact rule needs": np.maximum(self.chain_lengths, 1),
                "once right, stays right": self.stays_right,
                f"right after {self.exact.shape[1]} rounds": self.right_at_end,
            },
            index=pd.Index(self.chain_lengths, name="longest chain"),
        )


def _once_right_stays_right(correct: torch.Tensor) -> float:
    """Share of the examples (columns) that, once right, stay right in later rounds."""
    ever = correct.any(dim=0)  # (B,)
    first = correct.float().argmax(dim=0)  # (B,) first right round (0 if never)
    rounds = torch.arange(correct.shape[0])[:, None]  # (R, 1)
    stable = (correct | (rounds < first[None, :])).all(dim=0)  # (B,)
    return float((stable & ever).sum() / ever.sum().clamp(min=1))


def chain_experiment(
    model: nn.Module,
    n_bits: int,
    chain_lengths: list[int],
    n_sums: int,
    max_rounds: int,
    seed: int = 0,
) -> ChainExperiment:
    """Accuracy per round for sums whose longest carry chain has each given length."""
    exact, first, stays = [], [], []
    for length in chain_lengths:
        batch = chain_batch(n_sums, n_bits, length, seed=seed + length)
        correct = evaluate(model, batch, max_rounds).correct  # (R, B)
        exact.append(correct.float().mean(dim=1).numpy())
        all_right = correct.all(dim=1).numpy()  # (R,)
        first.append(int(np.argmax(all_right)) + 1 if all_right.any() else -1)
        stays.append(_once_right_stays_right(correct))
    exact = np.stack(exact)  # (L, R)
    return ChainExperiment(
        n_bits,
        list(chain_lengths),
        exact,
        np.array(first),
        np.array(stays),
        exact[:, -1],
    )


def first_right_table(runs: list[ChainExperiment]) -> pd.DataFrame:
    """First round with every sum right, per chain length: exact rule, then each run."""
    lengths = runs[0].chain_lengths
    rows = {"exact rule": np.maximum(lengths, 1)}
    rows |= {f"seed {k}": run.first_right for k, run in enumerate(runs)}
    table = pd.DataFrame(rows, index=pd.Index(lengths, name="longest chain")).T
    table.index.name = "first round with all sums right"
    return table


def rounds_behind_rule(run: ChainExperiment) -> np.ndarray:
    """For each chain length of ``run``, the first round with every sum right minus
    the rounds the exact rule needs (at least 1): negative where the cell is ahead of
    the rule. A chain length that never had every sum right raises."""
    first = np.asarray(run.first_right)  # (L,)
    if (first < 1).any():
        raise ValueError("some chain length never had every sum right")
    return first - np.maximum(run.chain_lengths, 1)  # (L,)


def chain_seed_words(run: ChainExperiment, label: str) -> str:
    """What one cell of the chain experiment does beside the exact rule, as sentences
    for the page derived from its first-right rounds: when it waits for every carry,
    how many rounds behind the rule; when it is ahead on some chains, which, with the
    default it must then assume (a sum right before its carry can have arrived is a
    guess), and where it is behind."""
    lengths, first = list(run.chain_lengths), np.asarray(run.first_right)  # (L,)
    if (first < 1).any():
        missed = [lengths[k] for k in np.flatnonzero(first < 1)]
        return f"{label} never had every sum right for chains of {_listed(missed)}."
    behind = rounds_behind_rule(run)  # (L,)
    if (behind >= 0).all():
        return f"{label} waits for the carry, as the rule does, {_lag(behind)}."
    ahead = np.flatnonzero(behind < 0)  # indices of chain lengths
    longest = max(ahead, key=lambda k: lengths[k])
    early, rounds = _listed([lengths[k] for k in ahead]), int(first[longest])
    words = (
        f"{label} is ahead of the rule on chains of {early}: every sum whose longest "
        f"chain is {lengths[longest]} is right after {rounds} "
        f"round{'s' * (rounds != 1)}, before the carry can have arrived. So its "
        "propagating positions assume that a carry is coming until a kill below says "
        "otherwise."
    )
    late = [lengths[k] for k in np.flatnonzero(behind > 0)]
    if late:
        words += f" It is behind the rule on chains of {_listed(late)}."
    return words


def _lag(behind: np.ndarray) -> str:
    """Rounds behind the rule, none of them negative, as words."""
    low, high = int(behind.min()), int(behind.max())
    if high == 0:
        return "right in the same round as the rule on every chain length"
    count = "at most " if low == 0 else ("" if low == high else f"{low} to ")
    return f"{count}{high} round{'s' * (high != 1)} behind it"


def _listed(numbers: list[int]) -> str:
    """A list of numbers as words: "8", "8 and 16", "1, 2 and 4"."""
    return listed([f"{n}" for n in numbers])


def train_cell(seed: int = 0, max_attempts: int = 3, **overrides) -> CheckedRun:
    """Chapter 2's training procedure: the cell (:class:`LocalCell`, initial weights
    from ``seed``) trained on sums of at most 8 bits, read out after its 9 rounds,
    stopping at the first check (every ``eval_every`` steps) at which every held-out
    pair is right after the trained rounds and stays right through
    :data:`recur.training.checked.STAY_ROUNDS` (:func:`stays_right_check`): a 1,024-bit
    sum runs 1,025 rounds, and an answer that does not stay right fails there (chosen
    on seeds 600-619, the registry's "cell check"). If no check passes, it starts again
    with the next of :func:`recur.training.config.attempt_seeds`, at most
    ``max_attempts`` runs: three, since a single run passes no check on about one
    seed in five (4 of the library's seeds 100-120, 4 of 19 of the page's seeds
    100-119), so that with two runs one seed in twenty or more failed both. Nothing
    wider than 8 bits is looked at. ``overrides`` go to :class:`TrainConfig`
    (``device``, ``progress``, ...)."""
    settings = {"max_bits": 8} | overrides
    # a lambda, not LocalCell itself: the class is looked up when each run starts
    return checked_training(
        lambda: LocalCell(),
        settings,
        stays_right_check,
        seed,
        max_attempts,
        STAYS_RIGHT,
    )


def train_holding_cell(
    seed: int = 0,
    max_attempts: int = holding.MAX_ATTEMPTS,
    without: tuple[str, ...] = (),
    **overrides,
) -> CheckedRun:
    """:func:`train_cell`'s procedure (its check, and restarts) for the cell that
    holds: the pieces of :mod:`recur.training.holding` but those named in ``without``
    (``"snap"``, ``"hold"``, ``"chains"``), and at most
    :data:`recur.training.holding.MAX_ATTEMPTS` runs."""
    options = holding.model_options(without)
    settings = {"max_bits": 8} | holding.training_options(without) | overrides
    return checked_training(
        lambda: LocalCell(**options),
        settings,
        stays_right_check,
        seed,
        max_attempts,
        STAYS_RIGHT,
    )


def stays_right_check(
    model: nn.Module, heldout: AdditionBatch, cfg: TrainConfig
) -> float:
    """:func:`train_cell`'s check: the share of the held-out pairs right after the
    trained rounds and every round after them, through
    :data:`recur.training.checked.STAY_ROUNDS`."""
    return stays_right(model, heldout, cfg.rounds())
