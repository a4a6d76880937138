r"""Adaptive Computation Time (Graves 2016, arXiv 1603.08983, Section 2), as pure
functions over tensors, then the ACT loop around any step function.

Notation: the network runs rounds r = 1, 2, ... (Graves's inner steps, which he counts
with n; this book keeps n for the width) and emits a halting probability
h_r = sigmoid(W_h s_r + b_h) (Eq. 5). It stops at

    N = min{ r' : h_1 + ... + h_r' >= 1 - eps }                       (Eq. 7)

(or at the cap M if the sum never gets there, Eq. 13), with remainder

    R = 1 - (h_1 + ... + h_{N-1})                                      (Eq. 8)

and weights p_r = h_r for r < N, p_N = R, 0 after (Eq. 6), which sum to 1. The ponder
cost is rho = N + R (Eq. 10); N is piecewise constant, so only R carries a gradient:
d rho / d h_r = -1 for r < N and 0 otherwise (Eq. 14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import nn

ACT_EPS = 0.01  # Graves's eps (Eq. 7): halt once the h_r sum to at least 1 - eps
ACT_TARGET = 0.99  # held-out exact match an ACT run stops at unless told otherwise
ACT_RAMP_STEPS = 500  # an ACT run's ponder cost rises from 0 to its weight over these


class Halting(NamedTuple):
    weights: torch.Tensor  # (..., M): p_r, summing to 1 over the last axis
    n_steps: torch.Tensor  # (...): N, counted from 1
    remainder: torch.Tensor  # (...): R


def halting_weights(h: torch.Tensor, eps: float = ACT_EPS) -> Halting:
    r"""Eqs. 6-8 of Graves (2016) for halting probabilities ``h`` (steps: last axis)."""
    if h.ndim == 0 or h.shape[-1] == 0:
        raise ValueError(
            f"h needs at least one step on its last axis, got {tuple(h.shape)}"
        )
    if not 0 < eps < 1:
        raise ValueError(f"eps must be in (0, 1), got {eps}")
    if torch.any((h < 0) | (h > 1)):
        raise ValueError("halting probabilities must lie in [0, 1]")
    n_max = h.shape[-1]
    total = h.cumsum(dim=-1)  # (..., M): h_1 + ... + h_r
    reached = total >= 1 - eps  # (..., M)
    first = reached.float().argmax(dim=-1)  # (...) first r reaching 1 - eps (0-based)
    last = torch.where(
        reached.any(dim=-1), first, n_max - 1
    )  # (...) Eq. 7, capped: Eq. 13
    before = (
        (total - h).gather(-1, last[..., None]).squeeze(-1)
    )  # (...) h_1 + ... + h_{N-1}
    remainder = 1 - before  # (...) Eq. 8
    steps = torch.arange(n_max, device=h.device)  # (M,)
    weights = torch.where(
        steps < last[..., None], h, torch.zeros_like(h)
    )  # Eq. 6, r < N
    weights = (
        weights + (steps == last[..., None]) * remainder[..., None]
    )  # Eq. 6, r = N
    return Halting(weights, last + 1, remainder)


def ponder_cost(h: torch.Tensor, eps: float = ACT_EPS) -> torch.Tensor:
    r"""rho = N + R, Eq. 10 of Graves (2016); its gradient reaches ``h`` only via R."""
    halt = halting_weights(h, eps)
    return halt.n_steps.to(h.dtype) + halt.remainder  # (...)


@dataclass
class ActResult:
    """What the ACT loop returns; per position quantities have shape (B, n)."""

    output: torch.Tensor  # (B, n, d): the mixed state
    ponder: torch.Tensor  # (B, n): N + R, with a gradient through R
    n_updates: torch.Tensor  # (B, n): N, the number of steps each position ran
    remainder: torch.Tensor  # (B, n): R
    n_rounds: int  # steps the loop ran before every position had halted
    halting: torch.Tensor  # (n_rounds, B, n): h_r as emitted (also where halted)


class HaltingUnit(nn.Module):
    r"""h = sigmoid(W s + b), Eq. 5 of Graves (2016); b starts at 1 (his Section 3)."""

    def __init__(self, d_model: int, bias_init: float = 1.0, noise: float = 0.0):
        super().__init__()
        self.linear = nn.Linear(d_model, 1)
        nn.init.constant_(self.linear.bias, bias_init)
        self.noise = noise  # std of Gaussian noise on the logit, in training only

    def forward(self, state: torch.Tensor) -> torch.Tensor:
        logit = self.linear(state).squeeze(-1)  # (B, n)
        if self.training and self.noise:
            logit = logit + self.noise * torch.randn_like(logit)
        return torch.sigmoid(logit)  # (B, n)


def step_weights(
    h: torch.Tensor, total: torch.Tensor, running: torch.Tensor, eps: float, last: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""This round's weights p_r (Eq. 6) and remainders (Eq. 8), per position: h_r for a
    position that goes on, R = 1 - (h_1 + ... + h_{r-1}) for one that halts now (its
    sum would reach ``1 - eps``, or this is the ``last`` step), 0 if it had halted."""
    halts = running & ((total + h >= 1 - eps) | last)  # (B, n)
    remainder = torch.where(halts, 1 - total, torch.zeros_like(total))  # Eq. 8
    return torch.where(running & ~halts, h, remainder), remainder  # Eq. 6


