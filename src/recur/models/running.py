"""Running a model to read it, not to train it: on the model's own device, in eval
mode, without gradients, the result back on the CPU."""

from __future__ import annotations

from contextlib import contextmanager

import pandas as pd
import torch
from torch import nn

from recur.core.carry import to_str
from recur.core.device import cpu_threads
from recur.core.tasks import batch_from_strings
from recur.models.cell import Unroll, check_rounds


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


@torch.no_grad()
def solver_walk(deq: nn.Module, a: str, b: str, n_iter: int) -> pd.DataFrame:
    """Plain iteration of the DEQ cell on one sum, as its solver runs it (from zeros,
    z <- F(z + E)): after each of iterations 1..``n_iter``, the readout (MSB first,
    with the carry-out bit) and how much the state moved, |f(z) - z| / (|f(z)| +
    1e-12), the solver's stopping test: what Chapter 7's explorer draws."""
    check_rounds(n_iter)
    bits = batch_from_strings([(a, b)]).bits  # (1, n + 1, 2)
    with eval_mode(deq):
        problem = deq.cell.embed(bits.to(model_device(deq)))  # (1, n + 1, d)
        state = torch.zeros_like(problem)  # (1, n + 1, d)
        rows = []
        for k in range(1, n_iter + 1):
            moved = deq.update(problem, state)  # (1, n + 1, d): f(z)
            change = (moved - state).norm() / (moved.norm() + 1e-12)
            state = moved
            logits = deq.cell.readout(state).squeeze(-1)[0].cpu()  # (n + 1,)
            readout = "".join("1" if x > 0 else "0" for x in logits.tolist()[::-1])
            rows.append({"iteration": k, "readout": readout, "change": float(change)})
    return pd.DataFrame(rows).set_index("iteration")
