r"""PonderNet (Banino, Balaguer and Blundell 2021, arXiv 2107.05407) as pure functions,
and the Universal Transformer of Chapter 6 with a PonderNet halting rule.

After round r a halting unit emits lambda_r, the probability of halting now *given*
that no earlier round halted. Halting is a random variable with distribution

    p_r = lambda_r * prod_{j<r} (1 - lambda_j)

over the rounds r = 1..N the network is unrolled for in training (the paper writes n for
the step; this book keeps n for the width). The loss is the expected task loss under
p plus a pull towards a geometric prior with parameter lambda_p (mean 1 / lambda_p):

    L = sum_r p_r L(y, y_r)  +  beta * KL(p || p_G(lambda_p))     (L_Rec + beta L_Reg)

At inference a position halts at a sampled round: after each round, with probability
lambda_r. Unlike ACT, whose ponder cost reaches the halting units only through the
remainder R (Chapter 5, Eq. 14), every lambda_r but the last gets a gradient from the
task loss (the last round takes what is left).
"""

from __future__ import annotations

import zlib

import torch
import torch.nn.functional as F

from recur.models.act import HaltingUnit
from recur.models.cell import Unroll
from recur.models.ut import UniversalTransformer, UTOptions


def _check_lambdas(lambdas: torch.Tensor) -> None:
    if lambdas.dim() < 1 or lambdas.shape[-1] < 1:
        raise ValueError(
            f"lambdas need a last axis of rounds, got {tuple(lambdas.shape)}"
        )
    if lambdas.numel() and not bool(((lambdas >= 0) & (lambdas <= 1)).all()):
        raise ValueError("lambdas are probabilities: every value must be in [0, 1]")


def halting_distribution(lambdas: torch.Tensor) -> torch.Tensor:
    r"""(..., N) conditional halting probabilities -> (..., N) halting distribution.

    p_r = lambda_r prod_{j<r} (1 - lambda_j) for r < N; the last round takes the mass
    that is left, p_N = prod_{j<N} (1 - lambda_j) (as if lambda_N were 1), so every row
    sums to 1 whatever the lambdas."""
    _check_lambdas(lambdas)
    going_on = torch.cumprod(1 - lambdas, dim=-1)  # (..., N): prod_{j<=r}
    not_yet = torch.cat(
        [torch.ones_like(lambdas[..., :1]), going_on[..., :-1]], dim=-1
    )  # (..., N): prod_{j<r} (1 - lambda_j)
    p = lambdas[..., :-1] * not_yet[..., :-1]  # (..., N-1)
    return torch.cat([p, not_yet[..., -1:]], dim=-1)  # (..., N): the rest at N


def expected_loss(p: torch.Tensor, losses: torch.Tensor) -> torch.Tensor:
    r"""L_Rec = sum_r p_r L(y, y_r), per row: ``p`` and ``losses`` are (..., N)."""
    if p.shape != losses.shape:
        raise ValueError(f"p {tuple(p.shape)} and losses {tuple(losses.shape)} differ")
    return (p * losses).sum(dim=-1)  # (...)


def geometric_prior(lambda_p: float, n_rounds: int) -> torch.Tensor:
    r"""p_G(r) = lambda_p (1 - lambda_p)^(r - 1) for r = 1..N, truncated at N and
    renormalised to sum to 1 (the tail beyond N is spread over 1..N in proportion, so
    the prior is a distribution over the same rounds as p; its mean is then a little
    below 1 / lambda_p)."""
    if not 0 < lambda_p <= 1:
        raise ValueError(f"lambda_p must be in (0, 1], got {lambda_p}")
    if n_rounds < 1:
        raise ValueError(f"n_rounds must be >= 1, got {n_rounds}")
    r = torch.arange(n_rounds, dtype=torch.float64)  # (N,): r - 1
    prior = lambda_p * (1 - lambda_p) ** r  # (N,)
    return prior / prior.sum()


def kl_to_prior(p: torch.Tensor, lambda_p: float) -> torch.Tensor:
    r"""L_Reg = KL(p || p_G(lambda_p)) per row of ``p`` (..., N), with 0 log 0 = 0."""
    prior = geometric_prior(lambda_p, p.shape[-1]).to(p)  # (N,)
    return (torch.xlogy(p, p) - p * prior.log()).sum(dim=-1)  # (...)


