"""The learned cell's variants that Chapters 2, 3 and 7 train in one plain run: with or
without input injection, the loss on one round or on all of them."""

from __future__ import annotations

import torch

from recur.models.cell import LocalCell
from recur.training.config import TrainConfig
from recur.training.loop import train


def train_variant(
    inject: bool, loss_window: int | str, seed: int, **overrides
) -> tuple:
    """Train a :class:`LocalCell` with or without input injection; ``loss_window="all"``
    puts every round in the loss. Returns ``(model, TrainResult)``."""
    cfg = TrainConfig(seed=seed, progress=False, **overrides)
    cfg.loss_window = cfg.rounds() if loss_window == "all" else loss_window
    torch.manual_seed(seed)
    model = LocalCell(inject=inject)
    return model, train(model, cfg)
