r"""PonderNet (Banino, Balaguer and Blundell 2021, arXiv 2107.05407) as pure functions;
:class:`recur.models.halting.PonderHalting` runs them in the Universal Transformer.

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


def _check_lambdas(lambdas: torch.Tensor) -> None:
    if lambdas.dim() < 1 or lambdas.shape[-1] < 1:
        raise ValueError(
            f"lambdas need a last axis of rounds, got {tuple(lambdas.shape)}"
        )
    if lambdas.numel() and not bool(((lambdas >= 0) & (lambdas <= 1)).all()):
        raise ValueError("lambdas are probabilities: every value must be in [0, 1]")


def halting_distribution(lambdas: torch.Tensor) -> torch.Tensor:
    r"""(..., M) conditional halting probabilities -> (..., M) halting distribution.

    q_r = lambda_r prod_{j<r} (1 - lambda_j) for r < M; the last round takes the mass
    that is left, q_M = prod_{j<M} (1 - lambda_j) (as if lambda_M were 1), so every row
    sums to 1 whatever the lambdas."""
    _check_lambdas(lambdas)
    going_on = torch.cumprod(1 - lambdas, dim=-1)  # (..., M): prod_{j<=r}
    not_yet = torch.cat(
        [torch.ones_like(lambdas[..., :1]), going_on[..., :-1]], dim=-1
    )  # (..., M): prod_{j<r} (1 - lambda_j)
    q = lambdas[..., :-1] * not_yet[..., :-1]  # (..., M-1)
    return torch.cat([q, not_yet[..., -1:]], dim=-1)  # (..., M): the rest at M


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