def act_loop(
    step,
    state: torch.Tensor,
    halting: HaltingUnit,
    max_steps: int,
    eps: float = ACT_EPS,
    mix: str = "mean_field",
    rows_only: bool = False,
) -> ActResult:
    r"""Run ``state = step(state, r)`` with per-position halting.

    Each position halts once its summed halting probabilities reach ``1 - eps`` (or at
    ``max_steps``); after that its state is copied unchanged (UT, Section 2.2) while the
    others go on, and the loop exits early when every position has halted.
    ``mix="mean_field"`` returns Graves's Eq. 9, ``sum_r p_r s_r``.
    ``mix="interpolate"`` is tensor2tensor's rule, ``out = p_r * s_r + (1 - p_r) * out``
    after each step: a running blend in which each state is discounted by all later
    weights, so it differs from the mean field whenever more than one step runs.
    ``rows_only``: each round calls ``step(state[rows], r, rows=rows)`` on the rows
    (sums) that still have a running position only, the others keep their state; less
    time when the sums halt at different rounds. Measuring (no gradients), the same
    numbers bit for bit; training (``ActHalting(train_rows_only=True)``), the
    same gradients in exact arithmetic, summed over fewer rows and so rounded
    differently (Chapter 6's ``seeds`` and ``seeds_every`` studies). The recorded h_r
    is 0 where a position had halted (Graves's h is defined only while it runs).
    """
    _check_loop(max_steps, mix)
    total, remainder, n_updates = state.new_zeros(3, *state.shape[:-1])  # (B, n) each
    output = torch.zeros_like(state)  # (B, n, d)
    emitted = []  # h_r of every round, (B, n) each; total: h_1 + ... so far
    for r in range(max_steps):
        running = total < 1 - eps  # (B, n)
        if not running.any():
            break
        new_state = _advance(step, state, r, running, rows_only)  # (B, n, d)
        h = halting(new_state)  # (B, n): Eq. 5, on the updated state
        emitted.append(torch.where(running, h, 0.0).detach())  # (B, n)
        p, rem = step_weights(h, total, running, eps, r == max_steps - 1)  # (B, n)
        remainder = remainder + rem
        total = total + p
        n_updates = n_updates + running.to(state.dtype)
        output = _mixed(output, p, new_state, mix)  # (B, n, d)
        state = torch.where(running[..., None], new_state, state)  # halted: copied
    ponder = n_updates + remainder  # (B, n): Eq. 10
    halting_history = torch.stack(emitted)  # (n_rounds, B, n)
    return ActResult(
        output, ponder, n_updates, remainder, len(emitted), halting_history
    )


def _advance(step, state: torch.Tensor, r: int, running: torch.Tensor, rows_only):
    """Round ``r``'s new states (B, n, d): from ``step`` on every row, or with
    ``rows_only`` on the rows with a running position (the rest keep their state)."""
    if not rows_only:
        return step(state, r)  # (B, n, d)
    rows = running.any(dim=1).nonzero().squeeze(1)  # (b,): sums still running
    if len(rows) == state.shape[0]:
        return step(state, r)  # (B, n, d)
    return state.index_copy(0, rows, step(state[rows], r, rows=rows))  # (B, n, d)


def _check_loop(max_steps: int, mix: str) -> None:
    if max_steps < 1:
        raise ValueError(f"max_steps must be >= 1, got {max_steps}")
    if mix not in ("mean_field", "interpolate"):
        raise ValueError(f"mix must be 'mean_field' or 'interpolate', got {mix!r}")


def _mixed(output: torch.Tensor, p: torch.Tensor, new_state: torch.Tensor, mix: str):
    """The output after one more round: Graves's Eq. 9 adds p_r s_r (``mean_field``);
    tensor2tensor blends, p_r s_r + (1 - p_r) out (``interpolate``)."""
    if mix == "mean_field":
        return output + p[..., None] * new_state  # Eq. 9
    return p[..., None] * new_state + (1 - p[..., None]) * output


def mix_states(weights: torch.Tensor, states: torch.Tensor, rule: str) -> torch.Tensor:
    r"""Combine per-step states (M, ..., d) with weights p_r (M, ...).

    ``"mean_field"``: Graves's Eq. 9, ``sum_r p_r s_r``. ``"interpolate"``:
    tensor2tensor's running blend ``out <- p_r s_r + (1 - p_r) out``, starting from 0.
    """
    if rule == "mean_field":
        return (weights[..., None] * states).sum(dim=0)  # (..., d)
    if rule != "interpolate":
        raise ValueError(f"rule must be 'mean_field' or 'interpolate', got {rule!r}")
    out = torch.zeros_like(states[0])
    for p, s in zip(weights, states, strict=True):
        out = p[..., None] * s + (1 - p[..., None]) * out  # (..., d)
    return out
