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
from dataclasses import dataclass, field

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from recur.device import pick_device, seed_everything
from recur.tasks import AdditionBatch, random_batch


@dataclass
class TrainConfig:
    n_steps: int = 1500
    batch_size: int = 128
    lr: float = 1e-2
    clip_norm: float = 1.0  # gradient clipping, the usual guard for unrolled loops
    min_bits: int = 1  # training widths are drawn from min_bits..max_bits
    max_bits: int = 8
    n_rounds: int | None = None  # default max_bits + 1: enough for any carry chain
    max_rounds: int | None = None  # if set, each step runs n_rounds..max_rounds rounds
    loss_window: int = 1  # the loss reads the last loss_window rounds of each run
    aux_warmup: int = 0  # the model's extra loss (ACT's ponder cost) ramps up over this
    eval_every: int = 50
    eval_size: int = 10_000  # held-out pairs of max_bits bits, never trained on
    stop_at_exact: float | None = 1.0  # stop once held-out exact match reaches this
    seed: int = 0
    device: str = "auto"
    progress: bool = True

    def rounds(self) -> int:
        """Rounds of the shortest training run (and of the held-out check)."""
        return self.n_rounds if self.n_rounds is not None else self.max_bits + 1

    def eval_rounds(self) -> int:
        """Rounds of the held-out check: the longest run the model was trained for."""
        return self.max_rounds if self.max_rounds is not None else self.rounds()

    def check(self) -> None:
        if min(self.n_steps, self.batch_size, self.eval_size, self.eval_every) < 1:
            raise ValueError(
                "n_steps, batch_size, eval_size and eval_every must be >= 1"
            )
        if not 1 <= self.min_bits <= self.max_bits:
            raise ValueError(
                f"need 1 <= min_bits <= max_bits, got {self.min_bits}, {self.max_bits}"
            )
        if self.max_rounds is not None and self.max_rounds < self.rounds():
            raise ValueError(
                f"max_rounds must be >= {self.rounds()}, got {self.max_rounds}"
            )
        if not 1 <= self.loss_window <= self.rounds():
            raise ValueError(
                f"loss_window must be in 1..{self.rounds()}, got {self.loss_window}"
            )


@dataclass
class TrainResult:
    model: nn.Module
    history: pd.DataFrame  # one row per evaluation: step, loss, exact, seconds
    seconds: float  # wall time of the whole run
    seconds_to_target: (
        float | None
    )  # when held-out exact match first reached the target
    interrupted: bool = False
    config: TrainConfig = field(default_factory=TrainConfig)


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


