r"""The Universal Transformer's shared block and its attention (Dehghani et al., arXiv
1807.03819, Section 2.1; Eqs. 4-7), full, masked local or banded local, and the
parameter and FLOP counts of Chapter 4."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def sinusoid(positions: torch.Tensor, d_model: int) -> torch.Tensor:
    r"""sin/cos features of integer ``positions`` (L,) -> (L, d), as in Eqs. 6-7."""
    j = torch.arange(0, d_model, 2, dtype=torch.float32)  # (d/2,): the 2j of Eq. 6
    angle = positions.float()[:, None] / 10000 ** (j / d_model)  # (L, d/2)
    table = torch.zeros(len(positions), d_model)
    table[:, 0::2] = torch.sin(angle)  # Eq. 6
    table[:, 1::2] = torch.cos(angle)  # Eq. 7
    return table  # (L, d)


MAX_OFFSET = 16  # relative offsets beyond +-16 share one learned bias


def position_table(n: int, d_model: int, device="cpu") -> torch.Tensor:
    """``sinusoid`` of positions 0..n-1 on ``device``, built once per size and
    device (so a round copies nothing from the CPU); each call gets its own copy, so
    a caller that changes it cannot change the next one's."""
    return _cached_table(n, d_model, torch.device(device)).clone()


@functools.lru_cache(maxsize=256)
def _cached_table(n: int, d_model: int, device: torch.device) -> torch.Tensor:
    return sinusoid(torch.arange(n), d_model).to(device)  # (n, d)


def local_mask(n: int, window: int | None, device="cpu") -> torch.Tensor | None:
    """Boolean attention mask on ``device``, True where attention is *not* allowed:
    position i may see positions i - window .. i. ``None`` (full attention) when
    ``window`` is None."""
    if window is None:
        return None
    if window < 0:
        raise ValueError(f"window must be >= 0 or None, got {window}")
    return _cached_mask(n, window, torch.device(device)).clone()  # the caller's own


@functools.lru_cache(maxsize=64)
def _cached_mask(n: int, window: int, device: torch.device) -> torch.Tensor:
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    return ((j > i) | (j < i - window)).to(device)  # (n, n)


