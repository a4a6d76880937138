"""One training loop for every model in the book, and the evaluation it reports.

A model takes ``bits`` (B, n, 2) and ``n_rounds`` and returns an :class:`Unroll` with a
readout after every round. The loss is binary cross-entropy on the readouts of the last
``loss_window`` rounds (``1``: the final round only; more: the round-window loss of
arXiv 2311.12424, which asks the answer to be right and to *stay* right) plus the
model's own extra term (ACT's ponder cost). Ctrl-C stops training cleanly: the model and
the history so far are returned.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from recur.device import cpu_threads, pick_device, seed_everything, synchronize
from recur.page import static_page
from recur.shared import Unroll
from recur.tasks import AdditionBatch, chain_batch, concat_batches, random_batch


@dataclass
class TrainConfig:
    n_steps: int = 1500
    batch_size: int = 128
    lr: float = 1e-2
    lr_decay: str = "none"  # "cosine": the step size falls to 0 over n_steps
    clip_norm: float = 1.0  # gradient clipping, the usual guard for unrolled loops
    min_bits: int = 1  # training widths are drawn from min_bits..max_bits
    max_bits: int = 8
    chain_share: float = 0.0  # share of each batch drawn by chain_batch
    chain_kill_share: float = 0.0  # of those, the share with no carry (a kill below)
    n_rounds: int | None = None  # default max_bits + 1: enough for any carry chain
    max_rounds: int | None = None  # if set, each step runs n_rounds..max_rounds rounds
    loss_window: int = 1  # the loss reads the last loss_window rounds of each run
    aux_warmup: int = 0  # the model's extra loss (ACT's ponder cost) ramps up over this
    eval_every: int = 50
    eval_size: int = 10_000  # held-out pairs of max_bits bits, never trained on
    stop_at_exact: float | None = 1.0  # stop once held-out exact match reaches this
    seed: int = 0
    device: str = "auto"
    n_threads: int | None = None  # CPU threads; None: see recur.device.cpu_threads
    progress: bool = True  # a progress bar (never on the static page: recur.page)

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
        if self.lr_decay not in ("none", "cosine"):
            raise ValueError(
                f"lr_decay must be 'none' or 'cosine', got {self.lr_decay!r}"
            )
        if not 0 <= self.chain_share <= 1:
            raise ValueError(f"chain_share must be in [0, 1], got {self.chain_share}")
        if not 0 <= self.chain_kill_share <= 1:
            share = self.chain_kill_share
            raise ValueError(f"chain_kill_share must be in [0, 1], got {share}")
        if not 1 <= self.loss_window <= self.rounds():
            raise ValueError(
                f"loss_window must be in 1..{self.rounds()}, got {self.loss_window}"
            )


HISTORY_COLUMNS = ["step", "loss", "exact", "pairs", "seconds"]


class GiveUp(Exception):
    """Raised by :func:`train`'s ``done`` check to stop a run that, by what the check
    saw, will not reach its target: :func:`train` returns what it has, ``gave_up``."""


@dataclass
class TrainResult:
    model: nn.Module
    history: pd.DataFrame  # one row per evaluation: HISTORY_COLUMNS
    seconds: float  # wall time of the whole run
    seconds_to_target: (
        float | None
    )  # when held-out exact match first reached the target
    interrupted: bool = False
    config: TrainConfig = field(default_factory=TrainConfig)
    gave_up: bool = False  # a ``done`` check raised :class:`GiveUp`

    @property
    def reached(self) -> bool:
        """Whether held-out exact match reached the target (``stop_at_exact``)."""
        return self.seconds_to_target is not None

    def seconds_to(self, target: float) -> float:
        """Seconds from the start until a check first measured at least ``target``
        held-out exact match (on the pairs that check measured: the 1,000-pair screen,
        or all of them once the screen reached ``stop_at_exact``, 100% when that is
        None); NaN if no check did. Any run, whatever made it stop."""
        hits = self.history[self.history["exact"] >= target]
        return float(hits["seconds"].iloc[0]) if len(hits) else float("nan")

    def words(self) -> str:
        """What the run did, for the page, derived from its history: when it reached
        the target on the held-out pairs, or how far it got."""
        last = self.history.iloc[-1]
        steps, pairs = int(last["step"]), int(last["pairs"])
        if self.gave_up:
            return f"gave up after {steps:,} steps (its check said it would not pass)"
        if self.reached:
            target = self.config.stop_at_exact
            share = "all" if target == 1.0 else f"{target:.0%} of the"
            return (
                f"added {share} {pairs:,} held-out pairs after {steps:,} steps "
                f"({self.seconds_to_target:.1f} s on this machine)"
            )
        return (
            f"did not reach the target in {steps:,} steps: it adds "
            f"{last['exact']:.2%} of the {pairs:,} held-out pairs checked last"
        )

    def table(self, rows: int = 12) -> pd.DataFrame:
        """Every check of the history as a reader wants it: exact match in per cent,
        the number of held-out pairs checked, seconds to one decimal. A longer history
        is thinned to ``rows`` evenly spaced checks, the first and the last kept."""
        if rows < 2:
            raise ValueError(f"rows must be >= 2 (the first and last), got {rows}")
        picks = np.linspace(0, len(self.history) - 1, rows).round().astype(int)
        shown = self.history.iloc[np.unique(picks) if len(self.history) else []]
        return pd.DataFrame(
            {
                "loss": shown["loss"].map("{:.4f}".format).to_numpy(),
                "held-out exact": shown["exact"].map("{:.2%}".format).to_numpy(),
                "pairs checked": shown["pairs"].map("{:,}".format).to_numpy(),
                "seconds": shown["seconds"].map("{:.1f}".format).to_numpy(),
            },
            index=pd.Index(shown["step"].to_numpy(), name="step"),
        )


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
def run_model(model: nn.Module, bits: torch.Tensor, n_rounds: int) -> Unroll:
    """Every measurement's one way to run a model: the inputs go to the model's device,
    the model runs in eval mode (its mode is restored afterwards) without building a
    graph for gradients (a long run would keep every round's activations), and the
    results come back on the CPU."""
    device = model_device(model)
    with eval_mode(model), cpu_threads(None, device):
        return model(bits.to(device), n_rounds).cpu()


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


def _heldout_exact(
    model: nn.Module, heldout: AdditionBatch, n_rounds: int, screen: float | None
) -> tuple[float, int]:
    """Held-out exact match and the number of pairs it was measured on. The first 1,000
    pairs are a quick screen; once they reach ``screen`` (``None``: always), every
    held-out pair is measured, so a run stops on, and reports, the whole set."""
    exact = float(evaluate(model, heldout.part(0, 1000), n_rounds).exact[-1])
    n_pairs = min(1000, len(heldout))
    if len(heldout) > 1000 and (screen is None or exact >= screen):
        exact = float(evaluate(model, heldout, n_rounds).exact[-1])
        n_pairs = len(heldout)
    return exact, n_pairs


def aux_scale(step: int, warmup: int) -> float:
    """Weight of the model's extra loss at ``step`` (1-based): linear from 0 to 1 over
    ``warmup`` steps, then 1."""
    return 1.0 if warmup <= 0 else min(1.0, (step - 1) / warmup)


def step_size(step: int, cfg: TrainConfig) -> float:
    """The step size at ``step`` (1-based): ``cfg.lr``, or with ``lr_decay="cosine"``
    ``lr * (1 + cos(pi * (step - 1) / n_steps)) / 2``, from ``lr`` towards 0."""
    if cfg.lr_decay == "none":
        return cfg.lr
    return cfg.lr * (1 + math.cos(math.pi * (step - 1) / cfg.n_steps)) / 2


def attempt_seeds(seed: int, max_attempts: int) -> list[int]:
    """The seeds of a training procedure that starts again when its check never
    passes (Chapters 2, 6 and 7): ``seed``, then ``seed + 1000``, ``seed + 2000``, ...,
    ``max_attempts`` in all."""
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
    return [seed + 1000 * attempt for attempt in range(max_attempts)]


def restarting(
    train_once: Callable[[int], Any],
    passed: Callable[[Any], bool],
    seed: int,
    max_attempts: int,
) -> tuple[Any, int, float]:
    """A training procedure that starts again from a new seed when its check never
    passes (Chapters 2, 4, 6 and 7): ``train_once(s)`` for each ``s`` of
    :func:`attempt_seeds` until ``passed`` says yes of what it returned. The last
    run's result, the number of runs and the seconds of all of them."""
    start = time.perf_counter()
    seeds = attempt_seeds(seed, max_attempts)
    for attempt_seed in seeds:
        result = train_once(attempt_seed)
        if passed(result):
            break
    n_runs = seeds.index(attempt_seed) + 1
    return result, n_runs, time.perf_counter() - start


def heldout_pairs(cfg: TrainConfig) -> tuple[AdditionBatch, frozenset[bytes]]:
    """The held-out pairs and the keys of those to keep out of training: all of them
    when they are a small part of all pairs (8 bits: 10,000 of 65,536), none for tiny
    widths, where every pair would be held out."""
    heldout = random_batch(cfg.eval_size, cfg.max_bits, seed=cfg.seed + 1_000_003)
    if 4 * cfg.eval_size <= 2 ** (2 * cfg.max_bits):
        return heldout, frozenset(_pair_keys(heldout.bits))
    return heldout, frozenset()


def _step(
    model, opt, batch: AdditionBatch, keep, n_rounds: int, aux_weight: float, cfg
) -> float:
    """One optimiser step on one batch; returns the loss."""
    out = model(batch.bits, n_rounds)  # logits (R, B, n)
    if hasattr(model, "task_loss"):  # a model with its own loss (PonderNet's Eq. 6)
        task = model.task_loss(out, batch.target, keep)
    else:
        task = window_loss(out.logits, batch.target, cfg.loss_window, keep)
    loss = task + aux_weight * out.aux_loss
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
    if hasattr(model, "task_loss") and (cfg.loss_window != 1 or cfg.aux_warmup):
        raise ValueError(
            "this model computes its own loss (task_loss): loss_window and aux_warmup "
            "do not apply to it; leave them at 1 and 0"
        )
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
    quiet = not cfg.progress or static_page()
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
