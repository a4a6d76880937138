"""The Universal Transformer's training recipes: the size every chapter trains
(:data:`UT_SIZE`), a recipe (:class:`UTRecipe`: every setting, typed), the trainer
that reads it (:func:`train_ut`) and every named recipe of the book: Chapter 4's
:data:`LOCAL_UT` and :data:`FULL_UT`, Chapter 6's :data:`FIRST_ACT`, :data:`TUNED_ACT`
and :data:`BOOK_ACT`. A chapter's procedure (its check, its restarts) lives in its
chapter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import torch

from recur.models.act import ACT_TARGET
from recur.models.halting import ActHalting
from recur.models.ut import UniversalTransformer, UTOptions
from recur.training.config import TrainConfig, TrainResult
from recur.training.loop import train

UT_SIZE = {"d_model": 32, "n_heads": 4, "d_ff": 64}
TRAIN_UT_BATCH = 64  # sums per training step of every UT


@dataclass(frozen=True)
class UTRecipe:
    """Everything :func:`train_ut` reads to train a UT of :data:`UT_SIZE`: the model's
    options and the training's settings, each a typed field. :meth:`but` makes a
    variant, and a setting that is neither the recipe's nor its model's fails there.
    """

    model: UTOptions  # window and the halting rule included
    n_rounds: int = 9  # fixed rounds, or the halting rule's cap while training
    n_steps: int = 1500
    lr: float = 1e-3
    lr_decay: str = "none"  # "cosine": the step size falls to 0 over n_steps
    chain_share: float = 0.0  # the share of each batch with a planted carry chain
    chain_kill_share: float = 0.0  # of those, the share whose run ends in a kill
    eval_every: int = 100
    eval_size: int = 10_000  # held-out pairs of the check, never trained on
    stop_at_exact: float | None = 1.0  # held-out exact match to stop at; None: never
    aux_warmup: int | None = None  # the extra loss's ramp; None: the halting rule's
    batch_size: int = TRAIN_UT_BATCH
    max_bits: int = 8  # training sums have 1..max_bits bits
    # where it runs, which changes no number it learns
    device: str = "auto"
    progress: bool = True
    n_threads: int | None = None

    def __post_init__(self) -> None:
        size = {name: getattr(self.model, name) for name in UT_SIZE}
        if size != UT_SIZE:
            raise ValueError(f"train_ut builds a UT of {UT_SIZE}, not {size}")

    def but(self, **changes) -> UTRecipe:
        """This recipe with ``changes`` to its own fields or its model's
        (``n_steps=8``, ``pause=0.0``, ``halting=ActHalting(noise=0.0)``)."""
        own = {f.name for f in fields(self)} - {"model"}
        of_model = {f.name for f in fields(UTOptions)}
        if unknown := sorted(set(changes) - own - of_model):
            names = ", ".join(unknown)
            raise ValueError(f"no such setting of a UT recipe or its model: {names}")
        to_model = {k: v for k, v in changes.items() if k in of_model}
        to_recipe = {k: v for k, v in changes.items() if k in own}
        return replace(self, model=replace(self.model, **to_model), **to_recipe)

    def config(self, seed: int) -> TrainConfig:
        """The training loop's settings for ``seed``: the recipe's, and the halting
        rule's where the recipe leaves them (fixed rounds: the loss reads every round).
        """
        rule = self.model.halting
        fixed = {"loss_window": self.n_rounds, "aux_warmup": 0}
        loop = fixed if rule is None else rule.loop_settings()
        if self.aux_warmup is not None:
            loop["aux_warmup"] = self.aux_warmup
        own = {f.name: getattr(self, f.name) for f in fields(self)}
        del own["model"], own["aux_warmup"]
        return TrainConfig(**own, **loop, seed=seed)


def train_ut(
    recipe: UTRecipe, seed: int = 0, done: Callable | None = None
) -> tuple[UniversalTransformer, TrainResult]:
    """Train a UT by ``recipe`` from ``seed`` on sums of at most ``max_bits`` bits:
    the model built from the recipe's options, the loop run with its settings
    (:meth:`UTRecipe.config`); ``done`` goes to :func:`recur.training.loop.train`.
    Fixed rounds: the loss reads every round. With a halting rule, ``n_rounds`` is the
    cap and the rule says how it trains (:meth:`HaltingRule.loop_settings`; ACT: the
    mixed output plus tau times the mean ponder cost, tau ramped up from 0 over the
    first 500 steps)."""
    torch.manual_seed(seed)
    model = UniversalTransformer(recipe.model)
    return model, train(model, recipe.config(seed), done)


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
TUNED_ACT = FIRST_ACT.but(
    inject=True,
    position="relative",
    round_signal=False,
    floor=True,
    halting=ActHalting(ponder_weight=0.1, noise=2.0),
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
BOOK_ACT = TUNED_ACT.but(
    pause=0.25,
    pair_as_set=True,
    halting=replace(TUNED_ACT.model.halting, train_rows_only=True),
    n_rounds=16,
    lr_decay="cosine",
    n_steps=1200,
    chain_kill_share=0.5,
)
