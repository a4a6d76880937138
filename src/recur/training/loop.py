"""One training loop for every model in the book, and the evaluation it reports.

A model takes ``bits`` (B, n, 2) and ``n_rounds`` and returns an :class:`Unroll` with a
readout after every round. The loss is binary cross-entropy on the readouts of the last
``loss_window`` rounds (``1``: the final round only; more: the round-window loss of
arXiv 2311.12424, which asks the answer to be right and to *stay* right) plus the
model's own extra term (ACT's ponder cost). Ctrl-C stops training cleanly: the model and
the history so far are returned.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm.auto import tqdm

from recur.core.device import (
    cpu_threads,
    in_a_job,
    pick_device,
    seed_everything,
    synchronize,
)
from recur.core.page import static_page
from recur.core.seeds import HELDOUT_PAIRS
from recur.core.tasks import AdditionBatch, chain_batch, concat_batches, random_batch
from recur.training.config import (
    HISTORY_COLUMNS,
    GiveUp,
    TrainConfig,
    TrainResult,
    aux_scale,
    step_size,
)
from recur.training.evaluate import evaluate


def _pair_keys(bits: torch.Tensor) -> list[bytes]:
    """A key per (a, b) pair of bits (B, n, 2), exact at any width (no integer ids
    that could overflow); keeps held-out pairs out of training."""
    flat = bits.to(torch.uint8).reshape(bits.shape[0], -1).cpu().numpy()  # (B, 2n)
    return [row.tobytes() for row in np.packbits(flat, axis=1)]


def _not_held_out(bits: torch.Tensor, heldout_keys: frozenset[bytes]) -> torch.Tensor:
    """(B,) float: 1 for the pairs that may be trained on, 0 for held-out ones."""
    return torch.tensor([key not in heldout_keys for key in _pair_keys(bits)]).float()


def _training_batch(cfg: TrainConfig, gen: torch.Generator) -> AdditionBatch:
    """Random sums of ``min_bits..max_bits`` bits; with ``chain_share``, that share of
    the batch is replaced by ``max_bits``-bit sums whose longest carry chain has one
    length drawn from 1..max_bits (random sums rarely carry far: Chapter 1)."""
    batch = random_batch(cfg.batch_size, cfg.max_bits, gen, min_bits=cfg.min_bits)
    n_chain = round(cfg.chain_share * cfg.batch_size)
    if n_chain == 0:
        return batch
    length = int(torch.randint(1, cfg.max_bits + 1, (1,), generator=gen))
    kills = cfg.chain_kill_share
    chains = chain_batch(n_chain, cfg.max_bits, length, seed=gen, kill_share=kills)
    return concat_batches(batch.part(0, cfg.batch_size - n_chain), chains)


def _draw_rounds(cfg: TrainConfig, gen: torch.Generator) -> int:
    if cfg.max_rounds is None:
        return cfg.rounds()
    return int(torch.randint(cfg.rounds(), cfg.max_rounds + 1, (1,), generator=gen))


SCREEN_PAIRS = 1000  # held-out pairs measured first, before the whole set


def _heldout_exact(
    model: nn.Module, heldout: AdditionBatch, n_rounds: int, screen: float | None
) -> tuple[float, int]:
    """Held-out exact match and the number of pairs it was measured on. The first
    :data:`SCREEN_PAIRS` pairs are a quick screen; once they reach ``screen``
    (``None``: always), every held-out pair is measured, so a run stops on, and
    reports, the whole set."""
    screened = heldout.part(0, SCREEN_PAIRS)
    exact = float(evaluate(model, screened, n_rounds).exact[-1])
    n_pairs = min(SCREEN_PAIRS, len(heldout))
    if len(heldout) > SCREEN_PAIRS and (screen is None or exact >= screen):
        exact = float(evaluate(model, heldout, n_rounds).exact[-1])
        n_pairs = len(heldout)
    return exact, n_pairs


def heldout_pairs(cfg: TrainConfig) -> tuple[AdditionBatch, frozenset[bytes]]:
    """The held-out pairs and the keys of those to keep out of training: all of them
    when they are a small part of all pairs (8 bits: 10,000 of 65,536), none for tiny
    widths, where every pair would be held out."""
    heldout = random_batch(cfg.eval_size, cfg.max_bits, seed=cfg.seed + HELDOUT_PAIRS)
    if 4 * cfg.eval_size <= 2 ** (2 * cfg.max_bits):
        return heldout, frozenset(_pair_keys(heldout.bits))
    return heldout, frozenset()


def _step(
    model, opt, batch: AdditionBatch, keep, n_rounds: int, aux_weight: float, cfg
) -> float:
    """One optimiser step on one batch; returns the loss."""
    out = model(batch.bits, n_rounds)  # logits (R, B, n)
    task = model.task_loss(out, batch.target, keep, cfg.loss_window)
    aux = out.aux_loss
    if aux.ndim == 1:  # one term per sum (the hold cost): the held-out ones left out
        aux = (aux * keep).sum() / keep.sum().clamp(min=1)
    loss = task + aux_weight * aux
    opt.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
    opt.step()
    return loss.item()


def _check(model, cfg: TrainConfig, heldout, step: int, loss: float, start) -> dict:
    """One row of the history: the held-out exact match after ``step`` steps (on every
    held-out pair at the last step, or once the screen reaches the target)."""
    last = step == cfg.n_steps
    screen = None if last else (cfg.stop_at_exact or 1.0)
    exact, n_pairs = _heldout_exact(model, heldout, cfg.eval_rounds(), screen)
    seconds = time.perf_counter() - start
    return {
        "step": step,
        "loss": loss,
        "exact": exact,
        "pairs": n_pairs,
        "seconds": seconds,
    }


def _setup(model: nn.Module, cfg: TrainConfig) -> tuple:
    """Check ``cfg``, seed everything, put ``model`` on its device in training mode:
    the batch generator, the device and an Adam optimiser."""
    cfg.check()
    model.check_training(cfg.loss_window, cfg.aux_warmup)
    gen = seed_everything(cfg.seed)
    device = pick_device(cfg.device)
    model.to(device).train()
    return gen, device, torch.optim.Adam(model.parameters(), lr=cfg.lr)


def train(
    model: nn.Module,
    cfg: TrainConfig | None = None,
    done: Callable[[nn.Module, dict], bool] | None = None,
) -> TrainResult:
    """Train ``model`` on random additions of ``min_bits..max_bits`` bits.

    Every ``eval_every`` steps the readout after ``cfg.eval_rounds()`` rounds is checked
    on held-out pairs (column ``pairs``: how many); with ``stop_at_exact`` training
    stops once every held-out pair has been measured and that share is right. With
    ``done``, it also stops when ``done(model, row)`` says so after a check (``row``:
    the history row just written); that check then counts as the target reached.
    ``done`` may instead raise :class:`GiveUp`: the run then stops there without
    reaching it (``gave_up``), as when a procedure would rather start again."""
    cfg = cfg or TrainConfig()
    gen, device, opt = _setup(model, cfg)
    heldout, heldout_keys = heldout_pairs(cfg)
    rows, start, reached, interrupted = [], time.perf_counter(), None, False
    gave_up = False
    quiet = not cfg.progress or static_page() or in_a_job()  # a study's bar counts
    bar = tqdm(total=cfg.n_steps, disable=quiet, desc="training")
    try:
        with cpu_threads(cfg.n_threads, device):
            for step in range(1, cfg.n_steps + 1):
                loss = _training_step(
                    model, opt, cfg, (gen, device), heldout_keys, step
                )
                bar.update()
                if step % cfg.eval_every and step != cfg.n_steps:
                    continue
                rows.append(_check(model, cfg, heldout, step, loss, start))
                bar.set_postfix(loss=f"{loss:.4f}", exact=f"{rows[-1]['exact']:.2%}")
                if _target_reached(model, rows[-1], cfg, done):
                    reached = rows[-1]["seconds"]
                    break
    except KeyboardInterrupt:
        interrupted = True  # keep the model and the history so far
    except GiveUp:
        gave_up = True  # the history ends with the check that gave up
    finally:
        _finish(bar, interrupted, gave_up)
    history = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    return TrainResult(
        model, history, time.perf_counter() - start, reached, interrupted, cfg, gave_up
    )


def _training_step(model, opt, cfg: TrainConfig, where, heldout_keys, step: int):
    """Step ``step`` (1-based) of :func:`train` (``where``: the batch generator and
    the device): a fresh batch without the held-out pairs, a drawn number of rounds,
    this step's step size and extra-loss weight."""
    gen, device = where
    batch = _training_batch(cfg, gen)
    keep = _not_held_out(batch.bits, heldout_keys).to(device)  # (B,)
    n_rounds = _draw_rounds(cfg, gen)
    weight = aux_scale(step, cfg.aux_warmup)
    for group in opt.param_groups:
        group["lr"] = step_size(step, cfg)
    return _step(model, opt, batch.to(device), keep, n_rounds, weight, cfg)


