"""The hardest sums of a width: the sums a skeptic tries first.

Random sums almost never carry through every position, never run one pattern of
propagating bits the whole width, and never end a long chain exactly at the top bit;
:func:`hardest_sums` writes each such sum down for a width ``n``. Each is a pair of
``n``-bit numbers (MSB first, as people write them) with its name; the batch adds the
overflow position on top, as every batch does (:mod:`recur.core.tasks`), and
:meth:`HardestSums.wait` gives the rounds each position waits for its carry-in
(:func:`recur.core.carry.wait_rounds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recur.core.carry import wait_rounds
from recur.core.tasks import AdditionBatch, batch_from_strings

MIN_BITS = 4  # below this, several of the sums are the same sum


def _alternating(n_bits: int, first: str) -> str:
    """``n_bits`` alternating digits whose lowest is ``first``, MSB first."""
    other = "1" if first == "0" else "0"
    return "".join(first if (n_bits - 1 - k) % 2 == 0 else other for k in range(n_bits))


def _pairs(n: int) -> dict[str, tuple[str, str]]:
    """The hardest ``n``-bit sums by name, as (a, b), MSB first."""
    ones, zero, one = "1" * n, "0" * n, "0" * (n - 1) + "1"
    alt, alt_other = _alternating(n, "1"), _alternating(n, "0")  # ...0101, ...1010
    top = "1" + "0" * (n - 1)
    return {
        # a carry made at bit 0 crosses every position and leaves at the top
        "all ones + 1": (ones, one),
        "1 + all ones": (one, ones),
        "1 + 1 under alternating propagates": (alt, alt_other[:-1] + "1"),
        # a carry made at bit 0 stops exactly at the top bit (no carry out)
        "0111…1 + 0000…1": ("0" + ones[1:], one),
        # every position passes a carry on, and none comes
        "all ones + 0": (ones, zero),
        "0 + all ones": (zero, ones),
        "alternating + its complement": (alt, alt_other),
        # a kill at bit 0 under a full run: the longest wait, for no carry
        "1111…0 + 0": (ones[:-1] + "0", zero),
        # every position makes a carry; or none; or a number plus zero
        "all ones + all ones": (ones, ones),
        "0 + 0": (zero, zero),
        "alternating + 0": (alt, zero),
        # the only carry is made by the top bit, out of the sum
        "top bit + top bit": (top, top),
    }


@dataclass(frozen=True)
class HardestSums:
    """The hardest sums of one width: their names and the batch (one row each)."""

    names: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    batch: AdditionBatch

    def wait(self) -> np.ndarray:
        """The rounds each position waits for its carry-in, (B, n + 1)."""
        bits = self.batch.bits.cpu().numpy().astype(np.int64)  # (B, n + 1, 2)
        return wait_rounds(bits[..., 0], bits[..., 1])[:, :-1]  # (B, n + 1)


def hardest_sums(n_bits: int) -> HardestSums:
    """The hardest ``n_bits``-bit sums (at least :data:`MIN_BITS` bits), by name."""
    if not isinstance(n_bits, int) or n_bits < MIN_BITS:
        raise ValueError(f"n_bits must be an integer >= {MIN_BITS}, got {n_bits!r}")
    pairs = _pairs(n_bits)
    names = tuple(pairs)
    return HardestSums(
        names, tuple(pairs.values()), batch_from_strings(list(pairs.values()))
    )
