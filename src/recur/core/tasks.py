"""Binary addition as tensors, for training the learned update rules.

Bits are least significant first and every example has one extra position on top for
the carry out, whose input bits are 0. So an ``n``-bit problem has ``n + 1`` positions
and its target is the whole ``n + 1``-bit sum. Randomness comes from a
``torch.Generator`` (or a seed) passed in; nothing reads a global seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from recur.core.carry import carry_distance, pad_pair, to_bits

Seed = int | torch.Generator


@dataclass(frozen=True)
class AdditionBatch:
    """A batch of additions, LSB first, with the overflow position on top."""

    bits: torch.Tensor  # (B, n + 1, 2) float: a_i and b_i
    target: torch.Tensor  # (B, n + 1) float: the sum's bits
    distance: torch.Tensor  # (B, n + 1) long: how far the carry into i travelled

    def __len__(self) -> int:
        return self.bits.shape[0]

    @property
    def n_positions(self) -> int:
        return self.bits.shape[1]

    def part(self, start: int, stop: int) -> AdditionBatch:
        """Examples ``start..stop - 1``."""
        return AdditionBatch(
            *(t[start:stop] for t in (self.bits, self.target, self.distance))
        )

    def to(self, device: torch.device | str) -> AdditionBatch:
        return AdditionBatch(
            *(t.to(device) for t in (self.bits, self.target, self.distance))
        )


def _generator(seed: Seed) -> torch.Generator:
    return (
        seed
        if isinstance(seed, torch.Generator)
        else torch.Generator().manual_seed(seed)
    )


def _check_size(batch_size: int, n_bits: int) -> None:
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size} (an empty batch)")
    if n_bits < 1:
        raise ValueError(f"n_bits must be >= 1, got {n_bits}")


def batch_from_bits(a_bits: np.ndarray, b_bits: np.ndarray) -> AdditionBatch:
    """Build a batch from 0/1 arrays of shape ``(B, n)``, least significant first."""
    a_bits = np.asarray(a_bits, dtype=np.uint8)
    b_bits = np.asarray(b_bits, dtype=np.uint8)
    if a_bits.shape != b_bits.shape or a_bits.ndim != 2:
        raise ValueError(
            f"a and b must both be (B, n) arrays, got {a_bits.shape} and {b_bits.shape}"
        )
    _check_size(*a_bits.shape)
    top = np.zeros_like(a_bits[:, :1])
    a_bits = np.concatenate([a_bits, top], axis=1)  # (B, n + 1)
    b_bits = np.concatenate([b_bits, top], axis=1)  # (B, n + 1)
    dist = carry_distance(a_bits, b_bits)[:, :-1]  # (B, n + 1): into positions 0..n
    target = (a_bits ^ b_bits) ^ (dist > 0)  # (B, n + 1)
    bits = np.stack([a_bits, b_bits], axis=-1)  # (B, n + 1, 2)
    return AdditionBatch(
        torch.from_numpy(bits).float(),
        torch.from_numpy(target.astype(np.float32)),
        torch.from_numpy(dist.astype(np.int64)),
    )


def batch_from_strings(pairs: list[tuple[str, str]]) -> AdditionBatch:
    """Build a batch from binary strings (MSB first); all are padded to the widest."""
    if not pairs:
        raise ValueError("pairs is empty: need at least one (a, b) pair")
    padded = [pad_pair(a, b) for a, b in pairs]
    width = max(len(a) for a, _ in padded)
    a_bits = np.stack([to_bits(a.zfill(width)) for a, _ in padded])  # (B, n)
    b_bits = np.stack([to_bits(b.zfill(width)) for _, b in padded])  # (B, n)
    return batch_from_bits(a_bits, b_bits)


def random_batch(
    batch_size: int, n_bits: int, seed: Seed = 0, min_bits: int | None = None
) -> AdditionBatch:
    """Uniform random ``n_bits``-bit additions. With ``min_bits``, each example's width
    is drawn from ``min_bits..n_bits`` and the bits above it are 0 (leading zeros)."""
    _check_size(batch_size, n_bits)
    gen = _generator(seed)
    bits = torch.randint(0, 2, (2, batch_size, n_bits), generator=gen)  # (2, B, n)
    if min_bits is not None:
        if not 1 <= min_bits <= n_bits:
            raise ValueError(f"min_bits must be in 1..{n_bits}, got {min_bits}")
        width = torch.randint(
            min_bits, n_bits + 1, (batch_size, 1), generator=gen
        )  # (B, 1)
        bits = bits * (torch.arange(n_bits) < width)  # (2, B, n): zeros above the width
    return batch_from_bits(bits[0].numpy(), bits[1].numpy())


def chain_batch(
    batch_size: int,
    n_bits: int,
    chain_length: int,
    seed: Seed = 0,
    kill_share: float = 0.0,
) -> AdditionBatch:
    """Random ``n_bits``-bit sums whose longest carry chain is exactly ``chain_length``.

    Bits are drawn from low to high as generate (1+1), kill (0+0) or propagate (1+0 or
    0+1), uniformly among the kinds that keep every chain at most ``chain_length``
    long; one chain of exactly that length is planted at a random place. (A simple
    sampler, not the distribution of random pairs conditioned on their chain length.)

    With ``kill_share``, that share of the rows (drawn row by row) gets a kill (0+0)
    instead of the generate at the bottom of the planted run: the bits above it then
    wait as long for their carry-in, and it is 0. Those rows' longest chain is shorter.
    """
    _check_size(batch_size, n_bits)
    if not 0 <= chain_length <= n_bits:
        raise ValueError(f"chain_length must be in 0..{n_bits}, got {chain_length}")
    rng = np.random.default_rng(
        int(torch.randint(0, 2**62, (1,), generator=_generator(seed)))
    )
    kind = np.zeros(
        (batch_size, n_bits), dtype=np.int8
    )  # 0 kill, 1 generate, 2 propagate
    if not 0 <= kill_share <= 1:
        raise ValueError(f"kill_share must be in [0, 1], got {kill_share}")
    start = rng.integers(0, n_bits - chain_length + 1, batch_size)  # (B,)
    bottom = np.where(rng.random(batch_size) < kill_share, 0, 1) if kill_share else 1
    run = np.zeros(
        batch_size, dtype=np.int64
    )  # distance of the carry into the current bit
    for i in range(n_bits):
        planted = (i >= start) & (i < start + chain_length)  # (B,)
        may_prop = (run == 0) | (run < chain_length)  # (B,) a longer run stays legal
        choice = rng.integers(0, 3, batch_size)  # (B,)
        if chain_length == 0:  # no carry may be generated anywhere
            choice = np.where(choice == 1, 0, choice)
        choice = np.where((choice == 2) & ~may_prop, 0, choice)
        choice = np.where(planted, np.where(i == start, bottom, 2), choice)
        kind[:, i] = choice
        run = np.where(choice == 1, 1, np.where((choice == 2) & (run > 0), run + 1, 0))
    flip = rng.integers(0, 2, (batch_size, n_bits))  # which operand holds a propagate 1
    a_bits = (kind == 1) | ((kind == 2) & (flip == 1))
    b_bits = (kind == 1) | ((kind == 2) & (flip == 0))
    return batch_from_bits(a_bits.astype(np.uint8), b_bits.astype(np.uint8))


def concat_batches(*batches: AdditionBatch) -> AdditionBatch:
    """One batch of the examples of all ``batches`` (of the same width), in order."""
    widths = {b.n_positions for b in batches}
    if len(widths) != 1:
        raise ValueError(f"batches must have the same width, got {sorted(widths)}")
    return AdditionBatch(
        *(
            torch.cat(parts)
            for parts in zip(
                *((b.bits, b.target, b.distance) for b in batches), strict=True
            )
        )
    )


def long_chain_batch(
    n_sums: int, n_bits: int, seed: int = 0, kill_share: float = 0.0
) -> AdditionBatch:
    """``n_bits``-bit sums whose longest carry chain spans most of the width: equal
    shares with chains of n/2, 3n/4 and n bits (fewer kinds at tiny widths). With
    ``kill_share`` (:func:`chain_batch`), that share of them has a kill instead of the
    generate at the bottom of the planted run: a wait as long, with no carry at its
    end."""
    lengths = sorted({max(1, n_bits // 2), max(1, 3 * n_bits // 4), n_bits})
    shares = [
        n_sums // len(lengths) + (k < n_sums % len(lengths))
        for k in range(len(lengths))
    ]
    parts = [
        chain_batch(share, n_bits, length, seed=seed + length, kill_share=kill_share)
        for length, share in zip(lengths, shares, strict=True)
        if share
    ]
    return concat_batches(*parts)


def width_plus_one(n_bits: int) -> int:
    """The rounds a fixed-round model runs on n-bit sums: n + 1, enough for a carry
    to cross every bit and reach the carry out."""
    return n_bits + 1


def twice_width_plus_one(n_bits: int) -> int:
    """The test-time cap for n-bit sums, twice the rounds a fixed-round cell runs:
    2 (n + 1) ACT steps or solver iterations."""
    return 2 * width_plus_one(n_bits)
