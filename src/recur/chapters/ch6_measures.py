"""What Chapters 6 and 7 measure of a trained ACT Transformer: steps per position
against the carry distance, halting while a position waits, and exact match and
ponder by width."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from recur.core.carry import wait_rounds
from recur.core.seeds import KILL_WAIT_SUMS, PAGE_SUMS
from recur.core.tasks import (
    AdditionBatch,
    long_chain_batch,
    random_batch,
    twice_width_plus_one,
)
from recur.models.act import ACT_EPS
from recur.models.cell import Unroll
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer


def ponder_by_position(
    model: UniversalTransformer, batch: AdditionBatch, max_steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """ACT steps each position ran (B, n), and whether each sum came out right (B,).
    The model runs on its own device; the results come back as NumPy arrays."""
    return steps_and_right(run_model(model, batch.bits, max_steps), batch)


def steps_and_right(out: Unroll, batch: AdditionBatch) -> tuple:
    """From an ACT model's (CPU) output: steps per position (B, n) and whether each
    sum came out right (B,), as NumPy arrays."""
    if out.steps is None:
        raise ValueError("this measurement needs an ACT model (halting=ActHalting())")
    right = ((out.logits[-1] > 0).float() == batch.target.cpu()).all(dim=1)  # (B,)
    return out.steps.numpy(), right.numpy()


def beyond_the_carry(steps: np.ndarray, batch: AdditionBatch) -> float:
    """Mean steps beyond the carry distance d at the positions with d >= 1 (with a
    local window of one, d steps are the fewest that can be right)."""
    distance = batch.distance.cpu().numpy()  # (B, n)
    return float((steps - distance)[distance >= 1].mean())


def batch_wait_rounds(batch: AdditionBatch) -> np.ndarray:
    """:func:`recur.core.carry.wait_rounds` for every position of a batch, (B, n)."""
    bits = batch.bits.cpu().numpy().astype(np.int64)  # (B, n, 2)
    return wait_rounds(bits[..., 0], bits[..., 1])[:, :-1]  # (B, n)


def share_waiting(batch: AdditionBatch, at_least: int) -> float:
    """The share of all positions of ``batch`` that a local window of one keeps
    waiting at least ``at_least`` rounds for their carry-in, arriving or not
    (:func:`batch_wait_rounds`)."""
    if at_least < 1:
        raise ValueError(f"at_least must be >= 1, got {at_least}")
    return float((batch_wait_rounds(batch) >= at_least).mean())


def halted_early_by_variant(waiting: pd.DataFrame) -> pd.Series:
    """Per variant of a table of :func:`halting_while_waiting` rows (``variant``,
    ``seed``, ``round``, ``halted before the carry``), the share of positions that
    halted before their carry-in could be known: each seed's share once (its table
    repeats it on every round that still had a waiting position), then the mean over
    seeds. The seeds are tested on the same sums, so that is the share of all their
    positions; a mean over rows would weigh a seed by how long it kept positions
    waiting."""
    per_seed = waiting.groupby(["variant", "seed"], sort=False)[
        "halted before the carry"
    ].first()  # (variants x seeds,)
    return per_seed.groupby(level="variant", sort=False).mean()


def halting_while_waiting(
    model: UniversalTransformer, batch: AdditionBatch, max_steps: int
) -> tuple[pd.DataFrame, float]:
    """ACT's halting probabilities at positions whose carry-in a local window of one
    cannot know yet (round r < :func:`batch_wait_rounds`) and that are still running:
    their mean h_r and their number, per round; and the share of all positions that
    halted before their carry-in could be known (their answer is then a guess)."""
    out = run_model(model, batch.bits, max_steps)
    if out.halting is None:
        raise ValueError(
            "halting_while_waiting needs an ACT model (halting=ActHalting())"
        )
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
    distance = batch.distance.cpu().numpy()
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
    kill_waits: bool = False,
) -> pd.DataFrame:
    """Exact match and ponder on ``n_sums`` random sums of each width (seeded by
    ``seed + width``) at a step cap (a number, or a function of the width): mean and
    max ACT steps, the mean steps beyond the carry distance d at positions with d >= 1
    (with a local window of one, d steps are the fewest that can be right), and the
    longest carry chain in the sample. With ``long_chains``, also the exact match on
    that many sums whose chains span most of the width (:func:`long_chain_batch`) and
    the share of their positions that halted before the carry. With ``kill_waits``
    too, the exact match on as many sums with runs as long that end in a kill (0+0),
    so that no carry comes (``long_chain_batch(..., kill_share=1)``, seeded
    ``seed + KILL_WAIT_SUMS + width``, :data:`recur.core.seeds.KILL_WAIT_SUMS`): a
    model that stops waiting and guesses "carry" gets the long chains right and these
    wrong."""
    rows = []
    for n_bits in widths:
        cap = max_steps(n_bits) if callable(max_steps) else max_steps
        batch = random_batch(n_sums, n_bits, seed=seed + n_bits)
        steps, right = ponder_by_position(model, batch, cap)
        early = _halted_early(steps, batch)
        row = {"bits": n_bits, "cap": cap, "exact": float(right.mean())}
        if long_chains:
            row |= _long_chain_columns(model, long_chains, n_bits, cap, seed)
        if long_chains and kill_waits:
            row |= _kill_wait_column(model, long_chains, n_bits, cap, seed)
        rows.append(
            row
            | {
                "mean steps": float(steps.mean()),
                "steps beyond the carry": beyond_the_carry(steps, batch),
                "max steps": int(steps.max()),
                "halted before the carry": early,
                "longest chain": int(batch.distance.max()),
            }
        )
    return pd.DataFrame(rows).set_index("bits")


def _long_chain_columns(model, n_sums: int, n_bits: int, cap: int, seed: int) -> dict:
    """:func:`act_length_table`'s long-chain columns: exact match on ``n_sums`` sums
    whose chains span most of the width, and the share of their positions that halted
    before their carry-in could be known (where a run that fails on long chains
    fails, if it stops too soon)."""
    hard = long_chain_batch(n_sums, n_bits, seed=seed + n_bits)
    steps, right = ponder_by_position(model, hard, cap)
    return {
        "exact, long chains": float(right.mean()),
        "halted before the carry, long chains": _halted_early(steps, hard),
    }


KILL_WAITS = "exact, long waits without a carry"


def _kill_wait_column(model, n_sums: int, n_bits: int, cap: int, seed: int) -> dict:
    """:func:`act_length_table`'s column for long waits that end with no carry."""
    waits = long_chain_batch(
        n_sums, n_bits, seed=seed + KILL_WAIT_SUMS + n_bits, kill_share=1
    )
    _, right = ponder_by_position(model, waits, cap)
    return {KILL_WAITS: float(right.mean())}