def _target_reached(model, row: dict, cfg: TrainConfig, done) -> bool:
    """Whether training may stop after the check that wrote ``row``."""
    if cfg.stop_at_exact is not None and row["exact"] >= cfg.stop_at_exact:
        return True
    return done is not None and bool(done(model, row))


def seconds_per_step(
    model: nn.Module, cfg: TrainConfig, n_steps: int = 20, warmup: int = 3
) -> float:
    """Wall seconds of one training step (batch, forward, backward, optimiser) of
    ``model`` on ``cfg.device``, the mean of ``n_steps`` after ``warmup`` untimed ones,
    the device synchronised before and after: for comparing devices and batch sizes.
    Trains ``model`` a little."""
    gen, device, opt = _setup(model, cfg)
    keep = torch.ones(cfg.batch_size, device=device)  # (B,)

    def one_step() -> None:
        batch = _training_batch(cfg, gen).to(device)
        _step(model, opt, batch, keep, _draw_rounds(cfg, gen), 1.0, cfg)

    with cpu_threads(cfg.n_threads, device):
        for _ in range(warmup):
            one_step()
        synchronize(device)
        start = time.perf_counter()
        for _ in range(n_steps):
            one_step()
        synchronize(device)
    return (time.perf_counter() - start) / n_steps


def _finish(bar, interrupted: bool, gave_up: bool = False) -> None:
    """Close the progress bar. A run that stopped early (target reached, or gave up)
    shows a full bar of the steps it ran, so no half-finished bar stays on a static
    page, and says why it stopped."""
    if not interrupted and bar.total and bar.n < bar.total:
        bar.total = bar.n  # the run is complete: it reached its target or gave up
        widget = getattr(bar, "container", None)
        if widget is not None:  # tqdm.notebook: the bar widget keeps its own maximum
            widget.children[1].max = bar.n
        why = "gave up" if gave_up else "target reached"
        bar.set_description(f"training ({why})")
    bar.close()
