"""How sure a count over seeds or a share of sums can make us: the Wilson score
interval (Wilson 1927; Brown, Cai and DasGupta 2001 recommend it for small n), used
wherever the book gives k of n as evidence."""

from __future__ import annotations

import math

CONFIDENCE = 0.95  # the book's intervals: two-sided, at this confidence
Z_95 = 1.959963984540054  # the normal quantile for it


def wilson(k: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a rate seen ``k`` times in ``n`` independent
    trials: the rates p for which |k/n - p| <= z sqrt(p (1 - p) / n)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number >= 1, got {n!r}")
    if not isinstance(k, int) or not 0 <= k <= n:
        raise ValueError(f"k must be a whole number in 0..{n}, got {k!r}")
    p, z2 = k / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def interval_range(k: int, n: int) -> str:
    """The 95% interval of ``k`` in ``n`` as a range of per cents: '84% to 100%'."""
    low, high = wilson(k, n)
    return f"{low:.0%} to {high:.0%}"


def interval_text(k: int, n: int) -> str:
    """The 95% interval of ``k`` in ``n`` for a page: 'a rate of 84% to 100% at 95%
    confidence'."""
    return f"a rate of {interval_range(k, n)} at {CONFIDENCE:.0%} confidence"
