r"""What a shared layer costs (Chapter 7): the memory that training keeps, and the time
and memory of one Universal Transformer round with full, masked-local and banded-local
attention.

Masked local attention (Chapter 4's ``local_mask``) still computes all n x n scores and
throws most away: O(n^2 d) time and O(n^2) memory per head. Banded attention computes
only the w + 1 scores each position may use: O(n w d) and O(n w). The
efficient-Transformer survey (Tay et al., arXiv 2009.06732, Section 3.1) files such
windows under "fixed patterns"; weight sharing is a separate, orthogonal family (its
Section 4.3).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd
import torch

from recur.core.device import synchronize
from recur.models.attention import (
    UTBlock,
    banded_attention,
    count_parameters,
    flops_per_token,
    local_mask,
)


def saved_bytes(run: Callable[[], object], exclude=()) -> int:
    """Bytes that autograd keeps for the backward pass while ``run()`` executes: the
    distinct storages saved by every operation (a view of a kept storage is not counted
    twice), leaving out those of the tensors in ``exclude`` (pass the model's
    parameters to count activations only: the weights are kept anyway). This is the
    memory that grows when a loop is unrolled for backprop."""
    skip = {t.untyped_storage().data_ptr() for t in exclude}
    storages: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in skip:
            storages[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run()
    return sum(storages.values())


ATTENTION = ("full", "masked local", "banded local")


def ut_round(
    block: UTBlock, x: torch.Tensor, attention: str, window: int = 1
) -> torch.Tensor:
    """One round of the shared block (Eqs. 4-5) with full, masked-local or banded-local
    attention."""
    if attention == "banded local":
        attended = banded_attention(x, block.attn, window)  # (B, n, d)
        a = block.norm_attn(x + attended)  # (B, n, d): Eq. 5
        return block.norm_out(a + block.transition(a))  # (B, n, d): Eq. 4
    if attention not in ATTENTION:
        raise ValueError(f"attention must be one of {ATTENTION}, got {attention!r}")
    mask = None if attention == "full" else local_mask(x.shape[1], window, x.device)
    return block(x, mask)


def attention_costs(
    block: UTBlock, sizes: list[int], repeats: int = 3, seed: int = 0
) -> pd.DataFrame:
    """For each length n: seconds of one round's forward pass (the fastest of
    ``repeats``, after a warm-up; the three attentions interleaved, A B C A B C ...,
    so that a busy machine slows all of them alike) and the bytes kept for backward,
    on one sequence of n positions."""
    rows = []
    device = next(block.parameters()).device
    for n in sizes:
        gen = torch.Generator().manual_seed(seed + n)
        x = torch.randn(1, n, block.attn.embed_dim, generator=gen).to(device)
        seconds = {name: [] for name in ATTENTION}
        with torch.no_grad():
            for _ in range(repeats + 1):
                for name in ATTENTION:
                    seconds[name].append(_timed(block, x, name))
        for name in ATTENTION:
            memory = saved_bytes(
                lambda name=name, x=x: ut_round(block, x, name), block.parameters()
            )
            best = min(seconds[name][1:])
            rows.append({"n": n, "attention": name, "seconds": best, "bytes": memory})
    return pd.DataFrame(rows)


def _timed(block: UTBlock, x: torch.Tensor, attention: str) -> float:
    synchronize(x.device)
    start = time.perf_counter()
    out = ut_round(block, x, attention)
    synchronize(out.device)
    return time.perf_counter() - start


def sharing_costs(
    d_model: int = 512, d_ff: int = 2048, n_layers: int = 12, seq_len: int = 512
) -> pd.DataFrame:
    """Parameters and multiply-adds per token of ``n_layers`` rounds of encoder layers
    under three sharing schemes: every layer separate; one layer shared by every round
    (the Universal Transformer, ALBERT); and the "sandwich" of Subformer (Reid et al.,
    arXiv 2101.00234), in which the first and last layers are separate and every
    layer between them shares one set of weights. The computation is the same for
    all three: sharing saves parameters, not arithmetic."""
    per_layer = count_parameters(d_model, d_ff, 1)["one layer"]
    work = flops_per_token(d_model, d_ff, seq_len, n_layers)
    distinct = {
        "every layer separate": n_layers,
        "one layer shared": 1,
        "sandwich (first, last separate)": min(n_layers, 3),
    }
    rows = [
        {
            "scheme": name,
            "distinct layers": k,
            "parameters": k * per_layer,
            "multiply-adds per token": work[f"{n_layers} layers or rounds"],
        }
        for name, k in distinct.items()
    ]
    return pd.DataFrame(rows).set_index("scheme")


def band_ahead_from(costs: pd.DataFrame) -> int | None:
    """The fewest positions from which, at every measured length, banded attention is
    the fastest of the three kinds and keeps less memory than the masked window, from
    :func:`attention_costs` rows (``n``, ``attention``, ``seconds``, ``bytes``) of one
    device; None when the band is behind at the longest length."""
    table = costs.set_index(["n", "attention"])
    ahead_from = None
    for n in sorted(costs["n"].unique(), reverse=True):
        band, full, mask = (table.loc[(n, kind)] for kind in ATTENTION_KINDS)
        fastest = band["seconds"] < min(full["seconds"], mask["seconds"])
        if not (fastest and band["bytes"] < mask["bytes"]):
            break
        ahead_from = int(n)
    return ahead_from


ATTENTION_KINDS = ("banded local", "full", "masked local")