@torch.no_grad()
def evaluate(
    model: nn.Module, batch: AdditionBatch, n_rounds: int, chunk: int = 4096
) -> RoundAccuracy:
    """Per-round accuracy of ``model`` on ``batch``, in chunks, on its device."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    right = []
    for i in range(0, batch.bits.shape[0], chunk):
        part = batch.part(i, i + chunk).to(device)
        logits = model(part.bits, n_rounds).logits  # (R, b, n)
        right.append(((logits > 0).float() == part.target).cpu())  # (R, b, n)
    model.train(was_training)
    ok = torch.cat(right, dim=1)  # (R, B, n)
    correct = ok.all(dim=-1)  # (R, B)
    return RoundAccuracy(
        ok.float().mean(dim=(1, 2)), correct.float().mean(dim=1), correct
    )


def window_loss(
    logits: torch.Tensor, target: torch.Tensor, window: int, keep: torch.Tensor
) -> torch.Tensor:
    """Mean BCE over the last ``window`` rounds and the examples in ``keep``."""
    last = logits[-window:]  # (w, B, n)
    loss = F.binary_cross_entropy_with_logits(
        last, target.expand_as(last), reduction="none"
    )
    per_example = loss.mean(dim=(0, 2))  # (B,)
    return (per_example * keep).sum() / keep.sum().clamp(min=1)


def _pair_ids(bits: torch.Tensor) -> torch.Tensor:
    """An id per (a, b) pair of bits (B, n, 2); keeps held-out pairs out of training."""
    weights = 2 ** torch.arange(bits.shape[1], dtype=torch.int64)  # (n,)
    a, b = (bits[..., k].long() @ weights for k in range(2))  # (B,), (B,)
    return a * 2 ** bits.shape[1] + b  # (B,)


def _draw_rounds(cfg: TrainConfig, gen: torch.Generator) -> int:
    if cfg.max_rounds is None:
        return cfg.rounds()
    return int(torch.randint(cfg.rounds(), cfg.max_rounds + 1, (1,), generator=gen))


def _heldout_exact(model: nn.Module, heldout: AdditionBatch, n_rounds: int) -> float:
    """Exact match on the first 1,000 held-out pairs; on all once that is perfect."""
    small = heldout.part(0, 1000)
    exact = float(evaluate(model, small, n_rounds).exact[-1])
    if exact == 1.0 and heldout.bits.shape[0] > 1000:
        exact = float(evaluate(model, heldout, n_rounds).exact[-1])
    return exact


def aux_scale(step: int, warmup: int) -> float:
    """Weight of the model's extra loss at ``step`` (1-based): linear from 0 to 1 over
    ``warmup`` steps, then 1."""
    return 1.0 if warmup <= 0 else min(1.0, (step - 1) / warmup)


def _heldout_pairs(cfg: TrainConfig) -> tuple[AdditionBatch, torch.Tensor]:
    """The held-out pairs and the ids of those to keep out of training: all of them
    when they are a small part of all pairs (8 bits: 10,000 of 65,536), none for tiny
    widths, where every pair would be held out."""
    heldout = random_batch(cfg.eval_size, cfg.max_bits, seed=cfg.seed + 1_000_003)
    if 4 * cfg.eval_size <= 2 ** (2 * cfg.max_bits):
        return heldout, _pair_ids(heldout.bits)  # (eval_size,)
    return heldout, torch.empty(0, dtype=torch.long)


def _step(
    model, opt, batch: AdditionBatch, keep, n_rounds: int, aux_weight: float, cfg
) -> float:
    """One optimiser step on one batch; returns the loss."""
    out = model(batch.bits, n_rounds)  # logits (R, B, n)
    task = window_loss(out.logits, batch.target, cfg.loss_window, keep)
    loss = task + aux_weight * out.aux_loss
    opt.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
    opt.step()
    return loss.item()


def train(model: nn.Module, cfg: TrainConfig | None = None) -> TrainResult:
    """Train ``model`` on random additions of ``min_bits..max_bits`` bits.

    Every ``eval_every`` steps the readout after ``cfg.eval_rounds()`` rounds is checked
    on held-out pairs; with ``stop_at_exact`` training stops once it is that good."""
    cfg = cfg or TrainConfig()
    cfg.check()
    gen = seed_everything(cfg.seed)
    device = pick_device(cfg.device)
    model.to(device).train()
    heldout, heldout_ids = _heldout_pairs(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    rows, start, reached, interrupted = [], time.perf_counter(), None, False
    bar = tqdm(range(1, cfg.n_steps + 1), disable=not cfg.progress, desc="training")
    try:
        for step in bar:
            batch = random_batch(
                cfg.batch_size, cfg.max_bits, gen, min_bits=cfg.min_bits
            )
            keep = ~torch.isin(_pair_ids(batch.bits), heldout_ids)  # (B,) not held out
            keep = keep.float().to(device)
            n_rounds = _draw_rounds(cfg, gen)
            weight = aux_scale(step, cfg.aux_warmup)
            loss = _step(model, opt, batch.to(device), keep, n_rounds, weight, cfg)
            if step % cfg.eval_every and step != cfg.n_steps:
                continue
            exact = _heldout_exact(model, heldout, cfg.eval_rounds())
            seconds = time.perf_counter() - start
            rows.append(
                {"step": step, "loss": loss, "exact": exact, "seconds": seconds}
            )
            bar.set_postfix(loss=f"{loss:.4f}", exact=f"{exact:.4f}")
            if cfg.stop_at_exact is not None and exact >= cfg.stop_at_exact:
                reached = seconds
                break
    except KeyboardInterrupt:
        interrupted = True  # keep the model and the history so far
    finally:
        bar.close()
    history = pd.DataFrame(rows, columns=["step", "loss", "exact", "seconds"])
    return TrainResult(
        model, history, time.perf_counter() - start, reached, interrupted, cfg
    )
