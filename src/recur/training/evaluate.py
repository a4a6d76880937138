"""How right a model is after each round, and the loss that reads its rounds."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch
from torch import nn

from recur.core.tasks import AdditionBatch
from recur.models.running import run_model


@dataclass
class RoundAccuracy:
    """Accuracy of the readout after each round 1..R."""

    bit: torch.Tensor  # (R,) fraction of correct bits
    exact: torch.Tensor  # (R,) fraction of examples with every bit correct
    correct: torch.Tensor  # (R, B) bool: example fully correct after round r

    def table(self) -> pd.DataFrame:
        rounds = range(1, len(self.exact) + 1)
        return pd.DataFrame(
            {
                "round": rounds,
                "bit accuracy": self.bit.numpy(),
                "exact match": self.exact.numpy(),
            }
        ).set_index("round")


def evaluate(
    model: nn.Module, batch: AdditionBatch, n_rounds: int, chunk: int = 4096
) -> RoundAccuracy:
    """Per-round accuracy of ``model`` on ``batch``, in chunks, on its device."""
    right = []
    for i in range(0, batch.bits.shape[0], chunk):
        part = batch.part(i, i + chunk)
        logits = run_model(model, part.bits, n_rounds).logits  # (R, b, n), CPU
        right.append((logits > 0).float() == part.target.cpu())  # (R, b, n)
    ok = torch.cat(right, dim=1)  # (R, B, n)
    correct = ok.all(dim=-1)  # (R, B)
    return RoundAccuracy(
        ok.float().mean(dim=(1, 2)), correct.float().mean(dim=1), correct
    )