def _halted_early(steps: np.ndarray, batch: AdditionBatch) -> float:
    """The share of positions that halted before their carry-in could be known."""
    return float((steps < batch_wait_rounds(batch)).mean())


TRAINED_WAIT = 8  # the longest a position waits for its carry in 8-bit training
SMALL_H = 0.1  # a waiting position's h_r below this keeps it far from halting
HALT_AT = 1 - ACT_EPS  # ACT halts a position once its running sum reaches this


def clock_kind(h: pd.Series) -> tuple[str, float, int]:
    """How one run's mean h_r of waiting positions (indexed by round) behaves against
    the longest wait in training: ``("halts", h, r)`` if the running sum of the means
    reaches :data:`HALT_AT` by round :data:`TRAINED_WAIT` (``r``: that round, ``h``:
    the largest h_r up to it); ``("late", h, r)`` if h_r stays below :data:`SMALL_H`
    up to that round and reaches it after (``h``: its largest, in round ``r``);
    ``("high", h, r)`` if it reaches :data:`SMALL_H` sooner without halting;
    ``("never", h, r)`` if it stays below in every round (``h``: its largest)."""
    h = h.dropna()
    crossed = h.cumsum()[lambda total: total >= HALT_AT]
    if len(crossed) and crossed.index[0] <= TRAINED_WAIT:
        first = h.loc[: crossed.index[0]]
        return "halts", float(first.max()), int(crossed.index[0])
    early, late = h.loc[:TRAINED_WAIT], h.loc[TRAINED_WAIT + 1 :]
    if early.max() >= SMALL_H:
        return "high", float(early.max()), int(early.idxmax())
    if len(late) and late.max() >= SMALL_H:
        return "late", float(late.max()), int(late.idxmax())
    return "never", float(h.max()), int(h.idxmax())


def chains_and_waits(
    model: UniversalTransformer, n_bits: int, n_sums: int = 100, seed: int = PAGE_SUMS
) -> dict[str, float]:
    """Exact match on ``n_sums`` long-chain ``n_bits``-bit sums and on as many long
    waits without a carry (:func:`act_length_table`, cap 2(n + 1) rounds): a model
    that stops waiting and guesses "carry" gets the first right and the second
    wrong. The sums are seeded as the page's (``seed``)."""
    row = act_length_table(
        model,
        [n_bits],
        n_sums,
        twice_width_plus_one,
        seed=seed,
        long_chains=n_sums,
        kill_waits=True,
    ).loc[n_bits]
    return {"long chains": row["exact, long chains"], "waits": row[KILL_WAITS]}
