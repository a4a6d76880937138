"""Chapter 4: a small Universal Transformer on binary addition, trained with fixed
rounds or ACT (:func:`train_ut`), Chapter 4's local UT with its restart
(:func:`train_local_ut`) and its full-attention UT (:func:`train_full_ut`), both at
once (:func:`train_both_uts`), and exact match after each round
(:func:`rounds_table`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

import pandas as pd
import torch

from recur.core.device import beside
from recur.core.tasks import (
    AdditionBatch,
)
from recur.models.ut import UniversalTransformer, UTOptions
from recur.training.cell_check import CellRun
from recur.training.config import (
    TrainConfig,
    TrainResult,
    restarting,
)
from recur.training.evaluate import evaluate
from recur.training.loop import train

UT_SIZE = {"d_model": 32, "n_heads": 4, "d_ff": 64}
ACT_TARGET = 0.99  # held-out exact match an ACT run stops at unless told otherwise


@dataclass(frozen=True)
class UTRecipe:
    """How :func:`train_ut` trains a UT of :data:`UT_SIZE`: the model's options and
    the training settings. ``dataclasses.replace`` makes a variant; :meth:`settings`
    is what ``train_ut`` takes."""

    model: UTOptions  # window, act and ponder_weight included
    n_rounds: int = 9  # fixed rounds, or ACT's step cap while training
    n_steps: int = 1500
    lr: float = 1e-3
    lr_decay: str = "none"  # "cosine": the step size falls to 0 over n_steps
    chain_share: float = 0.0  # the share of each batch with a planted carry chain
    chain_kill_share: float = 0.0  # of those, the share whose run ends in a kill
    eval_every: int = 100
    stop_at_exact: float | None = 1.0  # held-out exact match to stop at; None: never

    def __post_init__(self) -> None:
        size = {name: getattr(self.model, name) for name in UT_SIZE}
        if size != UT_SIZE:
            raise ValueError(f"train_ut builds a UT of {UT_SIZE}, not {size}")

    def settings(self) -> dict:
        """The keyword arguments of :func:`train_ut`: ``model_options`` holds the
        options that differ from :class:`UTOptions`' defaults."""
        base, own = UTOptions(), {"window", "act", "ponder_weight"}
        options = {
            f.name: getattr(self.model, f.name)
            for f in fields(UTOptions)
            if f.name not in own | set(UT_SIZE)
            and getattr(self.model, f.name) != getattr(base, f.name)
        }
        training = {f.name: getattr(self, f.name) for f in fields(self)}
        del training["model"]
        model = {name: getattr(self.model, name) for name in own}
        return model | {"model_options": options} | training


def train_ut(
    window: int | None,
    act: bool = False,
    seed: int = 0,
    n_rounds: int = 9,
    ponder_weight: float = 0.01,
    model_options: dict | None = None,
    done: Callable | None = None,
    **overrides,
) -> tuple[UniversalTransformer, TrainResult]:
    """A small UT on sums of at most 8 bits. Fixed rounds: the loss reads every round.
    ACT: ``n_rounds`` is the step cap and the loss reads the mixed output plus
    ``ponder_weight`` times the mean ponder cost (tau in Graves's notation), with that
    weight ramped up from 0 over the first 500 steps (``aux_warmup``).
    ``model_options`` go to :class:`UniversalTransformer`, ``overrides`` to
    :class:`TrainConfig`, ``done`` to :func:`recur.training.loop.train`."""
    torch.manual_seed(seed)
    model = UniversalTransformer(
        window=window,
        act=act,
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
        "stop_at_exact": ACT_TARGET if act else 1.0,
        "aux_warmup": 500 if act else 0,
        "seed": seed,
    } | overrides
    return model, train(model, TrainConfig(**settings), done)


# Chapter 4's local UT: a window of one, 9 fixed rounds, step size 3e-3, stopping once
# every held-out pair is right, or after 1,500 steps.
LOCAL_UT = UTRecipe(UTOptions(window=1, **UT_SIZE), n_steps=1500, lr=3e-3)


def train_local_ut(seed: int = 0, max_attempts: int = 2, **overrides) -> CellRun:
    """Chapter 4's training procedure: :data:`LOCAL_UT`, and if 1,500 steps do not get
    every held-out pair right, again from the next seed of
    :func:`recur.training.config.attempt_seeds`, at most ``max_attempts`` runs (the
    restart of Chapters 2, 6 and 7). The restart and the step cap rest on the live
    study's seeds (``data/live_seeds.csv``) and on seeds 820-859, used for nothing else,
    where every run got every held-out pair right by step 1,100. ``overrides`` go to
    :func:`train_ut` (``device``, ``progress``, ...)."""
    (model, run), n_runs, seconds = restarting(
        lambda attempt_seed: train_ut(
            **(LOCAL_UT.settings() | overrides), seed=attempt_seed
        ),
        lambda result: result[1].reached,
        seed,
        max_attempts,
    )
    return CellRun(model, run, [], n_runs, seconds, kept="")


# Chapter 4's full-attention UT: 9 fixed rounds, step size 3e-3, one run that stops
# once every held-out pair is right, or after 800 steps.
FULL_UT = UTRecipe(UTOptions(window=None, **UT_SIZE), n_steps=800, lr=3e-3)


def train_full_ut(seed: int = 0, **overrides) -> tuple:
    """Chapter 4's full-attention UT: one run of :data:`FULL_UT`, (model, run);
    ``overrides`` go to :func:`train_ut`."""
    return train_ut(**(FULL_UT.settings() | overrides), seed=seed)


def train_both_uts(seed: int = 0, jobs: int = 1, **overrides) -> tuple:
    """Chapter 4's two trainings, from the same ``seed``: (:func:`train_local_ut`'s
    run, :func:`train_full_ut`'s model and run). With ``jobs=2`` the full-attention UT
    trains in a second process (no progress bar there) while the local one trains
    here: on two cores, in the time of the longer one, with the same numbers, as each
    training is seeded by itself."""
    if jobs not in (1, 2):
        raise ValueError(f"jobs must be 1 or 2, got {jobs}")
    if jobs == 1:
        return train_local_ut(seed, **overrides), train_full_ut(seed, **overrides)
    with beside(train_full_ut, seed, **(overrides | {"progress": False})) as full:
        local = train_local_ut(seed, **overrides)
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
