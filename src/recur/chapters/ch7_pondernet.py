"""Chapter 7's PonderNet: the UT with PonderNet's halting rule trained as Chapter 6's
model is, and the tables and sentences that set it beside ACT."""

from __future__ import annotations

import pandas as pd
import torch

from recur.models.act import ACT_EPS, ponder_cost
from recur.models.halting import PonderHalting
from recur.models.pondernet import expected_loss, halting_distribution
from recur.models.ut import UniversalTransformer
from recur.training.config import TrainResult
from recur.training.ut_recipe import BOOK_ACT, train_ut
from recur.views.text import fit_words

# Chapter 7's PonderNet: trained as Chapter 6 trains its ACT model (``BOOK_ACT``: a
# local window of one, the input re-fed, the relative bias, no round signal, the floor
# bit, pauses while training, a cap of 16 rounds, a quarter of long chains, 1,200 steps
# at lr 0.003 falling to 0 on a cosine) with PonderNet's halting rule in place of ACT's
# (lambda_p = 0.2; beta = 0.01, the paper's value for parity). Left out, because it
# belongs to ACT: train_book_act's check. Also left out: the long training chains that
# end with no carry (BOOK_ACT's chain_kill_share; here 0), so a long wait may promise a
# carry (Chapter 7 says so), and reading each pair of bits as a set (pair_as_set),
# which bears on runs of equal pairs that the comparison's sums seldom hold.
PONDER = BOOK_ACT.but(halting=PonderHalting(), pair_as_set=False, chain_kill_share=0.0)


# Chapter 7's study (benchmarks/ch7_studies.py): fresh test sums per width.
STUDY_SUMS = {"random": 500, "long chains": 200}


def train_ponder(seed: int = 0, **changes) -> tuple[UniversalTransformer, TrainResult]:
    """Train :data:`PONDER` on sums of at most 8 bits; ``changes`` change the recipe
    (:meth:`recur.training.ut_recipe.UTRecipe.but`)."""
    return train_ut(PONDER.but(**changes), seed)


# Chapter 7's table headers: which seeds each number of :func:`study_summary` sums up.
SUMMARY_HEADERS = {
    "exact": "exact, worst seed",
    "exact, long chains": "exact on long chains, worst seed",
    "mean steps": "mean steps, mean of seeds",
    "steps beyond the carry": "steps beyond the carry, mean of seeds",
}


def ponder_settings() -> dict:
    """The settings Chapter 7's prose states, read from the code: lambda_p, beta, the
    cap of rounds, the steps, the sums per width of the study, the share of long
    training runs with no carry (PonderNet's, and Chapter 6's procedure's) and the
    mean 1 / lambda_p of the untruncated prior."""
    rule = PONDER.model.halting
    return {
        "lambda_p": rule.lambda_p,
        "beta": rule.beta,
        "cap": PONDER.n_rounds,
        "steps": PONDER.n_steps,
        "random": STUDY_SUMS["random"],
        "chains": STUDY_SUMS["long chains"],
        "kill_share": PONDER.chain_kill_share,
        "act_kill_share": BOOK_ACT.chain_kill_share,
        "prior_untruncated": 1 / rule.lambda_p,
    }


def study_summary(length: pd.DataFrame) -> pd.DataFrame:
    """Chapter 7's study (``benchmarks/ch7_studies.py``) by method and width: exact
    match on random and on long-chain sums (worst seed), and the mean rounds per
    position and beyond the carry (mean over seeds)."""
    by = length.groupby(["method", "bits"])
    worst = by[["exact", "exact, long chains"]].min()
    mean = by[["mean steps", "steps beyond the carry"]].mean()
    return worst.join(mean).unstack("method")


