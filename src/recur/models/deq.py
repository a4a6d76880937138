r"""Chapter 2's local cell as a Deep Equilibrium Model (Bai et al., arXiv 1909.01377).

The injected cell runs ``s_{r+1} = F(s_r + E)``. Its carries stop changing once the
longest chain has arrived, so what the readout needs is a fixed point

    s* = F(s* + E)

and the model can be defined by it instead of by a number of rounds: the forward pass
finds s* with :func:`recur.models.fixedpoint.fixed_point`, the backward pass
differentiates through s* implicitly. The budget ``n_rounds`` of the usual ``model(bits,
n_rounds)`` becomes the solver's iteration cap.
"""

from __future__ import annotations

import torch

from recur.models.cell import (
    LocalCell,
    RoundModel,
    Unroll,
    check_bits_tensor,
    check_rounds,
)
from recur.models.fixedpoint import Solve, fixed_point

SOLVER_TOL = 1e-3  # the solver stops when the state changes by less than this share


class EquilibriumCell(RoundModel):
    """The injected :class:`LocalCell`, read out at its fixed point.

    ``implicit=False`` is the baseline: the same cell unrolled for ``n_rounds`` rounds
    with backpropagation through every round (Chapter 2), read out after the last.
    ``last_solve`` keeps how the latest forward solve went (iterations, residual);
    inside :func:`collect_solves` every forward solve is kept. ``failed_solves``
    counts the solves that did not converge while training, forward and backward
    (the adjoint), out of ``training_solves`` forward solves: training goes on, and
    the chapter reports the count."""

    def __init__(
        self,
        d_state: int = 16,
        d_hidden: int = 32,
        tol: float = SOLVER_TOL,
        method: str = "iteration",
        implicit: bool = True,
        snap: bool = False,
        hold_cost: float = 0.0,
        saturation_cost: float = 0.0,
    ):
        super().__init__()
        self.cell = LocalCell(d_state, d_hidden, True, snap, hold_cost, saturation_cost)
        self.tol, self.method, self.implicit = tol, method, implicit
        self.last_solve: Solve | None = None
        self.solves: list[Solve] | None = None  # a list inside collect_solves
        self.training_solves = 0
        self.failed_solves = {"forward": 0, "backward": 0}

    def update(self, problem: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        """f(x, z) for the solver: one round of the shared cell."""
        return self.cell.step(state, problem)  # (B, n, d)

    def _count_failure(self, what: str, info: Solve) -> None:
        """``fixed_point``'s ``on_fail``: count a failed solve made in training."""
        if self.training:
            self.failed_solves["backward" if "backward" in what else "forward"] += 1

    def _record(self, info: Solve) -> None:
        self.training_solves += self.training
        if self.solves is not None:
            self.solves.append(info)

    def forward(self, bits: torch.Tensor, n_rounds: int) -> Unroll:
        """The readout at the fixed point, as one "round" of logits (1, B, n)."""
        check_bits_tensor(bits)
        check_rounds(n_rounds)
        problem = self.cell.embed(bits)  # (B, n, d)
        state = torch.zeros_like(problem)  # (B, n, d)
        if self.implicit:
            state, self.last_solve = fixed_point(
                self.update,
                problem,
                state,
                tol=self.tol,
                max_iter=max(2, n_rounds),
                method=self.method,
                on_fail=self._count_failure,
            )
            self._record(self.last_solve)
        else:
            for _ in range(n_rounds):
                state = self.update(problem, state)  # (B, n, d)
        logits = self.cell.readout(state).squeeze(-1)  # (B, n)
        extra = bits.new_zeros(())  # (B,) per sum with a hold or saturation cost
        if (self.cell.hold_cost or self.cell.saturation_cost) and self.training:
            # the costs read the solver's own path: plain iteration from zeros
            extra = self.cell(bits, n_rounds).aux_loss
        return Unroll(logits[None], extra)
