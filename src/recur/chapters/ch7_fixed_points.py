"""Chapter 7's fixed points: training the DEQ cell with Chapter 2's check, and what
the chapter measures of it (width, iterations by chain length, memory, how much the
state still changes each round), with the sentences its page glues."""

from __future__ import annotations

import contextlib
import functools

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from recur.chapters.ch7_costs import saved_bytes
from recur.core.device import cpu_threads
from recur.core.tasks import (
    AdditionBatch,
    chain_batch,
    random_batch,
    twice_width_plus_one,
)
from recur.models.cell import LocalCell, check_bits_tensor, check_rounds
from recur.models.deq import EquilibriumCell
from recur.models.fixedpoint import Solve
from recur.models.running import eval_mode, model_device
from recur.models.ut import UniversalTransformer
from recur.training import holding
from recur.training.checked import CheckedRun, ExtraCheck, checked_training
from recur.training.config import TrainConfig
from recur.training.evaluate import evaluate

# Chapter 7's training of the DEQ cell: sums of at most 8 bits, a solver cap of 18
# iterations (TrainConfig's defaults otherwise: 1,500 steps at most), stopping at the
# first check at which every held-out pair is right, and right still when the solver
# may run DEQ_CHECK_CAP iterations (train_deq).
DEQ_TRAINING = {"max_bits": 8, "n_rounds": 18}
DEQ_CHECK_CAP = 64  # the check's solver cap, as Chapter 2's check runs 64 rounds


# Bai, Kolter and Koltun (arXiv 1909.01377), abstract: DEQs reduce training memory by
# "up-to 88%" in their experiments. Quoted, and glued, on Chapter 7's page; never
# measured here.
PAPER_MEMORY_SAVING = 0.88


def right_with_cap(
    model: EquilibriumCell, heldout: AdditionBatch, cfg: TrainConfig | None = None
) -> float:
    """:func:`train_deq`'s check: the share of the held-out pairs right when the solver
    may run :data:`DEQ_CHECK_CAP` iterations (``cfg``, the run's, is not needed)."""
    return float(evaluate(model, heldout, DEQ_CHECK_CAP).exact[-1])


def train_deq(
    seed: int = 0, max_attempts: int = 2, method: str = "iteration", **overrides
) -> CheckedRun:
    """Chapter 7's DEQ cell (:class:`EquilibriumCell`, initial weights from ``seed``)
    trained with :data:`DEQ_TRAINING`, stopping at the first check at which every
    held-out pair is right and :func:`right_with_cap` finds them all right; if none
    passes, it starts again from a new seed, at most ``max_attempts`` runs
    (:func:`recur.training.checked.checked_training`, Chapter 2's procedure with this
    check). ``method`` is the cell's solver (Exercise 1 trains with ``"anderson"``);
    ``overrides`` go to :class:`~recur.training.config.TrainConfig` (``device``,
    ...)."""
    cap = f"with a solver cap of {DEQ_CHECK_CAP}"
    make = EquilibriumCell  # the chapter's cell, plain iteration
    if method != "iteration":
        make = functools.partial(EquilibriumCell, method=method)
    words = ExtraCheck(kept=f"kept them right {cap}", share=f"are right {cap}")
    return checked_training(
        make, DEQ_TRAINING | overrides, right_with_cap, seed, max_attempts, words
    )


def train_holding_deq(
    seed: int = 0, max_attempts: int = 2, without: tuple[str, ...] = (), **overrides
) -> CheckedRun:
    """:func:`train_deq`'s procedure for the DEQ cell that holds: the pieces of
    :mod:`recur.training.holding` but ``without``, the saturation cost included; the
    hold and saturation costs read the solver's own path (plain iteration from zeros)
    over the run's rounds."""
    make = functools.partial(EquilibriumCell, **holding.deq_options(without))
    settings = DEQ_TRAINING | holding.training_options(without) | overrides
    cap = f"with a solver cap of {DEQ_CHECK_CAP}"
    words = ExtraCheck(kept=f"kept them right {cap}", share=f"are right {cap}")
    return checked_training(make, settings, right_with_cap, seed, max_attempts, words)


@contextlib.contextmanager
def collect_solves(deq: EquilibriumCell):
    """Inside, every forward solve of ``deq`` is kept in the list this yields (one
    per chunk of :func:`recur.training.evaluate.evaluate`), so a measurement can read
    all of them, not only ``last_solve``."""
    deq.solves = []
    try:
        yield deq.solves
    finally:
        deq.solves = None


def solves_summary(solves: list[Solve]) -> Solve:
    """Several chunks' solves as one: the most iterations, the largest residual,
    converged only if every one converged."""
    if not solves:
        raise ValueError("no solves were collected")
    n_iter = max(s.n_iter for s in solves)
    residual = max(s.residual for s in solves)
    return Solve(n_iter, residual, all(s.converged for s in solves))


def _states(model: nn.Module, bits: torch.Tensor, n_rounds: int) -> list[torch.Tensor]:
    """The states after rounds 1..R of a local cell or a UT (ACT or not: the block is
    iterated for every position, with no halting), each (B, n, d): the positions of
    the bits only, without a UT's floor position, which nothing reads."""

    real = slice(None)  # the positions asked for
    if isinstance(model, LocalCell):
        problem = model.embed(bits)  # (B, n, d)
        state = torch.zeros_like(problem) if model.inject else problem

        def step(state, _r):
            return model.step(state, problem)
    elif isinstance(model, UniversalTransformer):
        state, step, real = model.prepare(bits, n_rounds)  # step(state, r)
    else:
        raise ValueError(f"state_changes needs a LocalCell or a UT, got {type(model)}")
    states = []
    for r in range(n_rounds):
        state = step(state, r)  # (B, n (+ 1 with a floor), d)
        states.append(state[:, real])  # (B, n, d)
    return states


