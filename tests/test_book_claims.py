"""Facts that the book's prose states about carries, checked by hand-worked examples and
by brute force with Python integers, so a wrong sentence has a test to fail."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recur.core.carry import longest_carry_chain, parallel_add


def _ripple_chain(a: int, b: int, n: int) -> int:
    """Longest carry chain by a plain ripple: a generating bit plus the propagating
    bits directly above it."""
    longest = run = 0
    for i in range(n):
        x, y = (a >> i) & 1, (b >> i) & 1
        run = 1 if x & y else (run + 1 if (x ^ y) and run else 0)
        longest = max(longest, run)
    return longest


@pytest.mark.parametrize(
    ("a", "b", "chain"),
    [
        ("11111111", "00000001", 8),  # Ch. 1, Solution 1
        ("10101011", "01010101", 8),  # Ch. 1, Solution 1
        ("01111111", "00000001", 7),  # Ch. 1, Solution 1: the top 0 + 0 kills
        ("10101010", "01010101", 0),  # Ch. 3, Solution 2: 8 propagates, no carry
    ],
)
def test_the_books_worked_examples(a, b, chain):
    assert longest_carry_chain(a, b) == chain
    assert parallel_add(a, b).rounds_to_settle == chain


@given(st.integers(2, 64))
def test_all_ones_plus_one_needs_n_rounds_and_a_leading_zero_one_less(n):
    """Ch. 1: 1111…1 + 0000…1 needs n rounds; 0111…1 + 0000…1 needs n - 1."""
    one = "0" * (n - 1) + "1"
    assert longest_carry_chain("1" * n, one) == n
    assert longest_carry_chain("0" + "1" * (n - 1), one) == n - 1


def test_chain_probability_at_one_place_is_2_to_minus_k_plus_2():
    """Ch. 1: P(bit j generates and bits j+1..j+k propagate) = 1/4 * (1/2)^k."""
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 2, (2, 400_000, 6))
    gen, prop = a & b, a ^ b
    for k in range(5):
        hit = gen[:, 0].astype(bool)
        for i in range(1, k + 1):
            hit &= prop[:, i].astype(bool)
        assert hit.mean() == pytest.approx(2.0 ** -(k + 2), rel=0.05)


def _propagate_runs(a: int, b: int, n: int) -> tuple[int, int]:
    """Longest run of propagating bits anywhere, and longest run directly above a
    generating bit."""
    anywhere = above = run = 0
    after_gen = False
    for i in range(n):
        x, y = (a >> i) & 1, (b >> i) & 1
        if x ^ y:
            run += 1
            anywhere = max(anywhere, run)
            above = max(above, run) if after_gen else above
        else:
            run, after_gen = 0, bool(x & y)
    return anywhere, above


def test_eight_bit_sums_propagate_8_but_chains_carry_at_most_7_above_a_generator():
    """Ch. 3, Solution 2, by brute force over all 65,536 pairs of 8-bit numbers."""
    pairs = list(itertools.product(range(256), repeat=2))
    assert max(_ripple_chain(a, b, 8) for a, b in pairs) == 8
    runs = [_propagate_runs(a, b, 8) for a, b in pairs]
    assert max(r[0] for r in runs) == 8  # e.g. 10101010 + 01010101
    assert max(r[1] for r in runs) == 7
