"""Numbers the book prints that no other test saw, each against a value worked out by
hand or an independent counter: the relative change per round of ``state_changes``
(Chapter 7's settling figure), the iterations the Anderson solver reports (Chapter 7)
and the chain length Chapter 2's chain experiment plants."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from recur.chapters.ch2_shared_update import chain_experiment
from recur.chapters.ch7_fixed_points import state_changes
from recur.core.tasks import random_batch
from recur.models.cell import LocalCell, Unroll
from recur.models.fixedpoint import fixed_point


class Doubling(LocalCell):
    """A cell whose round is s <- 2 s + 1 at every position and feature."""

    def step(self, state, problem):
        return 2 * state + 1


def test_state_changes_by_hand():
    """From s_0 = 0 the states are 1, 3, 7, 15: the changes relative to the state
    before are |3 - 1| / 1 = 2, |7 - 3| / 3 = 4/3 and |15 - 7| / 7 = 8/7, the same at
    every position and feature, so the norms' ratio is the scalar one."""
    changes = state_changes(Doubling(), random_batch(3, 5, seed=0).bits, 4)
    assert changes.tolist() == pytest.approx([2, 4 / 3, 8 / 7])


@pytest.mark.parametrize("max_iter", [3, 7])
def test_anderson_reports_the_applications_it_made(max_iter):
    """A map that never settles (z <- z + 1) runs to the cap: the solver's count must
    be the number of times it called the map, counted here independently."""
    calls = []

    def f(x, z):
        calls.append(1)
        return z + x

    with torch.no_grad():
        _, info = fixed_point(
            f,
            torch.ones(2, 3),
            torch.zeros(2, 3),
            tol=1e-12,
            max_iter=max_iter,
            method="anderson",
            on_fail="report",
        )
    assert info.n_iter == len(calls) == max_iter
    assert not info.converged


def test_anderson_count_when_it_converges():
    calls = []

    def f(x, z):  # a contraction to z* = 2x
        calls.append(1)
        return 0.5 * z + x

    with torch.no_grad():
        z, info = fixed_point(
            f,
            torch.ones(1, 4),
            torch.zeros(1, 4),
            tol=1e-8,
            max_iter=50,
            method="anderson",
            on_fail="raise",
        )
    assert info.converged and info.n_iter == len(calls)
    torch.testing.assert_close(z, 2 * torch.ones(1, 4))


class ExactRule(nn.Module):
    """The parallel-carry rule of Chapter 1 as a model: after round r the carry into
    each bit is right if the chain below it is at most r long; logits +-1."""

    def __init__(self):
        super().__init__()
        self.anchor = nn.Parameter(torch.zeros(()))  # a device for run_model

    def forward(self, bits, n_rounds):
        a, b = bits[..., 0].long(), bits[..., 1].long()  # (B, n)
        carry, logits = torch.zeros_like(a), []
        for _ in range(n_rounds):
            out = (a & b) | ((a ^ b) & carry)  # carry out of each bit
            carry = torch.cat([torch.zeros_like(a[:, :1]), out[:, :-1]], dim=1)
            logits.append((a ^ b ^ carry).float() * 2 - 1)  # (B, n)
        return Unroll(torch.stack(logits), self.anchor * 0)


def test_the_chain_experiment_plants_the_chains_it_names():
    """With the exact rule as the model, every sum of chain length L is first right
    after max(L, 1) rounds (Chapter 1: rounds needed = the longest chain)."""
    lengths = [0, 1, 3, 6, 12]
    run = chain_experiment(ExactRule(), 12, lengths, n_sums=20, max_rounds=14)
    assert run.first_right.tolist() == [1, 1, 3, 6, 12]
