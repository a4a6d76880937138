"""The measurements of Chapters 4 and 6: Universal Transformers on binary addition."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import torch

from recur.carry import wait_rounds
from recur.tasks import AdditionBatch, long_chain_batch, random_batch
from recur.train import TrainConfig, TrainResult, evaluate, run_model, train
from recur.ut import UniversalTransformer

UT_SIZE = {"d_model": 32, "n_heads": 4, "d_ff": 64}

# Chapter 6's first recipe: local window of one, ACT with a cap of 12 rounds,
# tau = 0.01, the sinusoidal position signal, no injection. It adds 8-bit sums but not
# longer ones; the studies of the chapter measure why.
FIRST_ACT = {"window": 1, "act": True, "n_rounds": 12, "n_steps": 1500}

# Chapter 6's main model, chosen by ``benchmarks/act_studies.py`` (``recipe``):
# ``train_ut(**BOOK_ACT, seed=s)`` trains exactly what the chapter trains. On top of
# the first recipe: the input re-fed every round, a learned relative attention bias
# instead of the sinusoid, no round signal, a 0 + 0 "floor" bit under bit 0, noise on
# the halting logits while training, tau = 0.1, a quarter of each batch with long
# carry chains, a larger step size, and 800 steps with no early stop (a run that
# stops the moment it adds every held-out pair may not have tightened its halting).
BOOK_ACT = FIRST_ACT | {
    "model_options": {
        "inject": True,
        "position": "relative",
        "round_signal": False,
        "floor": True,
        "halt_noise": 2.0,
    },
    "ponder_weight": 0.1,
    "chain_share": 0.25,
    "lr": 3e-3,
    "n_steps": 800,
    "stop_at_exact": None,
}


def twice_width_plus_one(n_bits: int) -> int:
    """The ACT step cap for n-bit sums at test time: 2 (n + 1) rounds."""
    return 2 * (n_bits + 1)


def train_ut(
    window: int | None,
    act: bool = False,
    seed: int = 0,
    n_rounds: int = 9,
    ponder_weight: float = 0.01,
    model_options: dict | None = None,
    **overrides,
) -> tuple[UniversalTransformer, TrainResult]:
    """A small UT on sums of at most 8 bits. Fixed rounds: the loss reads every round.
    ACT: ``n_rounds`` is the step cap and the loss reads the mixed output plus
    ``ponder_weight`` times the mean ponder cost (tau in Graves's notation), with that
    weight ramped up from 0 over the first 500 steps (``aux_warmup``).
    ``model_options`` go to :class:`UniversalTransformer`, ``overrides`` to
    :class:`TrainConfig`."""
    torch.manual_seed(seed)
    model = UniversalTransformer(
        window=window,
        act=act,
        max_rounds=max(n_rounds, 24),
        ponder_weight=ponder_weight,
        **UT_SIZE,
        **(model_options or {}),
    )
    settings = {
        "lr": 1e-3,
        "batch_size": 64,
        "n_steps": 1500,
        "eval_every": 100,
        "n_rounds": n_rounds,
        "loss_window": 1 if act else n_rounds,
        "stop_at_exact": 0.99 if act else 1.0,
        "aux_warmup": 500 if act else 0,
        "seed": seed,
    } | overrides
    return model, train(model, TrainConfig(**settings))


def ponder_by_position(
    model: UniversalTransformer, batch: AdditionBatch, max_steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """ACT steps each position ran (B, n), and whether each sum came out right (B,).
    The model runs on its own device; the results come back as NumPy arrays."""
    out = run_model(model, batch.bits, max_steps)
    if out.steps is None:
        raise ValueError("ponder_by_position needs an ACT model (act=True)")
    right = ((out.logits[-1] > 0).float() == batch.target).all(dim=1)  # (B,)
    return out.steps.numpy(), right.numpy()


def batch_wait_rounds(batch: AdditionBatch) -> np.ndarray:
    """:func:`recur.carry.wait_rounds` for every position of a batch, (B, n)."""
    bits = batch.bits.cpu().numpy().astype(np.int64)  # (B, n, 2)
    return wait_rounds(bits[..., 0], bits[..., 1])[:, :-1]  # (B, n)


def halting_while_waiting(
    model: UniversalTransformer, batch: AdditionBatch, max_steps: int
) -> tuple[pd.DataFrame, float]:
    """ACT's halting probabilities at positions whose carry-in a local window of one
    cannot know yet (round n < :func:`batch_wait_rounds`) and that are still running:
    their mean h_r and their number, per round; and the share of all positions that
    halted before their carry-in could be known (their answer is then a guess)."""
    out = run_model(model, batch.bits, max_steps)
    if out.halting is None:
        raise ValueError("halting_while_waiting needs an ACT model (act=True)")
    h, steps = out.halting.numpy(), out.steps.numpy()  # (M, B, n), (B, n)
    wait = batch_wait_rounds(batch)  # (B, n)
    rounds = np.arange(1, h.shape[0] + 1)[:, None, None]  # (M, 1, 1)
    waiting = (rounds <= steps) & (rounds < wait)  # (M, B, n)
    count = waiting.sum(axis=(1, 2))  # (M,)
    table = pd.DataFrame(
        {
            "mean h while waiting": [
                h[n][waiting[n]].mean() if count[n] else np.nan
                for n in range(h.shape[0])
            ],
            "waiting positions": count,
        },
        index=pd.RangeIndex(1, h.shape[0] + 1, name="round"),
    )
    return table[table["waiting positions"] > 0], float((steps < wait).mean())


def ponder_vs_distance(
    model: UniversalTransformer, batch: AdditionBatch, max_steps: int
) -> tuple[pd.DataFrame, float, float]:
    """Mean ACT steps per position against the carry distance into it, and the
    least-squares line ``steps = slope * distance + intercept`` over the positions with
    a carry (d >= 1), where d steps are the fewest a local window of one can use. (At
    d = 0 the steps a position needs depend on the propagating bits below it, not on
    d: see ``batch_wait_rounds``.)"""
    steps, _ = ponder_by_position(model, batch, max_steps)
    distance = batch.distance.numpy()
    table = (
        pd.DataFrame({"carry distance": distance.ravel(), "steps": steps.ravel()})
        .groupby("carry distance")["steps"]
        .agg(["mean", "std", "count"])
    )
    carried = distance >= 1
    slope, intercept = np.polyfit(distance[carried], steps[carried], 1)
    return table, float(slope), float(intercept)


def ponder_summary(table: pd.DataFrame) -> dict:
    """Key numbers of a :func:`ponder_vs_distance` table: mean steps at carry distance
    0, 1 and the largest distance in the sample (``dmax``), and the smallest and largest
    margin of the mean steps over d, the fewest a local window of one can use, at the
    distances d >= 1."""
    dmax = int(table.index.max())
    carried = table[table.index >= 1]
    margin = carried["mean"] - carried.index.to_series()  # (distances >= 1,)
    return {
        "dmax": dmax,
        "d0": float(table.loc[0, "mean"]),
        "d1": float(table.loc[1, "mean"]),
        "at_dmax": float(table.loc[dmax, "mean"]),
        "margin_min": float(margin.min()),
        "margin_max": float(margin.max()),
    }


def act_length_table(
    model: UniversalTransformer,
    widths: list[int],
    n_sums: int,
    max_steps: int | Callable[[int], int],
    seed: int = 0,
    long_chains: int = 0,
) -> pd.DataFrame:
    """Exact match and ponder on ``n_sums`` random sums of each width (seeded by
    ``seed + width``) at a step cap (a number, or a function of the width): mean and
    max ACT steps, the mean steps beyond the carry distance d at positions with d >= 1
    (with a local window of one, d steps are the fewest that can be right), and the
    longest carry chain in the sample. With ``long_chains``, also the exact match on
    that many sums whose chains span most of the width (:func:`long_chain_batch`)."""
    rows = []
    for n_bits in widths:
        cap = max_steps(n_bits) if callable(max_steps) else max_steps
        batch = random_batch(n_sums, n_bits, seed=seed + n_bits)
        steps, right = ponder_by_position(model, batch, cap)
        distance = batch.distance.numpy()  # (B, n)
        beyond = (steps - distance)[distance >= 1]  # at positions with a carry
        early = float((steps < batch_wait_rounds(batch)).mean())
        row = {"bits": n_bits, "cap": cap, "exact": float(right.mean())}
        if long_chains:
            hard = long_chain_batch(long_chains, n_bits, seed=seed + n_bits)
            row["exact, long chains"] = float(
                ponder_by_position(model, hard, cap)[1].mean()
            )
        rows.append(
            row
            | {
                "mean steps": float(steps.mean()),
                "steps beyond the carry": float(beyond.mean()),
                "max steps": int(steps.max()),
                "halted before the carry": early,
                "longest chain": int(distance.max()),
            }
        )
    return pd.DataFrame(rows).set_index("bits")


def rounds_table(models: dict, batch: AdditionBatch, n_rounds: int) -> pd.DataFrame:
    """Exact match after each round for several fixed-round models (name -> model)."""
    return pd.DataFrame(
        {
            name: evaluate(model, batch, n_rounds).exact.numpy()
            for name, model in models.items()
        },
        index=pd.RangeIndex(1, n_rounds + 1, name="round"),
    )


def tau_sweep(
    taus: list[float], seeds: list[int], n_sums: int = 2000, **overrides
) -> pd.DataFrame:
    """The time penalty tau (``ponder_weight``): for each value and seed, train the
    local ACT UT and measure held-out exact match and the mean number of steps."""
    variants = {tau: {"ponder_weight": tau} for tau in taus}
    runs = act_runs(variants, seeds, n_sums=n_sums, **overrides)
    return runs.rename(columns={"variant": "tau"}).drop(columns="bits")


def act_runs(
    variants: dict,
    seeds: list[int],
    widths: tuple[int, ...] = (8,),
    n_sums: int = 1000,
    max_steps: int | Callable[[int], int] = 12,
    long_chains: int = 0,
    extra_columns: tuple[str, ...] = (),
    **overrides,
) -> pd.DataFrame:
    """Train the local ACT UT (cap 12) once per variant and seed, then measure it.

    ``variants`` maps a name (or value) to keyword arguments of :func:`train_ut`. One
    row per run and test width: exact match, mean steps and steps beyond the carry
    from :func:`act_length_table` (sums seeded 2024 + width; ``extra_columns`` names
    more of its columns to keep), steps trained, and seconds to the held-out exact
    match training stops at (99% unless ``stop_at_exact`` says otherwise; NaN if never).
    """
    rows = []
    for name, options in variants.items():
        for seed in seeds:
            settings = {"progress": False} | overrides | options
            model, run = train_ut(1, act=True, n_rounds=12, seed=seed, **settings)
            target = settings.get("stop_at_exact") or 0.99  # train_ut's default
            table = act_length_table(
                model, widths, n_sums, max_steps, seed=2024, long_chains=long_chains
            )
            measured = [c for c in table.columns if c.startswith("exact")]
            measured += ["mean steps", "steps beyond the carry", *extra_columns]
            for n_bits, row in table.iterrows():
                rows.append(
                    {"variant": name, "seed": seed, "bits": n_bits}
                    | row[measured].to_dict()
                    | {
                        "train steps": int(run.history["step"].iloc[-1]),
                        f"seconds to {target:.0%}": run.seconds_to_target
                        or float("nan"),
                    }
                )
    return pd.DataFrame(rows)


def waiting_runs(
    variants: dict,
    seeds: list[int],
    widths: tuple[int, ...] = (8, 32),
    n_sums: int = 300,
    max_steps: Callable[[int], int] = twice_width_plus_one,
    **overrides,
) -> pd.DataFrame:
    """Train the local ACT UT (cap 12) once per variant and seed, as :func:`act_runs`
    does, then run :func:`halting_while_waiting` on ``n_sums`` long-chain sums of each
    width (seeded 2024 + width). One row per run, width and round."""
    rows = []
    for name, options in variants.items():
        for seed in seeds:
            settings = {"progress": False} | overrides | options
            model, _ = train_ut(1, act=True, n_rounds=12, seed=seed, **settings)
            for n_bits in widths:
                batch = long_chain_batch(n_sums, n_bits, seed=2024 + n_bits)
                table, early = halting_while_waiting(model, batch, max_steps(n_bits))
                for n, row in table.iterrows():
                    rows.append(
                        {"variant": name, "seed": seed, "bits": n_bits, "round": n}
                        | row.to_dict()
                        | {"halted before the carry": early}
                    )
    return pd.DataFrame(rows)
