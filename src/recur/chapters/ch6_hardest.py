"""Chapter 6's model on the hardest sums (:mod:`recur.core.hardest`): whether each
comes out right, how many rounds past its carry a position halts, and when its answer
first turns right."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from recur.chapters.ch6_measures import ponder_by_position
from recur.core.hardest import batch_waits, hardest_sums
from recur.core.tasks import AdditionBatch, twice_width_plus_one
from recur.models.act import act_loop
from recur.models.cell import check_bits_tensor
from recur.models.running import eval_mode, model_device
from recur.models.ut import UniversalTransformer
from recur.training.holds import Holds

HARDEST_RIGHT = "hardest sums right"
HARDEST_PAST = "rounds past the carry, hardest sums"
HARDEST_NEWS = "rounds past the carry, hardest sums, answer first right"
HARDEST_WRONG = "hardest sums wrong"


def hardest_table(
    model: UniversalTransformer, n_bits: int, cap: int, news: bool = True
) -> pd.DataFrame:
    """Each of the hardest ``n_bits``-bit sums (:func:`recur.core.hardest.hardest_sums`)
    run at the step cap ``cap``: whether it came out right; the most rounds any of its
    positions ran past the round its carry-in could be known (steps minus
    :meth:`~recur.core.hardest.HardestSums.wait`; 0 or 1 is on time); and the most
    rounds past that round at which a position's answer was first right
    (:func:`first_right_round` of :func:`readouts_by_round`; with ``news`` only, as
    it runs every sum to the last round). One row each."""
    hard = hardest_sums(n_bits)
    wait = hard.wait()  # (B, n)
    steps, right = ponder_by_position(model, hard.batch, cap)
    table = pd.DataFrame(
        {
            "right": right.astype(bool),
            "rounds past": (steps - wait).max(axis=1).astype(int),
        },
        index=pd.Index(hard.names, name="sum"),
    )
    if news:
        logits = readouts_by_round(model, hard.batch.bits, cap)  # (R, B, n)
        first = first_right_round((logits > 0).float() == hard.batch.target[None])
        table["first right past"] = (first - wait).max(axis=1).astype(int)
    return table


def hardest_columns(model, n_bits: int, cap: int, news: bool) -> dict:
    """A seed study's columns for the hardest sums: whether every one was
    right, the most rounds past the carry on any (halted, and answer first right),
    and the names of the wrong ones."""
    table = hardest_table(model, n_bits, cap, news)
    columns = {
        HARDEST_RIGHT: bool(table["right"].all()),
        HARDEST_PAST: int(table["rounds past"].max()),
        HARDEST_WRONG: "; ".join(table.index[~table["right"]]),
    }
    if news:
        columns[HARDEST_NEWS] = int(table["first right past"].max())
    return columns


@torch.no_grad()
def readouts_by_round(
    model: UniversalTransformer, bits: torch.Tensor, max_steps: int
) -> torch.Tensor:
    """An ACT model's run as its ``forward`` makes it, with the readout's logits of
    each position's state after each round (R, B, n): where the carry's news is in
    each round. A halted position keeps its state, so its readout stays. On the
    model's device, back on the CPU."""
    bits = bits.to(model_device(model))
    logits = []

    def recorded(state: torch.Tensor, r: int) -> torch.Tensor:
        new = step(state, r)  # (B, n, d)
        logits.append(model.readout(new).squeeze(-1)[..., real].cpu())  # (B, n)
        return new

    with eval_mode(model):
        state, step, real = model.prepare(bits, max_steps)  # H^0, the round, the slice
        eps = model.options.halting.eps
        result = act_loop(recorded, state, model.halting, max_steps, eps)
    held = result.halting[..., real].cpu() == 0  # (R, B, n): halted before round r
    frozen = torch.stack(logits)  # (R, B, n)
    for r in range(1, len(frozen)):  # a halted position's answer is its last one
        frozen[r] = torch.where(held[r], frozen[r - 1], frozen[r])
    return frozen


def first_right_round(right: np.ndarray) -> np.ndarray:
    """From whether each position's answer is right after rounds 1..R (R, B, n): the
    first round it is right (R + 1 where it never is). Where a carry comes, the
    answer before its news is wrong, so this is the round the news arrived."""
    right = np.asarray(right, dtype=bool)  # (R, B, n)
    return np.where(right.any(axis=0), np.argmax(right, axis=0) + 1, len(right) + 1)


def hardest_summary(model: UniversalTransformer, widths: list[int]) -> pd.DataFrame:
    """Per width, the model on its hardest sums (:func:`hardest_table`, cap 2(n + 1)):
    how many came out right, of how many, and the most rounds past the carry."""
    rows = {}
    for n_bits in widths:
        table = hardest_table(model, n_bits, twice_width_plus_one(n_bits), news=False)
        rows[n_bits] = {
            "right": int(table["right"].sum()),
            "of": len(table),
            "most rounds past the carry": int(table["rounds past"].max()),
        }
    return pd.DataFrame(rows).T.rename_axis("bits")


ON_TIME = 1  # rounds past its wait a position may halt and still be on time


def act_holds(model: UniversalTransformer, batch: AdditionBatch) -> Holds:
    """Chapter 6's reading of its model on the skeptic's sums: ACT at the cap
    ``2 (n + 1)``, an answer right when every position is, and on time (``settled``
    here) when no position halts more than :data:`ON_TIME` rounds past its wait. A
    halted position's state no longer changes, so an answer right when read holds:
    ``held`` is ``right``, and ``hold_rounds`` 0."""
    check_bits_tensor(batch.bits)
    n_positions = batch.bits.shape[1]
    steps, right = ponder_by_position(model, batch, 2 * n_positions)  # (B, n + 1)
    past = steps - batch_waits(batch)  # (B, n + 1)
    right = torch.from_numpy(right)  # (B,)
    return Holds(
        read_round=torch.from_numpy(steps.max(axis=1)).long(),
        right=right,
        held=right.clone(),
        settled=torch.from_numpy((past <= ON_TIME).all(axis=1)),
        last_wrong=torch.zeros(past.shape, dtype=torch.long),
        hold_rounds=0,
    )
