"""Chapter 3: input injection against a plain weight-tied loop, the ablation over
seeds and the gradient that reaches each round."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from recur.core.device import run_jobs
from recur.core.seeds import INJECTION_SUMS
from recur.core.tasks import (
    AdditionBatch,
    random_batch,
)
from recur.models.cell import LocalCell, window_loss
from recur.models.running import model_device
from recur.training.cell_variants import train_variant
from recur.training.evaluate import evaluate


@dataclass(frozen=True)
class AblationJob:
    """One training of :func:`injection_ablation`: the variant, its seed, and the
    test it gets."""

    inject: bool
    window: int | str  # the loss window: 1, or "all" (every round)
    seed: int
    test_rounds_factor: int
    widths: tuple[int, ...]
    n_sums: int
    overrides: dict


@dataclass(frozen=True)
class Ablation:
    """What :func:`injection_ablation` returns: one row per (variant, seed, width,
    round), and the trained cells keyed ``(inject, window, seed)``."""

    table: pd.DataFrame
    models: dict


def injection_ablation(
    seeds: list[int],
    windows: tuple = (1, "all"),
    test_rounds_factor: int = 4,
    widths: tuple[int, ...] = (8, 32),
    n_sums: int = 1000,
    jobs: int = 1,
    **overrides,
) -> Ablation:
    """Inject vs. not, for each loss window and seed: exact match against test rounds
    ``1..factor * (n + 1)`` at each width, and the trained cells. ``jobs`` trainings
    run at once, each in its own process (the same numbers: each is seeded by
    itself)."""
    jobs_list = [
        AblationJob(inject, window, seed, test_rounds_factor, widths, n_sums, overrides)
        for inject in (True, False)
        for window in windows
        for seed in seeds
    ]
    runs = run_jobs(_ablation_run, jobs_list, jobs)
    table = pd.DataFrame([row for _, rows in runs for row in rows])
    models = {
        (job.inject, job.window, job.seed): model
        for job, (model, _) in zip(jobs_list, runs, strict=True)
    }
    return Ablation(table, models)


def _ablation_run(job: AblationJob) -> tuple:
    """One training of :func:`injection_ablation` and its rows."""
    model, result = train_variant(job.inject, job.window, job.seed, **job.overrides)
    rows = []
    for n_bits in job.widths:
        seed = INJECTION_SUMS + job.seed + n_bits
        batch = random_batch(job.n_sums, n_bits, seed=seed)
        exact = evaluate(model, batch, job.test_rounds_factor * (n_bits + 1)).exact
        for r, value in enumerate(exact.tolist(), start=1):
            rows.append(
                {
                    "inject": job.inject,
                    "loss window": str(job.window),
                    "seed": job.seed,
                    "bits": n_bits,
                    "round": r,
                    "exact": value,
                    "train seconds": result.seconds,
                    "reached 100%": result.seconds_to_target is not None,
                }
            )
    return model, rows


def gradient_by_round(
    model: LocalCell, batch: AdditionBatch, n_rounds: int
) -> np.ndarray:
    """Norm of the gradient that the loss of round r alone sends to the problem
    embedding, for r = 1..R: how much a loss at that round can teach the encoding."""
    batch = batch.to(model_device(model))
    keep = torch.ones(batch.bits.shape[0], device=batch.bits.device)  # (B,)
    norms = []
    for r in range(1, n_rounds + 1):
        model.zero_grad(set_to_none=True)
        logits = model(batch.bits, r).logits  # (r, B, n)
        window_loss(logits, batch.target, 1, keep).backward()
        norms.append(float(model.embed.weight.grad.norm()))
    model.zero_grad(set_to_none=True)
    return np.array(norms)


def gradient_comparison(n_rounds: int = 9, n_sums: int = 512, seed: int = 0) -> dict:
    """:func:`gradient_by_round` for fresh cells with and without injection."""
    batch = random_batch(n_sums, 8, seed=seed)
    norms = {}
    for inject in (True, False):
        torch.manual_seed(seed)
        label = "injection" if inject else "no injection"
        norms[label] = gradient_by_round(LocalCell(inject=inject), batch, n_rounds)
    return norms


def ablation_factors(table: pd.DataFrame) -> list[int]:
    """The multiples of ``width + 1`` rounds that every width of ``table`` reached:
    1, 2, 4, ... up to the test-rounds factor of :func:`injection_ablation`."""
    reached = table.groupby("bits")["round"].max()
    top = min(int(r) // (int(n) + 1) for n, r in reached.items())
    return [2**k for k in range(top.bit_length()) if 2**k <= top]


def ablation_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Mean exact match over seeds at 1x, 2x, 4x, ... the trained rounds (scaled to
    each width: ``factor * (n + 1)``, as far as the table goes), per variant and
    width."""
    factors = ablation_factors(table)
    rows = []
    keys = ["inject", "loss window", "bits"]
    for (inject, window, n_bits), part in table.groupby(keys):
        by_round = part.groupby("round")["exact"].mean()
        rounds = [f * (n_bits + 1) for f in factors]
        row = {
            "inject": inject,
            "loss window": window,
            "bits": n_bits,
            "seeds at 100% in training": int(
                part.groupby("seed")["reached 100%"].first().sum()
            ),
            "rounds " + "/".join(f"{f}x" for f in factors): "/".join(map(str, rounds)),
        }
        for factor, r in zip(factors, rounds, strict=True):
            row[f"exact {factor}x"] = round(float(by_round.loc[r]), 4)
        rows.append(row)
    return pd.DataFrame(rows).set_index(keys)


def named_rows(summary: pd.DataFrame) -> pd.DataFrame:
    """:func:`ablation_summary` with its rows named as the prose names them: the
    problem injected or not, the loss on the final round or on every round."""
    named = summary.rename(index={True: "yes", False: "no"}, level="inject")
    named = named.rename(
        index={1: "final round", "1": "final round", "all": "every round"},
        level="loss window",
    )
    return named.rename_axis(["injected", "loss on", "bits"])


def seeds_that_lose(table: pd.DataFrame, inject: bool, window) -> dict:
    """For one variant of :func:`injection_ablation`: at each width, how many seeds
    were right on fewer sums after the most rounds tested (``factor * (n + 1)``) than
    after their best round, wherever it fell (each round reads the same sums, so fewer
    is a loss of sums they had right); and ``n``, how many seeds there were."""
    part = table[(table["inject"] == inject) & (table["loss window"] == window)]
    top = ablation_factors(table)[-1]
    lost = {}
    for n_bits, runs in part.groupby("bits"):
        by_seed = runs.pivot_table(index="seed", columns="round", values="exact")
        fewer = by_seed[top * (n_bits + 1)] < by_seed.max(axis=1)
        lost[int(n_bits)] = int(fewer.sum())
    return lost | {"n": int(part["seed"].nunique())}
