"""Chapter 4: a small Universal Transformer on binary addition
(:func:`recur.training.ut_recipe.train_ut`), Chapter 4's local UT with its restart
(:func:`train_local_ut`) and its full-attention UT (:func:`train_full_ut`), both at
once (:func:`train_both_uts`), and exact match after each round
(:func:`rounds_table`)."""

from __future__ import annotations

import pandas as pd

from recur.core.device import beside
from recur.core.tasks import AdditionBatch
from recur.training.checked import CheckedRun
from recur.training.config import restarting
from recur.training.evaluate import evaluate
from recur.training.ut_recipe import FULL_UT, LOCAL_UT, train_ut


def train_local_ut(seed: int = 0, max_attempts: int = 2, **changes) -> CheckedRun:
    """Chapter 4's training procedure: :data:`LOCAL_UT`, and if 1,500 steps do not get
    every held-out pair right, again from the next seed of
    :func:`recur.training.config.attempt_seeds`, at most ``max_attempts`` runs
    (:func:`recur.training.config.restarting`); its check asks no more than every
    held-out pair right. The restart and the step cap rest on the live
    study's seeds (``data/live_seeds.csv``) and on seeds 820-859, used for nothing else,
    where every run got every held-out pair right by step 1,100. ``changes`` change
    the recipe (:meth:`UTRecipe.but`: ``device``, ``progress``, ...)."""
    recipe = LOCAL_UT.but(**changes)
    (model, run), n_runs, seconds = restarting(
        lambda attempt_seed: train_ut(recipe, attempt_seed),
        lambda result: result[1].reached,
        seed,
        max_attempts,
    )
    return CheckedRun(model, run, [], n_runs, seconds, extra_check=None)


def train_full_ut(seed: int = 0, **changes) -> tuple:
    """Chapter 4's full-attention UT: one run of :data:`FULL_UT`, (model, run);
    ``changes`` change the recipe (:meth:`UTRecipe.but`)."""
    return train_ut(FULL_UT.but(**changes), seed)


def train_both_uts(seed: int = 0, jobs: int = 1, **changes) -> tuple:
    """Chapter 4's two trainings, from the same ``seed``: (:func:`train_local_ut`'s
    run, :func:`train_full_ut`'s model and run). With ``jobs=2`` the full-attention UT
    trains in a second process (no progress bar there) while the local one trains
    here: on two cores, in the time of the longer one, with the same numbers, as each
    training is seeded by itself."""
    if jobs not in (1, 2):
        raise ValueError(f"jobs must be 1 or 2, got {jobs}")
    if jobs == 1:
        return train_local_ut(seed, **changes), train_full_ut(seed, **changes)
    with beside(train_full_ut, seed, **(changes | {"progress": False})) as full:
        local = train_local_ut(seed, **changes)
        return local, full.result()


def rounds_table(models: dict, batch: AdditionBatch, n_rounds: int) -> pd.DataFrame:
    """Exact match after each round for several fixed-round models (name -> model)."""
    return pd.DataFrame(
        {
            name: evaluate(model, batch, n_rounds).exact.numpy()
            for name, model in models.items()
        },
        index=pd.RangeIndex(1, n_rounds + 1, name="round"),
    )
