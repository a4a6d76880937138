"""Chapter 2's skeptic's sums: how a cell's answer fades on a sum that asks a state to
hold for hundreds of rounds, round by round and position by position, and the counts
of the skeptic's study (``skeptic_report.csv``) in words."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from recur.core.hardest import batch_waits, pair_from_kinds, skeptic_sums
from recur.core.tasks import batch_from_strings
from recur.models.deq import EquilibriumCell
from recur.models.running import eval_mode, model_device


@dataclass
class Walk:
    """One sum run round by round from zeros: per round and position whether the
    readout was right, and how far the state moved (the Euclidean length of
    s_r - s_{r-1}); rounds 1..R, positions LSB first (the carry out last)."""

    right: np.ndarray  # (R, n + 1) bool
    change: np.ndarray  # (R, n + 1) float: |s_r - s_{r-1}|, round 1 from zeros
    wait: np.ndarray  # (n + 1,) rounds each position waits for its carry-in

    @property
    def n_rounds(self) -> int:
        return self.right.shape[0]

    def all_right(self) -> np.ndarray:
        """(R,) bool: every position right after round r."""
        return self.right.all(axis=1)


@torch.no_grad()
def walk(model, kinds: str, n_rounds: int) -> Walk:
    """Run ``model`` (a cell, or a DEQ cell along its solver's plain iteration) on the
    sum whose positions are ``kinds`` (MSB first) for ``n_rounds`` rounds."""
    batch = batch_from_strings([pair_from_kinds(kinds)])
    cell = model.cell if isinstance(model, EquilibriumCell) else model
    target = batch.target[0].bool().to(model_device(cell))  # (n + 1,)
    right, change = [], []
    with eval_mode(cell):
        problem = cell.embed(batch.bits.to(model_device(cell)))  # (1, n + 1, d)
        state = torch.zeros_like(problem) if cell.inject else problem
        for _ in range(n_rounds):
            state, before = cell.step(state, problem), state  # (1, n + 1, d)
            right.append((cell.readout(state)[0, :, 0] > 0) == target)  # (n + 1,)
            change.append((state - before)[0].norm(dim=-1))  # (n + 1,)
    wait = batch_waits(batch)[0]  # (n + 1,)
    right, change = torch.stack(right).cpu(), torch.stack(change).cpu()
    return Walk(right.numpy(), change.numpy(), wait)


def fade_words(w: Walk, read_round: int) -> str:
    """What the walk shows, derived from it, its events in the order of their rounds:
    when the answer was first all right, whether it was wrong when read, and whether
    and when it turned wrong after being right."""
    ok = w.all_right()
    if not ok.any():
        return f"is never right in {w.n_rounds:,} rounds"
    first = int(np.argmax(ok)) + 1
    events = [(first, f"is first right after round {first:,}")]
    if not ok[read_round - 1]:
        events.append((read_round, f"is wrong when read after round {read_round:,}"))
    later = np.flatnonzero(~ok[first - 1 :])
    if len(later):
        turn = first + int(later[0])
        events.append((turn, f"turns wrong again after round {turn:,}"))
    events.sort(key=lambda event: event[0])
    words = [text for _, text in events]
    if not ok[-1]:
        words.append(f"is still wrong after round {w.n_rounds:,}")
    elif not len(later):
        words.append(f"stays right through round {w.n_rounds:,}")
    else:
        words.append(f"is right again after round {w.n_rounds:,}")
    return ", ".join(words[:-1]) + " and " + words[-1]


def turned_wrong(w: Walk) -> bool:
    """Whether the walk's answer, once all right, was wrong in some later round."""
    ok = w.all_right()
    return bool(ok.any() and not ok[int(np.argmax(ok)) :].all())


def guessed_wrong(w: Walk) -> bool:
    """Whether some position's bit was wrong in a round before its news could arrive
    (before its wait ran out): a guess, made while waiting, that the news corrected."""
    rounds = np.arange(1, w.n_rounds + 1)[:, None]  # (R, 1)
    return bool((~w.right & (rounds < w.wait[None, :])).any())


def guess_words(no_carry: Walk, carry: Walk) -> str:
    """What a cell guesses while it waits, from its walks through a sum where no carry
    comes and one where a carry crosses every position: wrong early on the first means
    it guessed a carry, on the second that it guessed none."""
    if guessed_wrong(no_carry) and guessed_wrong(carry):
        return "each way: wrong early on both"
    if guessed_wrong(no_carry):
        return '"a carry is coming"'
    if guessed_wrong(carry):
        return '"no carry"'
    return "nothing wrong: right before its news on both"


def drift_words(walks: list[Walk]) -> str:
    """Whether drift turned any of ``walks`` wrong after it was right, as a sentence
    about the figure above it."""
    turned = sum(turned_wrong(w) for w in walks)
    if not turned:
        return (
            "Drift does not show here: in the figure no answer of this cell turns"
            " wrong after it was right."
        )
    return (
        f"Drift turned {turned} of this cell's {len(walks)} answers in the figure wrong"
        " after they were right."
    )


def failing_seed(table: pd.DataFrame, model_name: str, n_bits: int, sum_name: str):
    """The first seed whose model ``model_name`` failed ``sum_name`` at ``n_bits`` (or
    None)."""
    rows = table[(table["model"] == model_name) & (table["n_bits"] == n_bits)]
    hit = rows[rows["failed"].fillna("").str.split("; ").map(lambda f: sum_name in f)]
    return None if hit.empty else int(hit["seed"].iloc[0])


# The two sums the page follows: no carry under a full run, and a carry through it
FADE_SUMS = ("1 + 111…10", "all ones + 1")


def fade_seed(table: pd.DataFrame, n_bits: int = 64) -> int:
    """A training seed whose Chapter 2 cell failed one of :data:`FADE_SUMS` at
    ``n_bits`` in the skeptic's study (the first such), else the first that failed any
    sum, else 0."""
    for name in FADE_SUMS:
        seed = failing_seed(table, "Chapter 2's cell", n_bits, name)
        if seed is not None:
            return seed
    rows = table[
        (table["model"] == "Chapter 2's cell") & (table["passed"] < table["sums"])
    ]
    return int(rows["seed"].iloc[0]) if len(rows) else 0


def fade_walks(models: dict, n_bits: int, n_rounds: int) -> dict[str, Walk]:
    """Each model (by name) walked through each of :data:`FADE_SUMS` at ``n_bits``
    bits, keyed "sum, model"."""
    sums = skeptic_sums(n_bits)
    kinds = dict(zip(sums.names, sums.kinds, strict=True))
    return {
        f"{name}, {who}": walk(model, kinds[name], n_rounds)
        for name in FADE_SUMS
        for who, model in models.items()
    }
