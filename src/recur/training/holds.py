"""Whether a cell's answer holds: the skeptic's reading of Chapters 2, 3 and 7's cells.

A cell is read after ``n + 1`` rounds of an ``n``-bit sum (Chapter 2), and a DEQ cell
where its solver settles (Chapter 7). An answer that is right then must also *stay*
right: :func:`cell_holds` and :func:`deq_holds` run the loop on, round by round,
without keeping every round's readout (a 1,024-bit sum held 1,000 rounds would need
two million readouts per sum), and report per sum whether the answer was right when
read and stayed right through ``hold_rounds`` more rounds, and per position the last
round it was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from recur.core.tasks import AdditionBatch
from recur.models.cell import LocalCell, check_bits_tensor
from recur.models.deq import EquilibriumCell
from recur.models.running import eval_mode, model_device

HOLD_ROUNDS = 1000  # rounds an answer must stay right after it is read


@dataclass
class Holds:
    """Per sum of a batch: the round its answer was read, whether it was right then,
    whether it stayed right through ``hold_rounds`` more rounds, whether the state had
    settled when read (always True for a cell read after a count of rounds), and per
    position the last round its bit was wrong (0: never)."""

    read_round: torch.Tensor  # (B,) int
    right: torch.Tensor  # (B,) bool: right when read
    held: torch.Tensor  # (B,) bool: right when read and every round after
    settled: torch.Tensor  # (B,) bool
    last_wrong: torch.Tensor  # (B, n) int: last round the bit was wrong, 0 if never
    hold_rounds: int

    @property
    def passed(self) -> torch.Tensor:
        """(B,) bool: right when read, settled, and held."""
        return self.right & self.held & self.settled


def _check(batch: AdditionBatch, hold_rounds: int) -> None:
    check_bits_tensor(batch.bits)
    if isinstance(hold_rounds, bool) or not isinstance(hold_rounds, int):
        raise ValueError(f"hold_rounds must be a whole number, got {hold_rounds!r}")
    if hold_rounds < 0:
        raise ValueError(f"hold_rounds must be >= 0, got {hold_rounds}")


def _relative_change(new: torch.Tensor, old: torch.Tensor) -> torch.Tensor:
    """(B,) |f(z) - z| / |f(z)| per sum, as Chapter 7's solver measures it."""
    step = (new - old).flatten(1).norm(dim=1)  # (B,)
    return step / (new.flatten(1).norm(dim=1) + 1e-12)


@torch.no_grad()
def _walk(cell: LocalCell, batch: AdditionBatch, read_at, last_round: int):
    """Run ``cell`` ``last_round`` rounds; ``read_at(r, state, prev)`` returns the (B,)
    bool of sums read at round r. Returns (read_round, right, held, last_wrong)."""
    device, dtype = model_device(cell), next(cell.parameters()).dtype
    bits = batch.bits.to(device=device, dtype=dtype)  # (B, n, 2): a float64 twin too
    target = batch.target.to(device).bool()  # (B, n)
    problem = cell.embed(bits)  # (B, n, d)
    state = torch.zeros_like(problem) if cell.inject else problem  # (B, n, d)
    n_sums = bits.shape[0]
    read_round = torch.zeros(n_sums, dtype=torch.long, device=device)  # 0: not yet
    right = torch.zeros(n_sums, dtype=torch.bool, device=device)
    held = torch.ones(n_sums, dtype=torch.bool, device=device)
    last_wrong = torch.zeros(target.shape, dtype=torch.long, device=device)  # (B, n)
    for r in range(1, last_round + 1):
        prev, state = state, cell.step(state, problem)  # (B, n, d)
        wrong = (cell.readout(state).squeeze(-1) > 0) != target  # (B, n)
        last_wrong[wrong] = r
        now = read_at(r, state, prev) & (read_round == 0)  # (B,)
        read_round[now] = r
        right[now] = ~wrong[now].any(dim=1)
        held &= (read_round == 0) | ~wrong.any(dim=1)
    return read_round.cpu(), right.cpu(), held.cpu(), last_wrong.cpu()


def cell_holds(
    cell: LocalCell,
    batch: AdditionBatch,
    hold_rounds: int = HOLD_ROUNDS,
    rounds_per_position: int = 1,
) -> Holds:
    """Chapter 2's cell read after ``n + 1`` rounds of its ``n``-bit sums (``n + 1``
    positions in the batch; Chapter 3's after ``rounds_per_position`` times as many),
    then run ``hold_rounds`` more."""
    _check(batch, hold_rounds)
    if rounds_per_position < 1:
        raise ValueError(f"rounds_per_position must be >= 1, got {rounds_per_position}")
    n_read = rounds_per_position * batch.bits.shape[1]
    with eval_mode(cell):
        read_round, right, held, last_wrong = _walk(
            cell,
            batch,
            lambda r, state, prev: torch.full(
                state.shape[:1], r == n_read, device=state.device
            ),
            n_read + hold_rounds,
        )
    return Holds(
        read_round, right, held, torch.ones_like(right), last_wrong, hold_rounds
    )


def deq_holds(
    deq: EquilibriumCell,
    batch: AdditionBatch,
    cap: int | None = None,
    hold_rounds: int = HOLD_ROUNDS,
) -> Holds:
    """Chapter 7's DEQ cell read where each sum settles (its relative change below the
    cell's ``tol``, plain iteration, as the chapter's solver) within ``cap`` iterations
    (default ``2 (n + 1)``), then run on ``hold_rounds`` more rounds past the cap. A sum
    that never settles is read at the cap and counts as not settled."""
    _check(batch, hold_rounds)
    cap = 2 * batch.bits.shape[1] if cap is None else cap
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")

    settled = torch.zeros(batch.bits.shape[0], dtype=torch.bool)  # (B,)

    def read_at(r, state, prev):
        now = (_relative_change(state, prev) < deq.tol) & (r <= cap)  # (B,)
        settled[now.cpu()] = True  # settled within the cap, at round r or before
        return now | (r == cap)

    with eval_mode(deq):
        read_round, right, held, last_wrong = _walk(
            deq.cell, batch, read_at, cap + hold_rounds
        )
    return Holds(read_round, right, held, settled, last_wrong, hold_rounds)
