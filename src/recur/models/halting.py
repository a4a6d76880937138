r"""Halting rules: when each position of the Universal Transformer stops.

A rule is a frozen record of its settings, held by the model's options
(``UTOptions(halting=ActHalting())``; ``None``: every position runs the rounds asked
for). The model calls three methods and never asks which rule it holds:

- :meth:`HaltingRule.unit` builds the rule's own weights (a halting unit), if any;
- :meth:`HaltingRule.run` runs the rounds and says which readout is the answer;
- :meth:`HaltingRule.task_loss` is what training minimises besides the model's extra
  term (``aux_loss``, weighted by the loop's ramp).

:meth:`HaltingRule.loop_settings` gives the training loop's settings the rule trains
with, so that one recipe (:class:`recur.training.ut_recipe.UTRecipe`) trains any rule.
Adding a rule is one subclass here and one recipe (the README's "How to add a halting
rule").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from recur.models.act import (
    ACT_EPS,
    ACT_RAMP_STEPS,
    HaltingUnit,
    act_loop,
)
from recur.models.cell import Unroll, window_loss
from recur.models.pondernet import (
    draws_per_sum,
    expected_loss,
    geometric_prior,
    halting_distribution,
    kl_to_prior,
    sample_halting,
)

if TYPE_CHECKING:  # the model holds its rule: a runtime import would be a cycle
    from recur.models.ut import UniversalTransformer


class Start(NamedTuple):
    """What :meth:`recur.models.ut.UniversalTransformer.prepare` hands a rule."""

    state: torch.Tensor  # (B, n', d): H^0 (n' = n + 1 with the floor bit)
    step: object  # step(state, r) -> the state after round r (0-based)
    real: slice  # the positions asked for (without the floor bit)


@dataclass(frozen=True)
class HaltingRule:
    """What every halting rule provides; a subclass adds its settings as fields."""

    # Where the model draws the unit's first weights: before its readout (ACT's place)
    # or after it (PonderNet's), so that a seed gives each model the weights its
    # chapter measured.
    unit_before_readout: ClassVar[bool] = True

    def unit(self, d_model: int) -> nn.Module | None:
        """The rule's own weights, kept as the model's ``halting``; ``None``: none."""
        return None

    def run(
        self, model: UniversalTransformer, bits: torch.Tensor, n_rounds: int, start
    ) -> Unroll:
        """Run up to ``n_rounds`` rounds from ``start`` (a :class:`Start`)."""
        raise NotImplementedError

    def task_loss(self, out: Unroll, target, keep, loss_window: int) -> torch.Tensor:
        """The loss on the answers of the examples in ``keep``: cross-entropy on the
        readouts of the last ``loss_window`` rounds, unless the rule has its own."""
        return window_loss(out.logits, target, loss_window, keep)

    def loop_settings(self) -> dict:
        """The training loop's settings (:class:`recur.training.config.TrainConfig`
        fields) this rule trains with, unless a recipe says otherwise."""
        return {"loss_window": 1, "aux_warmup": 0}

    def check_training(self, loss_window: int, aux_warmup: int) -> None:
        """Refuse loop settings that do not apply to this rule."""


@dataclass(frozen=True)
class ActHalting(HaltingRule):
    r"""Adaptive Computation Time per position (Graves 2016, arXiv 1603.08983;
    Chapter 5): each position halts once h_1 + ... + h_r >= 1 - ``eps`` (Eq. 7), its
    output is the mean field sum_r p_r s_r (Eq. 9), and ``aux_loss`` is
    ``ponder_weight`` times the mean ponder cost N + R (Eqs. 10-11)."""

    eps: float = ACT_EPS  # Graves's eps (Eq. 7)
    ponder_weight: float = 0.01  # tau: the ponder cost's weight in the loss (Eq. 11)
    noise: float = 0.0  # std of noise on the halting logits while training
    # step only the sums with a running position while training too (as when
    # measuring): the same gradients in exact arithmetic, other rounding
    train_rows_only: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.eps < 1:
            raise ValueError(f"eps must be in (0, 1), got {self.eps}")
        if self.ponder_weight < 0 or self.noise < 0:
            raise ValueError(
                f"ponder_weight ({self.ponder_weight}) and noise ({self.noise}) "
                "must be >= 0"
            )

    def unit(self, d_model: int) -> nn.Module:
        return HaltingUnit(d_model, noise=self.noise)

    def run(self, model, bits, n_rounds, start) -> Unroll:
        measuring = not (model.training or torch.is_grad_enabled())
        rows_only = measuring or self.train_rows_only
        state, step, real = start
        result = act_loop(
            step, state, model.halting, n_rounds, self.eps, rows_only=rows_only
        )
        logits = model.readout(result.output).squeeze(-1)[None]  # (1, B, n)
        aux = self.ponder_weight * result.ponder[:, real].mean()  # tau * mean rho
        steps, halting = result.n_updates[:, real], result.halting[..., real]
        return Unroll(logits[..., real], aux, steps, halting)

    def loop_settings(self) -> dict:
        """One readout (the mixed state), the ponder cost ramped in over the first
        :data:`ACT_RAMP_STEPS` steps."""
        return super().loop_settings() | {"aux_warmup": ACT_RAMP_STEPS}


@dataclass(frozen=True)
class PonderHalting(HaltingRule):
    r"""PonderNet (Banino et al. 2021, arXiv 2107.05407; Chapter 7): after round r a
    unit emits lambda_r, the chance to halt now if not before. Training runs every
    round and minimises L_Rec + beta KL(p || p_G(lambda_p)) (:meth:`task_loss`);
    measuring, each position halts at a round sampled from draws made from its sum's
    bits and ``sample_seed`` (the same in any batch), and that round's readout is its
    answer."""

    lambda_p: float = 0.2  # the geometric prior's parameter (mean 1 / lambda_p)
    beta: float = 0.01  # the KL term's weight
    sample_seed: int = 0  # the halting draws' seed when measuring

    unit_before_readout: ClassVar[bool] = False

    def __post_init__(self) -> None:
        geometric_prior(self.lambda_p, 1)  # checks lambda_p
        if self.beta < 0:
            raise ValueError(f"beta must be >= 0, got {self.beta}")

    def unit(self, d_model: int) -> nn.Module:
        return HaltingUnit(d_model, bias_init=-2.0)  # lambda ~ 0.12 at first

    def run(self, model, bits, n_rounds, start) -> Unroll:
        state, step, real = start
        logits, lambdas = [], []
        for r in range(n_rounds):
            state = step(state, r)  # (B, n, d)
            logits.append(model.readout(state).squeeze(-1))  # (B, n)
            lambdas.append(model.halting(state))  # (B, n)
        logits = torch.stack(logits)[..., real]  # (R, B, n)
        lam = torch.stack(lambdas)[..., real]  # (R, B, n)
        no_aux = bits.new_zeros((), dtype=logits.dtype)  # the loss is all in task_loss
        if model.training:
            return Unroll(logits, no_aux, None, lam)
        draws = draws_per_sum(bits, n_rounds, self.sample_seed)  # (B, n, R)
        halt = sample_halting(lam.movedim(0, -1), draws)  # (B, n): 0-based round
        picked = logits.gather(0, halt[None])  # (1, B, n)
        return Unroll(picked, no_aux, (halt + 1).float(), lam)

    def task_loss(self, out, target, keep, loss_window) -> torch.Tensor:
        """L = L_Rec + beta L_Reg (PonderNet's training loss), each averaged over the
        positions of the examples in ``keep``: no term reads a held-out example."""
        p = halting_distribution(out.halting.movedim(0, -1))  # (B, n, R)
        bce = F.binary_cross_entropy_with_logits(
            out.logits, target.expand_as(out.logits), reduction="none"
        )  # (R, B, n)
        rec = expected_loss(p, bce.movedim(0, -1)).mean(dim=-1)  # (B,)
        reg = kl_to_prior(p, self.lambda_p).mean(dim=-1)  # (B,)
        per_example = rec + self.beta * reg  # (B,)
        return (per_example * keep).sum() / keep.sum().clamp(min=1)

    def check_training(self, loss_window: int, aux_warmup: int) -> None:
        if loss_window != 1 or aux_warmup:
            raise ValueError(
                "PonderNet's loss reads every round and has no extra term: "
                "loss_window and aux_warmup do not apply; leave them at 1 and 0"
            )