def sample_halting(lambdas: torch.Tensor, draws: torch.Tensor) -> torch.Tensor:
    """The round each row halts at (0-based), sampled: after round r it halts when
    its uniform draw in [0, 1) is below lambda_r; a row still going after the last
    round halts there. ``draws`` has the shape of ``lambdas``."""
    _check_lambdas(lambdas)
    if draws.shape != lambdas.shape:
        raise ValueError(f"draws {tuple(draws.shape)} and lambdas differ")
    halts = draws.to(lambdas.device) < lambdas  # (..., N)
    halts[..., -1] = True
    return halts.float().argmax(dim=-1)  # (...): the first round that halts (first max)


def draws_per_sum(bits: torch.Tensor, n_rounds: int, seed: int) -> torch.Tensor:
    """Uniform draws (B, n, R) in [0, 1) for sampling each position's halting round,
    made from each sum's own bits and ``seed`` alone: a sum gets the same draws
    whatever batch or chunk it is measured in, and a measurement repeats exactly."""
    rows = bits.to(torch.uint8).cpu().numpy()  # (B, n, 2)
    draws = []
    for row in rows:
        gen = torch.Generator().manual_seed(zlib.crc32(row.tobytes(), seed))
        draws.append(torch.rand(row.shape[0], n_rounds, generator=gen))  # (n, R)
    return torch.stack(draws) if draws else torch.zeros(0, bits.shape[1], n_rounds)


class PonderUT(UniversalTransformer):
    """Chapter 6's UT (fixed rounds, no ACT) with a PonderNet halting unit per position.

    Training runs all ``n_rounds`` rounds and returns every round's readout and lambda;
    :meth:`task_loss` is the whole loss, L_Rec + beta L_Reg. In eval mode each
    position halts at a round sampled from draws made from its sum's bits and
    ``sample_seed`` (:func:`draws_per_sum`: the same in any batch or chunk), and the
    readout of that round is the output."""

    def __init__(
        self,
        lambda_p: float = 0.2,
        beta: float = 0.01,
        sample_seed: int = 0,
        options: UTOptions | None = None,
        **changes,
    ):
        super().__init__(options, **changes)
        if self.options.act:
            raise ValueError("PonderUT halts by PonderNet's rule; leave act off")
        geometric_prior(lambda_p, 1)  # checks lambda_p
        self.lambda_p, self.beta, self.sample_seed = lambda_p, beta, sample_seed
        d_model = self.options.d_model
        self.lambda_unit = HaltingUnit(d_model, bias_init=-2.0)  # lambda ~ 0.12

    def forward(self, bits: torch.Tensor, n_rounds: int) -> Unroll:
        state, step, real = self.prepare(bits, n_rounds)
        logits, lambdas = [], []
        for r in range(n_rounds):
            state = step(state, r)  # (B, n, d)
            logits.append(self.readout(state).squeeze(-1))  # (B, n)
            lambdas.append(self.lambda_unit(state))  # (B, n)
        logits = torch.stack(logits)[..., real]  # (R, B, n)
        lam = torch.stack(lambdas)[..., real]  # (R, B, n)
        if self.training:  # the whole loss is in task_loss, over the kept examples
            return Unroll(logits, bits.new_zeros((), dtype=logits.dtype), None, lam)
        draws = draws_per_sum(bits, n_rounds, self.sample_seed)  # (B, n, R)
        halt = sample_halting(lam.movedim(0, -1), draws)  # (B, n): 0-based round
        picked = logits.gather(0, halt[None])  # (1, B, n)
        return Unroll(picked, bits.new_zeros(()), (halt + 1).float(), lam)

    def task_loss(self, out: Unroll, target: torch.Tensor, keep: torch.Tensor):
        """L = L_Rec + beta L_Reg (PonderNet's Eq. 6), each averaged over the positions
        of the examples in ``keep``: no term of the loss reads a held-out example.
        (So ``aux_loss`` is 0 and a ramp of it, ``aux_warmup``, does not apply.)"""
        lam = out.halting  # (R, B, n)
        p = halting_distribution(lam.movedim(0, -1))  # (B, n, R), computed once
        bce = F.binary_cross_entropy_with_logits(
            out.logits, target.expand_as(out.logits), reduction="none"
        )  # (R, B, n)
        rec = expected_loss(p, bce.movedim(0, -1)).mean(dim=-1)  # (B,)
        reg = kl_to_prior(p, self.lambda_p).mean(dim=-1)  # (B,)
        per_example = rec + self.beta * reg  # (B,)
        return (per_example * keep).sum() / keep.sum().clamp(min=1)
