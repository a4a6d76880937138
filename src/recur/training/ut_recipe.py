"""The Universal Transformer's training recipes: the size every chapter trains
(:data:`UT_SIZE`), a recipe's settings (:class:`UTRecipe`), the trainer that takes them
(:func:`train_ut`) and every named recipe of the book: Chapter 4's :data:`LOCAL_UT` and
:data:`FULL_UT`, Chapter 6's :data:`FIRST_ACT`, :data:`TUNED_ACT` and :data:`BOOK_ACT`.
A chapter's procedure (its check, its restarts) lives in its chapter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import torch

from recur.models.act import ACT_TARGET
from recur.models.halting import ActHalting, HaltingRule
from recur.models.ut import UniversalTransformer, UTOptions
from recur.training.config import TrainConfig, TrainResult
from recur.training.loop import train

UT_SIZE = {"d_model": 32, "n_heads": 4, "d_ff": 64}
TRAIN_UT_BATCH = 64  # sums per training step of every UT


@dataclass(frozen=True)
class UTRecipe:
    """How :func:`train_ut` trains a UT of :data:`UT_SIZE`: the model's options and
    the training settings. ``dataclasses.replace`` makes a variant; :meth:`settings`
    is what ``train_ut`` takes."""

    model: UTOptions  # window and the halting rule included
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
        base, own = UTOptions(), {"window", "halting"}
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
    halting: HaltingRule | None = None,
    seed: int = 0,
    n_rounds: int = 9,
    model_options: dict | None = None,
    done: Callable | None = None,
    **overrides,
) -> tuple[UniversalTransformer, TrainResult]:
    """A small UT on sums of at most 8 bits. Fixed rounds: the loss reads every round.
    With a halting rule, ``n_rounds`` is the step cap and the rule says how it trains
    (:meth:`HaltingRule.loop_settings`; ACT: the loss reads the mixed output plus tau
    times the mean ponder cost, tau ramped up from 0 over the first 500 steps).
    ``model_options`` go to :class:`UniversalTransformer`, ``overrides`` to
    :class:`TrainConfig`, ``done`` to :func:`recur.training.loop.train`."""
    torch.manual_seed(seed)
    options = {"window": window, "halting": halting} | (model_options or {})
    model = UniversalTransformer(**options)
    fixed = {"loss_window": n_rounds, "stop_at_exact": 1.0, "aux_warmup": 0}
    settings = {
        "lr": 1e-3,
        "batch_size": TRAIN_UT_BATCH,
        "n_steps": 1500,
        "eval_every": 100,
        "n_rounds": n_rounds,
        "seed": seed,
    }
    settings |= fixed if halting is None else halting.loop_settings()
    settings |= overrides
    return model, train(model, TrainConfig(**settings), done)


# Chapter 4's local UT: a window of one, 9 fixed rounds, step size 3e-3, stopping once
# every held-out pair is right, or after 1,500 steps.
LOCAL_UT = UTRecipe(UTOptions(window=1), n_steps=1500, lr=3e-3)


# Chapter 4's full-attention UT: 9 fixed rounds, step size 3e-3, one run that stops
# once every held-out pair is right, or after 800 steps.
FULL_UT = UTRecipe(UTOptions(window=None), n_steps=800, lr=3e-3)


# Chapter 6's first recipe: local window of one, ACT with a cap of 12 rounds,
# tau = 0.01, the sinusoidal position signal, no injection. It adds 8-bit sums but not
# longer ones; the studies of the chapter measure why.
FIRST_ACT = UTRecipe(
    UTOptions(window=1, halting=ActHalting()), n_rounds=12, stop_at_exact=ACT_TARGET
)

# A simpler procedure than Chapter 6's, and the base of its studies of single pieces
# (``recipe``, ``waiting``): the input re-fed every round, a learned relative attention
# bias instead of the sinusoid, no round signal, a 0 + 0 "floor" bit under bit 0, noise
# on the halting logits while training, tau = 0.1, a quarter of each batch with long
# carry chains, a larger step size, and 800 steps with no early stop and no check.
TUNED_ACT = replace(
    FIRST_ACT,
    model=replace(
        FIRST_ACT.model,
        inject=True,
        position="relative",
        round_signal=False,
        floor=True,
        halting=ActHalting(ponder_weight=0.1, noise=2.0),
    ),
    chain_share=0.25,
    lr=3e-3,
    n_steps=800,
    stop_at_exact=None,
)

# Chapter 6's model; :func:`recur.chapters.ch6_act_ut.train_book_act` trains it with
# its check and restarts.
# On top of TUNED_ACT: while training, each position pauses in each round with chance
# 1/4 (it keeps its state), so the round count does not tell when a carry arrives; a cap
# of 16 rounds while training (the pauses make chains slower); the step size falls to 0
# over 1,200 steps (cosine); half of the long-chain training sums have a kill (0 + 0) at
# the bottom of the planted run instead of a generate, so that a long wait does not
# promise a carry (``act_seeds.csv``: TUNED_ACT's models guess "carry"); and ACT steps
# the shared block only on the sums that still have a running position
# (``train_rows_only``: the same computation in exact arithmetic, cheaper per step);
# and the model reads each pair of bits as a set (``pair_as_set``), so that a run of
# equal pairs (1111 + 0001), which random training sums almost never hold, looks like
# any other run of propagating pairs.
BOOK_ACT = replace(
    TUNED_ACT,
    model=replace(
        TUNED_ACT.model,
        pause=0.25,
        pair_as_set=True,
        halting=replace(TUNED_ACT.model.halting, train_rows_only=True),
    ),
    n_rounds=16,
    lr_decay="cosine",
    n_steps=1200,
    chain_kill_share=0.5,
)