def gradients_beside_act(
    h: list[float], losses: list[float], eps: float = ACT_EPS
) -> pd.DataFrame:
    """For one position's halting probabilities ``h`` (read as ACT's h_r and as
    PonderNet's lambda_r) and per-round task losses: d rho / d h_r of ACT's ponder cost
    (Chapter 5) beside d L_Rec / d lambda_r of PonderNet's expected loss."""

    act_h = torch.tensor(h, dtype=torch.float64, requires_grad=True)
    lam = torch.tensor(h, dtype=torch.float64, requires_grad=True)
    ponder_cost(act_h, eps=eps).backward()
    loss = torch.tensor(losses, dtype=torch.float64)
    expected_loss(halting_distribution(lam), loss).backward()
    rounds = pd.Index(range(1, len(h) + 1), name="round r")
    columns = {
        "ACT: d rho / d h_r": act_h.grad.numpy(),
        "PonderNet: d L_task / d lambda_r": lam.grad.numpy(),
    }
    return pd.DataFrame(columns, index=rounds)


# each measure of the study summary, as it reads in a glue key
MEASURE_KEYS = {
    "exact": "exact",
    "exact, long chains": "chains",
    "mean steps": "steps",
    "steps beyond the carry": "beyond",
}


def study_values(summary: pd.DataFrame, distance: pd.DataFrame) -> dict:
    """Flat numbers of the study for the chapter's prose: ``{method}_{measure}_{bits}``
    from :func:`study_summary` (measures named by ``MEASURE_KEYS``) and the mean over
    seeds of each method's fitted ``slope`` and ``intercept`` of steps against d (and
    the line in words, ``fit``), of its mean steps at the largest distance (``dmax``),
    and :func:`crossing_values`."""
    fits = distance.groupby("method")[["slope", "intercept"]].mean()
    values = {f"{m}_{k}": float(v) for (m, k), v in fits.stack().items()}
    dmax = int(distance["carry distance"].max())
    at_dmax = distance[distance["carry distance"] == dmax]
    values |= {"dmax": dmax} | {
        f"{m}_at_dmax": float(v)
        for m, v in at_dmax.groupby("method")["mean steps"].mean().items()
    }
    for (measure, method), series in summary.items():
        key = MEASURE_KEYS[measure]
        values |= {f"{method}_{key}_{bits}": float(v) for bits, v in series.items()}
    for method in fits.index:
        slope, intercept = values[f"{method}_slope"], values[f"{method}_intercept"]
        values[f"{method}_fit"] = fit_words(slope, intercept)
    return values | crossing_values(distance)


def crossing_values(distance: pd.DataFrame) -> dict:
    """Where PonderNet stops running more rounds than ACT (means over seeds, measured):
    the first carry distance at which its mean steps are not above ACT's (``cross``;
    one past the largest distance if never), and each PonderNet seed's mean steps over
    the farthest quarter of the distances, least and most (``far_min``, ``far_max``)."""
    means = distance.pivot_table(
        index="carry distance", columns="method", values="mean steps"
    )  # (d, method): the mean over seeds
    not_above = means.index[(means["PonderNet"] <= means["ACT"]).to_numpy()]
    cross = int(not_above[0]) if len(not_above) else int(means.index[-1]) + 1
    far_from = 3 * int(distance["carry distance"].max()) // 4
    ponder = distance[distance["method"] == "PonderNet"]
    far = ponder[ponder["carry distance"] >= far_from].groupby("seed")["mean steps"]
    far = far.mean()  # (seeds,)
    return {"cross": cross, "far_from": far_from, "far_min": float(far.min()),
            "far_max": float(far.max())}  # fmt: skip


def seeds_that_wait(runs: pd.DataFrame, learned_at: float, slope_bar: float) -> dict:
    """Of the seeds in ``runs`` (PonderNet's rows of ``data/live_seeds.csv``: ``exact
    at 8 bits`` and ``value``, its rounds per position of carry distance) that learned
    the 8-bit sums (``learned_at`` or more), how many grew by ``slope_bar`` or more per
    position (``others``), and the least and most of them (``others_min``,
    ``others_max``); NaN when there are none."""
    learned = runs[runs["exact at 8 bits"] >= learned_at]
    others = learned.loc[learned["value"] >= slope_bar, "value"]
    return {
        "others": len(others),
        "others_min": float(others.min()) if len(others) else float("nan"),
        "others_max": float(others.max()) if len(others) else float("nan"),
    }


RANKED = "random and long-chain 64-bit sums on the worst seed, steps beyond the carry"
