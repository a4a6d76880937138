r"""Chapter 2's local cell as a Deep Equilibrium Model (Bai et al., arXiv 1909.01377).

The injected cell runs ``s_{r+1} = F(s_r + E)``. Its carries stop changing once the
longest chain has arrived, so what the readout needs is a fixed point

    s* = F(s* + E)

and the model can be defined by it instead of by a number of rounds: the forward pass
finds s* with :func:`recur.fixedpoint.fixed_point`, the backward pass differentiates
through s* implicitly. The budget ``n_rounds`` of the usual ``model(bits, n_rounds)``
becomes the solver's iteration cap.
"""

from __future__ import annotations

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from recur.costs import saved_bytes
from recur.device import cpu_threads, run_jobs, seed_everything
from recur.fixedpoint import Solve, fixed_point
from recur.shared import LocalCell, Unroll, check_bits_tensor, check_rounds
from recur.tasks import chain_batch, random_batch
from recur.train import TrainConfig, eval_mode, evaluate, model_device, train


class EquilibriumCell(nn.Module):
    """The injected :class:`LocalCell`, read out at its fixed point.

    ``implicit=False`` is the baseline: the same cell unrolled for ``n_rounds`` rounds
    with backpropagation through every round (Chapter 2), read out after the last.
    ``last_solve`` keeps how the latest forward solve went (iterations, residual)."""

    def __init__(
        self,
        d_state: int = 16,
        d_hidden: int = 32,
        tol: float = 1e-3,
        method: str = "iteration",
        implicit: bool = True,
    ):
        super().__init__()
        self.cell = LocalCell(d_state, d_hidden, inject=True)
        self.tol, self.method, self.implicit = tol, method, implicit
        self.last_solve: Solve | None = None

    def update(self, problem: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        """f(x, z) for the solver: one round of the shared cell."""
        return self.cell.step(state, problem)  # (B, n, d)

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
                on_fail="report",
            )
        else:
            for _ in range(n_rounds):
                state = self.update(problem, state)  # (B, n, d)
        logits = self.cell.readout(state).squeeze(-1)  # (B, n)
        return Unroll(logits[None], bits.new_zeros(()))


def _states(model: nn.Module, bits: torch.Tensor, n_rounds: int) -> list[torch.Tensor]:
    """The states after rounds 1..R of a local cell or a UT (ACT or not: the block is
    iterated for every position, with no halting), each (B, n, d)."""
    from recur.ut import UniversalTransformer

    if isinstance(model, LocalCell):
        problem = model.embed(bits)  # (B, n, d)
        state = torch.zeros_like(problem) if model.inject else problem

        def step(state, _r):
            return model.step(state, problem)
    elif isinstance(model, UniversalTransformer):
        state, step, _ = model.prepare(bits, n_rounds)  # step(state, r)
    else:
        raise ValueError(f"state_changes needs a LocalCell or a UT, got {type(model)}")
    states = []
    for r in range(n_rounds):
        state = step(state, r)  # (B, n, d)
        states.append(state)
    return states


@torch.no_grad()
def state_changes(model: nn.Module, bits: torch.Tensor, n_rounds: int) -> torch.Tensor:
    """|s_{r+1} - s_r| / |s_r| for r = 1..R-1, the norms over each sum's positions and
    features, averaged over the sums: zero once the loop has reached a fixed point.
    Runs as :func:`recur.train.run_model` does: the bits go to the model's device, the
    model runs in eval mode (restored afterwards, also on error), the result comes
    back on the CPU."""
    check_bits_tensor(bits)
    check_rounds(n_rounds)
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
    of sums, seeded ``seed + width``), with the solver's iterations on them."""
    rows = []
    for n_bits, n_sums in sizes.items():
        batch = random_batch(n_sums, n_bits, seed=seed + n_bits)
        fixed = evaluate(deq, batch, 2 * (n_bits + 1)).exact[-1]
        rows.append(
            {
                "bits": n_bits,
                "sums": n_sums,
                "longest chain": int(batch.distance.max()),
                "DEQ exact": float(fixed),
                "solver iterations": deq.last_solve.n_iter,
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
    and the exact match it reached (cap 2 (n + 1))."""
    rows, method = [], deq.method
    try:
        for length in lengths:
            batch = chain_batch(n_sums, n_bits, length, seed=seed + length)
            for deq.method in methods:
                exact = evaluate(deq, batch, 2 * (n_bits + 1)).exact[-1]
                rows.append(
                    {
                        "longest chain": length,
                        "method": deq.method,
                        "iterations": deq.last_solve.n_iter,
                        "exact": float(exact),
                    }
                )
    finally:
        deq.method = method
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
                    {"rounds": n_rounds, "method": name, "bytes": saved_bytes(step)}
                )
    finally:
        deq.implicit, deq.tol, deq.method = settings
    return pd.DataFrame(rows)


LIVE_CELLS = ("Chapter 2's cell", "Chapter 7's DEQ cell")


def _live_seed_row(job: tuple) -> dict:
    """Train one of :data:`LIVE_CELLS` as its chapter does (seed ``seed``, on the
    CPU) and test it on ``n_sums`` fresh random ``n_bits``-bit sums (n + 1 rounds
    for the cell, a solver cap of 2 (n + 1) for the DEQ)."""
    name, seed, n_sums, n_bits, overrides = job
    seed_everything(seed)
    if name == LIVE_CELLS[0]:
        model, rounds, settings = LocalCell(), n_bits + 1, {}
    else:
        model, rounds, settings = EquilibriumCell(), 2 * (n_bits + 1), {"n_rounds": 18}
    cfg = {"max_bits": 8, "seed": seed, "device": "cpu", "progress": False}
    run = train(model, TrainConfig(**(cfg | settings | overrides)))
    batch = random_batch(n_sums, n_bits, seed=9_000_000 + seed)  # never trained on
    exact = float(evaluate(model, batch, rounds).exact[-1])
    return {"model": name, "seed": seed, "reached 100%": run.reached,
            "train seconds": run.seconds, f"exact at {n_bits} bits": exact,
            "success": run.reached and exact == 1.0}  # fmt: skip


def live_seed_runs(
    seeds=tuple(range(20)), n_sums: int = 50, n_bits: int = 1024, jobs: int = 1,
    **overrides,
) -> pd.DataFrame:  # fmt: skip
    """Issue 16, item 4: Chapter 2's cell and Chapter 7's DEQ cell, trained as their
    chapters train them, once per seed: did training reach 100% on the held-out
    8-bit pairs, and does the model add every one of ``n_sums`` fresh ``n_bits``-bit
    sums (``success``: both). ``overrides`` go to :class:`TrainConfig`; ``jobs`` > 1
    runs that many at once, each in its own process."""
    tasks = [(name, s, n_sums, n_bits, overrides) for name in LIVE_CELLS for s in seeds]
    return pd.DataFrame(run_jobs(_live_seed_row, tasks, jobs))


def live_counts(table: pd.DataFrame, name: str) -> dict:
    """From a :func:`live_seed_runs` table, one model's runs: how many reached 100%
    held-out, how many met the bar (``success``), of how many, and the median
    training seconds."""
    runs = table[table["model"] == name]
    return {
        "reached": int(runs["reached 100%"].sum()),
        "met": int(runs["success"].sum()),
        "n": len(runs),
        "median": float(runs["train seconds"].median()),
    }
