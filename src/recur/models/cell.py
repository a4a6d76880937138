r"""Learned shared updates, ``state_next = F(problem, state)`` (Chapters 2 and 3).

One small network is applied at every position and in every round. It is *local*: in a
round, position ``i`` reads only its own state and the state of position ``i - 1`` (the
bit below), exactly like the carry rule of Chapter 1, so a carry can move at most one
position per round here too.

Two ways to give it the problem, at the same parameter count (the Looped Transformer
choice, arXiv 2311.12424, which writes ``Y_{t+1} = M(Y_t + P)``, against a plain
weight-tied loop):

- ``inject=True``: the state starts at zero and the embedded problem ``E`` is added to
  the state before every round: ``s_{r+1} = F(s_r + E)``.
- ``inject=False``: the state starts as the embedded problem and the loop never sees it
  again: ``s_0 = E``, ``s_{r+1} = F(s_r)``. Whatever the readout needs of the input
  bits, the state has to carry from round to round.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class Unroll:
    """What a recurrent model returns: a readout after every round, plus an extra loss
    term (the ponder cost of ACT later; zero here) and, for ACT, the steps each
    position ran."""

    logits: torch.Tensor  # (R, B, n): sum-bit logits after rounds 1..R
    aux_loss: torch.Tensor  # () or (B,) per sum, added to the task loss
    steps: torch.Tensor | None = None  # (B, n): ACT steps each position ran, or None
    halting: torch.Tensor | None = None  # (rounds, B, n): ACT's h_r in each round

    def cpu(self) -> Unroll:
        """The same results, brought back to the CPU (from wherever the model ran)."""
        steps, halting = (
            None if t is None else t.cpu() for t in (self.steps, self.halting)
        )
        return Unroll(self.logits.cpu(), self.aux_loss.cpu(), steps, halting)


def window_loss(
    logits: torch.Tensor, target: torch.Tensor, window: int, keep: torch.Tensor
) -> torch.Tensor:
    """Mean BCE over the last ``window`` rounds and the examples in ``keep``."""
    last = logits[-window:]  # (w, B, n)
    loss = F.binary_cross_entropy_with_logits(
        last, target.expand_as(last), reduction="none"
    )
    per_example = loss.mean(dim=(0, 2))  # (B,)
    return (per_example * keep).sum() / keep.sum().clamp(min=1)


class RoundModel(nn.Module):
    """What the training loop asks of every model of the book, besides ``forward``:
    the loss on its answers, and which of the loop's settings apply to it."""

    def task_loss(self, out: Unroll, target, keep, loss_window: int) -> torch.Tensor:
        """Cross-entropy on the readouts of the last ``loss_window`` rounds."""
        return window_loss(out.logits, target, loss_window, keep)

    def check_training(self, loss_window: int, aux_warmup: int) -> None:
        """Refuse loop settings that do not apply to this model."""


def check_rounds(n_rounds: int) -> None:
    if not isinstance(n_rounds, int) or isinstance(n_rounds, bool) or n_rounds < 1:
        raise ValueError(f"n_rounds must be a whole number >= 1, got {n_rounds!r}")


def check_bits_tensor(bits: torch.Tensor) -> None:
    if bits.ndim != 3 or bits.shape[-1] != 2:
        raise ValueError(f"bits must have shape (B, n, 2), got {tuple(bits.shape)}")
    if bits.shape[0] == 0 or bits.shape[1] == 0:
        raise ValueError(f"empty batch: bits has shape {tuple(bits.shape)}")
    if bool(((bits != 0) & (bits != 1)).any()):
        raise ValueError("bits must be 0 or 1: the input is not binary")


def snapped(state: torch.Tensor) -> torch.Tensor:
    """Each entry of ``state`` (in -1..1) snapped to -1 or +1, its gradient passed
    through as if unsnapped (the straight-through estimator): a state that can only
    take two levels per entry cannot drift, however long it must hold."""
    return state + (torch.where(state > 0, 1.0, -1.0) - state).detach()


def waits(bits: torch.Tensor) -> torch.Tensor:
    """(B, n) the rounds each position waits for its carry-in (bits (B, n, 2), LSB
    first): :func:`recur.core.carry.wait_rounds` in torch, on the model's device."""
    prop = bits[..., 0] != bits[..., 1]  # (B, n)
    idx = torch.arange(bits.shape[1], device=bits.device).expand_as(prop)  # (B, n)
    stops = torch.where(prop, -1, idx).cummax(dim=1).values  # (B, n)
    below = F.pad(stops, (1, 0), value=-1)[:, :-1]  # highest stop under each position
    return (idx - below.clamp(min=0)).clamp(min=1)  # (B, n)