@torch.no_grad()
def state_changes(model: nn.Module, bits: torch.Tensor, n_rounds: int) -> torch.Tensor:
    """|s_{r+1} - s_r| / |s_r| for r = 1..R-1, the norms over each sum's positions and
    features, averaged over the sums: zero once the loop has reached a fixed point. Runs
    as :func:`recur.models.running.run_model` does: the bits go to the model's
    device, the model runs in eval mode (restored afterwards, also on error), the result
    comes back on the CPU."""
    check_bits_tensor(bits)
    check_rounds(n_rounds)
    if n_rounds < 2:
        raise ValueError(
            f"state_changes compares rounds: n_rounds must be >= 2, got {n_rounds}"
        )
    device = model_device(model)
    with eval_mode(model), cpu_threads(None, device):
        states = torch.stack(_states(model, bits.to(device), n_rounds))  # (R,B,n,d)
    change = (states[1:] - states[:-1]).flatten(2).norm(dim=-1)  # (R-1, B)
    size = states[:-1].flatten(2).norm(dim=-1).clamp(min=1e-12)  # (R-1, B)
    return (change / size).mean(dim=1).cpu()  # (R-1,)


@torch.no_grad()
def by_width(
    deq: EquilibriumCell, unrolled: LocalCell, sizes: dict[int, int], seed: int = 0
) -> pd.DataFrame:
    """Exact match of the DEQ cell (solver cap 2 (n + 1)) and of the unrolled cell
    (n + 1 rounds, Chapter 2) on random sums of each width (``sizes``: width -> number
    of sums, seeded ``seed + width``), with the solver's iterations on them and whether
    every sum's state settled before the cap (``converged``)."""
    rows = []
    for n_bits, n_sums in sizes.items():
        batch = random_batch(n_sums, n_bits, seed=seed + n_bits)
        with collect_solves(deq) as solves:
            fixed = evaluate(deq, batch, twice_width_plus_one(n_bits)).exact[-1]
        rows.append(
            {
                "bits": n_bits,
                "sums": n_sums,
                "longest chain": int(batch.distance.max()),
                "DEQ exact": float(fixed),
                "solver iterations": solves_summary(solves).n_iter,
                "converged": solves_summary(solves).converged,
                "unrolled exact": float(
                    evaluate(unrolled, batch, n_bits + 1).exact[-1]
                ),
            }
        )
    return pd.DataFrame(rows).set_index("bits")


@torch.no_grad()
def iterations_by_chain(
    deq: EquilibriumCell,
    n_bits: int,
    lengths: list[int],
    n_sums: int = 50,
    methods: tuple[str, ...] = ("iteration", "anderson"),
    seed: int = 0,
) -> pd.DataFrame:
    """Forward-solver iterations of the DEQ cell on ``n_sums`` sums whose longest
    chain is exactly each of ``lengths`` (seeded ``seed + length``), for each solver;
    whether the solve converged before its cap of 2 (n + 1), and the exact match it
    reached."""
    rows, own_method = [], deq.method
    try:
        for length in lengths:
            batch = chain_batch(n_sums, n_bits, length, seed=seed + length)
            for method in methods:
                deq.method = method  # the solver the next solves use
                with collect_solves(deq) as solves:
                    exact = evaluate(deq, batch, twice_width_plus_one(n_bits)).exact[-1]
                solve = solves_summary(solves)
                rows.append(
                    {
                        "longest chain": length,
                        "method": method,
                        "iterations": solve.n_iter,
                        "converged": solve.converged,
                        "exact": float(exact),
                    }
                )
    finally:
        deq.method = own_method
    return pd.DataFrame(rows)


def training_memory(
    deq: EquilibriumCell, n_bits: int, batch_size: int, rounds: list[int], seed=0
) -> pd.DataFrame:
    """Bytes kept for the backward pass of one training step (forward and loss), for
    ``deq``'s own cell unrolled over each number of ``rounds`` (backprop through every
    round) and for the DEQ made to run exactly that many solver iterations (tolerance
    0+: it never stops early), on one batch of ``n_bits``-bit sums on the model's
    device. ``deq``'s settings are restored afterwards."""
    device = model_device(deq)
    batch = random_batch(batch_size, n_bits, seed=seed).to(device)
    settings = (deq.implicit, deq.tol, deq.method)
    modes = {"unrolled backprop": (False, deq.tol, deq.method)}
    modes["implicit"] = (True, 1e-30, "iteration")
    rows = []
    try:
        for n_rounds in rounds:
            for name, (deq.implicit, deq.tol, deq.method) in modes.items():

                def step(n_rounds=n_rounds):
                    logits = deq(batch.bits, n_rounds).logits[-1]  # (B, n)
                    return F.binary_cross_entropy_with_logits(logits, batch.target)

                rows.append(
                    {
                        "rounds": n_rounds,
                        "method": name,
                        "bytes": saved_bytes(step, deq.parameters()),
                    }
                )
    finally:
        deq.implicit, deq.tol, deq.method = settings
    return pd.DataFrame(rows)


def seeds_above(settle: pd.DataFrame, tol: float) -> dict:
    """Per method of a settling study (rows ``method``, ``seed``, ``round`` and
    ``change``), how many seeds still change by more than ``tol`` in the last round
    measured, and of how many seeds: ``{method}_above`` and ``{method}_seeds``."""
    if settle.empty:
        raise ValueError("no settling rows to count")
    last = settle[settle["round"] == settle["round"].max()]
    counts = {}
    for method, rows in last.groupby("method"):
        counts[f"{method}_above"] = int((rows["change"] > tol).sum())
        counts[f"{method}_seeds"] = int(rows["seed"].nunique())
    return counts
