"""Chapter 6's check, made while training on 8-bit sums only: every held-out pair and
long chain right, halting close to the carry, waiting without spending the halting
budget (held-back carries, rings of propagating bits)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from recur.chapters.ch6_measures import (
    batch_wait_rounds,
    beyond_the_carry,
    ponder_by_position,
    steps_and_right,
)
from recur.core.seeds import CHECK_DELAYED, CHECK_LONG_CHAINS, CHECK_RANDOM
from recur.core.tasks import (
    AdditionBatch,
    long_chain_batch,
    random_batch,
    twice_width_plus_one,
)
from recur.models.cell import Unroll
from recur.models.running import run_model
from recur.models.ut import UniversalTransformer
from recur.training.config import TrainConfig

CHECK_SUMS = 1000  # fresh long-chain 8-bit sums in each act_check
MAX_BEYOND = 0.5  # the most mean steps beyond the carry a passing check allows
# A run's held-out pairs at the book's settings: a check must have measured them all
HELDOUT_SIZE = TrainConfig().eval_size


# The most of its halting budget (1 - eps) a waiting position may use in an 8-bit sum:
# one eighth, so that at the same rate it could wait eight times as long (64 bits).
MAX_BUDGET_USED = 0.99 / 8

# The check's delayed carries: 8-bit sums whose carries are held back DELAY rounds, so
# that the positions above wait as long as in a 64-bit chain (8 + 56 rounds); at least
# MIN_DELAYED of them must come out right (the bar asks 97% of 64-bit long chains).
DELAY = 56
MIN_DELAYED = 0.99


# The check's rings: every pattern of 8 propagating pairs (1 + 0 or 0 + 1), run as a
# ring (``ring=True``) for RING_ROUNDS rounds, as long as the longest wait in a 64-bit
# chain; no position may use more than MAX_RING_BUDGET of its halting budget.
RING_ROUNDS = 8 + DELAY
MAX_RING_BUDGET = 0.5


def propagating_rings(n_bits: int = 8) -> torch.Tensor:
    """Every pattern of ``n_bits`` propagating pairs, 1 + 0 or 0 + 1, as bits
    (2^n, n, 2), LSB first: pattern k has a = the bits of k, b = 1 - a."""
    if not 1 <= n_bits <= 16:
        raise ValueError(f"n_bits must be in 1..16, got {n_bits}")
    a = (torch.arange(2**n_bits)[:, None] >> torch.arange(n_bits)) & 1  # (2^n, n)
    return torch.stack([a, 1 - a], dim=-1).float()  # (2^n, n, 2)


def halting_in_a_ring(
    model: UniversalTransformer, n_bits: int = 8, n_rounds: int = RING_ROUNDS
) -> float:
    """The largest share of its halting budget, h_1 + ... + h_R over R = ``n_rounds``
    (at most 1), that any position used when every pattern of ``n_bits`` propagating
    pairs runs as a ring (``ring=True``, :meth:`UniversalTransformer.forward`): each
    position then sees
    what a position deep inside a run of propagating bits of any length sees while its
    carry has not come yet. Near 0, it could wait much longer; 1, it halted."""
    bits = propagating_rings(n_bits)  # (2^n, n, 2): run_model moves them
    out = run_model(model, bits, n_rounds, ring=True)
    if out.halting is None:
        raise ValueError("this measurement needs an ACT model (halting=ActHalting())")
    return min(1.0, float(out.halting.sum(dim=0).max()))


def delayed_right(model: UniversalTransformer, batch: AdditionBatch, delay: int):
    """Whether each sum of ``batch`` (B,) comes out right, and the steps per position
    (B, n), when every position that learns its carry-in in round 2
    (:func:`batch_wait_rounds`; it sits just above the lowest bit of a run of
    propagating bits) keeps its first round's state ``delay`` more rounds
    (``held_until``): the positions above it wait ``delay`` rounds longer than the sum's
    width makes them, at the cap 2(n + 1) + ``delay``."""
    wait = batch_wait_rounds(batch)  # (B, n)
    until = torch.as_tensor(np.where(wait == 2, delay, 0))  # (B, n)
    if model.options.floor:  # the floor bit below bit 0 is never held
        until = torch.nn.functional.pad(until, (1, 0))  # (B, 1 + n)
    cap = twice_width_plus_one(batch.n_positions - 1) + delay  # n bits: n + 1 places
    out = run_model(model, batch.bits, cap, held_until=until)
    steps, right = steps_and_right(out, batch)
    return right, steps


def budget_spent(out: Unroll, batch: AdditionBatch) -> float:
    """From an ACT model's (CPU) output on ``batch``: the largest share of its halting
    budget, ``h_1 + ... + h_r`` over the rounds r before its carry-in can be known
    (:func:`batch_wait_rounds`), that any position used up. Near 0, a position could
    wait many times longer before ACT stops it; at 1 - eps it halts before its carry
    arrives."""
    if out.halting is None:
        raise ValueError("this measurement needs an ACT model (halting=ActHalting())")
    used = out.halting.cumsum(dim=0).numpy()  # (M, B, n): h_1 + ... + h_r
    wait = batch_wait_rounds(batch)  # (B, n): the round the carry-in is known
    before = np.clip(wait - 2, 0, used.shape[0] - 1)  # (B, n): round wait - 1, 0-based
    spent = np.take_along_axis(used, before[None], axis=0)[0]  # (B, n)
    return float(spent[wait >= 2].max()) if (wait >= 2).any() else 0.0


@dataclass
class ActCheck:
    """Chapter 6's check on the training distribution, after ``step`` steps: held-out
    exact match (every held-out 8-bit pair, from training's own check), exact match on
    :data:`CHECK_SUMS` fresh long-chain 8-bit sums, the mean steps beyond the carry on
    them and on as many random 8-bit sums (positions with a carry; the larger of the
    two), the largest share of the halting budget a waiting position used
    (:func:`budget_spent`), and exact match on :data:`CHECK_SUMS`
    long-chain 8-bit sums, half of them ending in a kill, whose carries are held back
    :data:`DELAY` rounds (:func:`delayed_right`), and the largest share of the halting
    budget a position used in :data:`RING_ROUNDS` rounds in a ring of 8 propagating
    pairs (:func:`halting_in_a_ring`). Nothing wider than 8 bits is looked at."""

    step: int
    heldout: float
    long_chains: float
    beyond: float
    budget_used: float
    delayed: float
    ring: float

    @property
    def passed(self) -> bool:
        """Every pair right, every long chain right, halting within
        :data:`MAX_BEYOND` steps of the carry on average, no waiting position past
        :data:`MAX_BUDGET_USED` of its halting budget, and at least
        :data:`MIN_DELAYED` of the delayed carries right, and no position of a ring
        past :data:`MAX_RING_BUDGET` of its halting budget."""
        return all(self.parts().values())

    def parts(self) -> dict[str, bool]:
        """Each part of the check (:data:`CHECK_PARTS`): whether it passed."""
        return {
            "held-out pairs": self.heldout == 1.0,
            "long chains": self.long_chains == 1.0,
            "steps beyond the carry": self.beyond <= MAX_BEYOND,
            "halting budget": self.budget_used <= MAX_BUDGET_USED,
            "held-back carries": self.delayed >= MIN_DELAYED,
            "rings": self.ring <= MAX_RING_BUDGET,
        }

    def score(self) -> tuple:
        """Larger is better: how checkpoints are ranked."""
        return (
            self.passed,
            self.heldout + self.long_chains,
            self.delayed,
            -self.ring,
            -self.budget_used,
            -self.beyond,
        )


def act_check(model: UniversalTransformer, row: dict, seed: int) -> ActCheck:
    """:class:`ActCheck` of ``model`` after the training check that wrote ``row``
    (the held-out share must cover all :data:`HELDOUT_SIZE` held-out pairs, else it
    counts as 0); the long-chain, random and delayed sums are seeded ``seed +
    CHECK_LONG_CHAINS``, ``seed + CHECK_RANDOM`` and ``seed + CHECK_DELAYED``
    (:mod:`recur.core.seeds`), apart from every test set."""
    chains = long_chain_batch(CHECK_SUMS, 8, seed=seed + CHECK_LONG_CHAINS)
    out = run_model(model, chains.bits, twice_width_plus_one(8))  # one pass for all
    steps, right = steps_and_right(out, chains)
    randoms = random_batch(CHECK_SUMS, 8, seed=seed + CHECK_RANDOM)
    random_steps, _ = ponder_by_position(model, randoms, twice_width_plus_one(8))
    beyond = max(
        beyond_the_carry(steps, chains), beyond_the_carry(random_steps, randoms)
    )  # the worse of long chains and random sums
    used = budget_spent(out, chains)
    waits = long_chain_batch(CHECK_SUMS, 8, seed=seed + CHECK_DELAYED, kill_share=0.5)
    delayed, _ = delayed_right(model, waits, DELAY)
    ring = halting_in_a_ring(model, 8, RING_ROUNDS)
    heldout = row["exact"] if row["pairs"] >= HELDOUT_SIZE else 0.0
    shares = float(heldout), float(right.mean())
    waited = used, float(delayed.mean()), ring
    return ActCheck(int(row["step"]), *shares, beyond, *waited)


CHECK_PARTS = (
    "held-out pairs", "long chains", "steps beyond the carry", "halting budget",
    "held-back carries", "rings",
)  # fmt: skip


def _first_pass(checks: pd.DataFrame, passes: pd.Series) -> pd.Series:
    """Per seed, the step of the first check that ``passes`` (NaN: none did)."""
    seeds = sorted(checks["seed"].unique())
    return checks[passes.to_numpy()].groupby("seed")["step"].min().reindex(seeds)


def without_each_part(checks: pd.DataFrame) -> pd.DataFrame:
    """What each part of the check decides, from every check of first runs (a table
    with ``seed``, ``step`` and :class:`ActCheck`'s fields, as ``act_give_up.csv``):
    per part, in how many runs the check with that part taken out would have stopped
    the run at another checkpoint (``changed``), of them how many runs that never
    passed would have passed (``would pass``), and how many runs there are."""
    fields = ["step", "heldout", "long_chains", "beyond", "budget_used", "delayed",
              "ring"]  # fmt: skip
    parts = pd.DataFrame(
        [ActCheck(**row).parts() for row in checks[fields].to_dict("records")]
    )  # (checks, parts)
    stops = _first_pass(checks, parts.all(axis=1))
    rows = {}
    for part in CHECK_PARTS:
        other = _first_pass(checks, parts.drop(columns=part).all(axis=1))
        moved = ~(other.eq(stops) | (other.isna() & stops.isna()))
        rows[part] = {
            "changed": int(moved.sum()),
            "would pass": int((other.notna() & stops.isna()).sum()),
            "runs": len(stops),
        }
    return pd.DataFrame(rows).T


def restart_counts(runs: pd.DataFrame) -> dict[str, int]:
    """From a seed study of :func:`~recur.chapters.ch6_act_ut.train_book_act` (a
    row per seed and width with ``runs``, ``check passed`` and ``success``): the
    seeds, those whose first run passed its check, those that restarted, of them those
    whose later run passed, the seeds that met the bar, and those that did both."""
    per_seed = runs.groupby("seed")[["runs", "check passed", "success"]].first()
    again = per_seed["runs"] > 1
    return {
        "seeds": len(per_seed),
        "first": int((~again & per_seed["check passed"]).sum()),
        "restarted": int(again.sum()),
        "later": int((again & per_seed["check passed"]).sum()),
        "met": int(per_seed["success"].sum()),
        "both": int((per_seed["check passed"] & per_seed["success"]).sum()),
    }


def restart_words(restart: dict) -> str:
    """How the check's runs ended, from :func:`restart_values`'s counts: those that
    passed in their first run and those that restarted and passed later."""
    first, restarted = restart["first"], restart["restarted"]
    if not restarted:
        return f"all {first} passed in their first run, none restarting"
    return (
        f"{first} passed in their first run and {restart['later']} of the "
        f"{restarted} that restarted in a later one"
    )