HOLD_SLACK = 1  # rounds after its wait in which a position's state may still change


def hold_loss(raw: torch.Tensor, wait: torch.Tensor) -> torch.Tensor:
    """The hold cost of each sum, (B,): the mean squared change of each position's
    state from round to round (``raw`` (R, B, n, d), unsnapped), except in round 1 and
    in the rounds its news arrives (its wait through :data:`HOLD_SLACK` rounds later).
    A position whose state moves only when news arrives holds "no carry yet" and its
    answer however long it waits."""
    change = (raw[1:] - raw[:-1]).pow(2).mean(dim=-1)  # (R - 1, B, n): rounds 2..R
    rounds = torch.arange(2, raw.shape[0] + 1, device=raw.device)[:, None, None]
    news = (rounds >= wait) & (rounds <= wait + HOLD_SLACK)  # (R - 1, B, n)
    counted = (~news).sum(dim=(0, 2)).clamp(min=1)  # (B,)
    return (change * ~news).sum(dim=(0, 2)) / counted  # (B,)


def saturation_loss(raw: torch.Tensor) -> torch.Tensor:
    """The saturation cost of each sum, (B,): the mean of 1 - s^2 over its rounds,
    positions and entries (``raw`` (R, B, n, d), unsnapped, in -1..1). An entry near 0
    can flip its snapped level back and forth for ever, and a solver waiting for the
    state to stop changing never stops; near -1 or +1 it flips only if pushed hard."""
    return (1 - raw.pow(2)).mean(dim=(0, 2, 3))  # (B,)


class LocalCell(RoundModel):
    """A shared local update: position ``i`` reads its state and the state below it."""

    def __init__(
        self,
        d_state: int = 16,
        d_hidden: int = 32,
        inject: bool = True,
        snap: bool = False,
        hold_cost: float = 0.0,
        saturation_cost: float = 0.0,
    ):
        super().__init__()
        if d_state < 1 or d_hidden < 1:
            raise ValueError(
                f"sizes must be >= 1, got d_state={d_state}, d_hidden={d_hidden}"
            )
        self.inject, self.snap, self.hold_cost = inject, snap, hold_cost
        self.saturation_cost = saturation_cost
        self.embed = nn.Linear(2, d_state)  # the problem's two bits -> state space
        self.update = nn.Sequential(
            nn.Linear(2 * d_state, d_hidden),  # [own state, state of the bit below]
            nn.ReLU(),
            nn.Linear(d_hidden, d_state),
            nn.Tanh(),  # bounded states: a loop that can settle
        )
        self.readout = nn.Linear(d_state, 1)  # the sum bit at this position

    def unsnapped_step(
        self, state: torch.Tensor, problem: torch.Tensor
    ) -> torch.Tensor:
        """One round at every position at once, before any snapping."""
        z = state + problem if self.inject else state  # (B, n, d)
        padded = F.pad(z, (0, 0, 1, 0))  # (B, n + 1, d): a row of zeros under bit 0
        below = padded[:, :-1]  # (B, n, d): the state of position i - 1
        return self.update(torch.cat([z, below], dim=-1))  # (B, n, d)

    def step(self, state: torch.Tensor, problem: torch.Tensor) -> torch.Tensor:
        """One round at every position at once."""
        new = self.unsnapped_step(state, problem)  # (B, n, d)
        return snapped(new) if self.snap else new

    def forward(self, bits: torch.Tensor, n_rounds: int) -> Unroll:
        """Run ``n_rounds`` rounds on ``bits`` (B, n, 2); read out after every round."""
        check_bits_tensor(bits)
        check_rounds(n_rounds)
        problem = self.embed(bits)  # (B, n, d)
        state = torch.zeros_like(problem) if self.inject else problem  # (B, n, d)
        logits, raw = [], []
        for _ in range(n_rounds):
            raw.append(self.unsnapped_step(state, problem))  # (B, n, d)
            state = snapped(raw[-1]) if self.snap else raw[-1]  # (B, n, d)
            logits.append(self.readout(state).squeeze(-1))  # (B, n)
        extra = bits.new_zeros(())  # (): (B,) once a hold or saturation cost adds in
        if self.training and self.hold_cost and n_rounds > 1:
            extra = self.hold_cost * hold_loss(torch.stack(raw), waits(bits))
        if self.training and self.saturation_cost:
            extra = extra + self.saturation_cost * saturation_loss(torch.stack(raw))
        return Unroll(torch.stack(logits), extra)  # (R, B, n)


def n_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