def banded_attention(
    x: torch.Tensor,
    attn: nn.MultiheadAttention,
    window: int,
    bias: torch.Tensor | None = None,
    ring: bool = False,
) -> torch.Tensor:
    r"""Self-attention of ``x`` (B, n, d) in which position i sees i - window .. i, with
    the weights of ``attn``: the same numbers as ``attn(x, x, x, attn_mask=local_mask(n,
    window))``, computing (B, n, H, window + 1) scores instead of (B, H, n, n).
    ``bias`` (H, window + 1), if given, is added to the scores of key slots
    i - window .. i (a relative attention bias, as a float mask would add it).
    With ``ring``, the positions form a ring: the keys below position 0 are the top
    ``window`` positions, so a periodic pattern of n positions behaves as the same
    pattern repeated without end (``UniversalTransformer(..., ring=True)``)."""
    if window < 0:
        raise ValueError(f"window must be >= 0, got {window}")
    batch, n, d = x.shape
    if ring and window > n:
        raise ValueError(f"a ring of {n} positions needs window <= {n}, got {window}")
    heads = attn.num_heads
    qkv = F.linear(x, attn.in_proj_weight, attn.in_proj_bias)  # (B, n, 3d)
    q, k, v = qkv.view(batch, n, 3, heads, d // heads).unbind(2)  # (B, n, H, d_h)
    below = _below_zero(k, v, window, ring)  # (B, w, H, d_h) each: keys under bit 0
    slots = two_slots if window == 1 else unfolded_slots  # same numbers, bit for bit
    mixed = slots(q, k, v, below, bias, ring)  # (B, n, H, d_h)
    return attn.out_proj(mixed.reshape(batch, n, d))  # (B, n, d)


def unfolded_slots(
    q: Tensor, k: Tensor, v: Tensor, below: tuple, bias: Tensor | None, ring: bool
) -> Tensor:
    """Banded attention's mix of values (B, n, H, d_h) from queries, keys and values
    (B, n, H, d_h) and the ``window`` key and value rows ``below`` bit 0 (B, w, H,
    d_h), for any window: the keys and values of slots i - window .. i unfolded into
    (B, n, H, d_h, window + 1)."""
    n, d_head, window = q.shape[1], q.shape[-1], below[0].shape[1]
    keys = torch.cat([below[0], k], 1).unfold(1, window + 1, 1)  # (B, n, H, d_h, w+1)
    values = torch.cat([below[1], v], 1).unfold(1, window + 1, 1)  # (B, n, H, d_h, w+1)
    scores = (q[..., None] * keys).sum(-2) / d_head**0.5  # (B, n, H, w+1)
    if bias is not None:
        scores = scores + bias  # (B, n, H, w+1)
    slots = torch.arange(n, device=q.device)[:, None] + torch.arange(
        window + 1, device=q.device
    )  # (n, w+1): i + j
    before_zero = slots < window  # key i - window + j would lie below bit 0
    if not ring:  # in a ring, the keys below bit 0 are the top positions
        scores = scores.masked_fill(before_zero[:, None, :], float("-inf"))
    weights = scores.softmax(dim=-1)  # (B, n, H, w+1)
    return (values * weights[..., None, :]).sum(-1)  # (B, n, H, d_h)


def two_slots(
    q: Tensor, k: Tensor, v: Tensor, below: tuple, bias: Tensor | None, ring: bool
) -> Tensor:
    """:func:`unfolded_slots` for the book's window of one (slots i - 1 and i),
    without 5-D tensors: the same float operations on the same operands (a sum of two
    terms does not depend on their order), so values and gradients agree bit for bit
    (``tests/test_ut.py``), in less time (``make bench``:
    ``two_slots_over_unfolded``)."""
    n, d_head = q.shape[1], q.shape[-1]
    k_low = torch.cat([below[0], k[:, :-1]], 1)  # (B, n, H, d_h): the key of i - 1
    v_low = torch.cat([below[1], v[:, :-1]], 1)  # (B, n, H, d_h): the value of i - 1
    scores = torch.stack([(q * k_low).sum(-1), (q * k).sum(-1)], -1)  # (B, n, H, 2)
    scores = scores / d_head**0.5  # (B, n, H, 2)
    if bias is not None:
        scores = scores + bias  # (B, n, H, 2)
    if not ring:  # position 0 has no key below it
        below_zero = torch.zeros(n, 1, 2, dtype=torch.bool, device=q.device)
        below_zero[0, 0, 0] = True  # (n, 1, 2)
        scores = scores.masked_fill(below_zero, float("-inf"))
    weights = scores.softmax(dim=-1)  # (B, n, H, 2)
    return v_low * weights[..., :1] + v * weights[..., 1:]  # (B, n, H, d_h)


def _below_zero(k: torch.Tensor, v: torch.Tensor, window: int, ring: bool) -> tuple:
    """The ``window`` key and value rows under position 0: zeros (masked out), or in a
    ring the top ``window`` positions."""
    if ring:
        return k[:, k.shape[1] - window :], v[:, v.shape[1] - window :]
    rows = (k.shape[0], window, *k.shape[2:])  # (B, w, H, d_h), even when w > n
    return k.new_zeros(rows), v.new_zeros(rows)


class UTBlock(nn.Module):
    """Eqs. 4-5: shared self-attention and transition, residuals, post-LayerNorm."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.attn = nn.MultiheadAttention(
            d_model, n_heads, dropout=dropout, batch_first=True
        )
        self.norm_attn = nn.LayerNorm(d_model)
        self.transition = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model)
        )
        self.norm_out = nn.LayerNorm(d_model)

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor | None = None,
        window: int | None = None,
        bias: torch.Tensor | None = None,
        ring: bool = False,
    ) -> torch.Tensor:
        """``x`` is H^{r-1} + P^r, (B, n, d). With ``window``, banded local attention
        (:func:`banded_attention`, score ``bias`` (H, window + 1) per key slot, the
        positions in a ``ring`` if asked); else full attention, or masked by
        ``mask``."""
        if window is not None:
            attended = banded_attention(x, self.attn, window, bias, ring)  # (B, n, d)
        else:
            attended, _ = self.attn(
                x, x, x, attn_mask=mask, need_weights=False
            )  # (B, n, d)
        a = self.norm_attn(x + attended)  # (B, n, d): Eq. 5
        return self.norm_out(a + self.transition(a))  # (B, n, d): Eq. 4


def count_parameters(d_model: int = 512, d_ff: int = 2048, n_layers: int = 12) -> dict:
    """Parameters of one post-LN encoder layer (attention 4d^2 + 4d, FFN 2 d d_ff + d_ff
    + d, two LayerNorms 4d), counted by building it; ``n_layers`` separate layers vs.
    one layer shared across ``n_layers`` rounds."""
    layer = UTBlock(d_model, 8 if d_model % 8 == 0 else 1, d_ff)
    per_layer = sum(p.numel() for p in layer.parameters())
    return {
        "one layer": per_layer,
        f"{n_layers} separate layers": n_layers * per_layer,
        f"one layer shared over {n_layers} rounds": per_layer,
        "weights only (12 d^2 at d_ff = 4d)": 4 * d_model**2 + 2 * d_model * d_ff,
    }


def flops_per_token(
    d_model: int = 512, d_ff: int = 2048, seq_len: int = 512, n_rounds: int = 12
) -> dict:
    """Multiply-adds per token of ``n_rounds`` encoder layers (separate or shared: the
    same), counting the four d x d projections, the two FFN matrices and the attention
    scores and mixing (2 * seq_len * d)."""
    per_layer = 4 * d_model**2 + 2 * d_model * d_ff + 2 * seq_len * d_model
    total = n_rounds * per_layer
    return {"per layer": per_layer, f"{n_rounds} layers or rounds": total}
