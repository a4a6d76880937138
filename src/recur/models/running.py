"""Running a model to read it, not to train it: on the model's own device, in eval
mode, without gradients, the result back on the CPU."""

from __future__ import annotations

from contextlib import contextmanager

import torch
from torch import nn

from recur.core.carry import to_str
from recur.core.device import cpu_threads
from recur.core.tasks import batch_from_strings
from recur.models.cell import Unroll


def model_device(model: nn.Module) -> torch.device:
    """The device of the model's parameters: where its inputs must go."""
    return next(model.parameters()).device


@contextmanager
def eval_mode(model: nn.Module):
    """Switch ``model`` to eval mode for the block; restore the mode it had."""
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)


@torch.no_grad()
def run_model(model: nn.Module, bits: torch.Tensor, n_rounds: int, **options) -> Unroll:
    """Every measurement's one way to run a model: the inputs go to the model's device,
    the model runs in eval mode (its mode is restored afterwards) without building a
    graph for gradients (a long run would keep every round's activations), and the
    results come back on the CPU. ``options`` go to the model's ``forward``, tensors
    moved to its device too."""
    device = model_device(model)
    options = {
        k: v.to(device) if isinstance(v, torch.Tensor) else v
        for k, v in options.items()
    }
    with eval_mode(model), cpu_threads(None, device):
        return model(bits.to(device), n_rounds, **options).cpu()


def learned_readouts(model: nn.Module, a: str, b: str, n_rounds: int) -> list[str]:
    """The model's readout (MSB first, with the carry-out bit) after rounds 1..R."""
    batch = batch_from_strings([(a, b)])
    logits = run_model(model, batch.bits, n_rounds).logits[:, 0]  # (R, n + 1)
    return [to_str((row > 0).numpy()) for row in logits]
