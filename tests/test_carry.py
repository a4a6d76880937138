"""Unit and property tests of recur.core.carry against plain integer arithmetic and a
sequential ripple-carry adder written here, independently of the library."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.core.carry import (
    carry_distance,
    chain_growth,
    longest_carry_chain,
    longest_chains,
    parallel_add,
    random_pairs,
    to_bits,
    wait_rounds,
)

binary = st.text(alphabet="01", min_size=1, max_size=512)


def ripple(a: str, b: str) -> tuple[list[int], list[int]]:
    """Sequential adder: the carry into each bit (LSB first, n + 1 entries) and how many
    positions that carry travelled from the bit that generated it (0 if no carry)."""
    width = max(len(a), len(b))
    a, b = a.zfill(width)[::-1], b.zfill(width)[::-1]
    carry, dist = [0], [0]
    for x, y in zip(a, b, strict=True):
        x, y = int(x), int(y)
        if x and y:
            carry.append(1)
            dist.append(1)
        elif x ^ y and carry[-1]:
            carry.append(1)
            dist.append(dist[-1] + 1)
        else:
            carry.append(0)
            dist.append(0)
    return carry, dist


def test_seed_table_exactly():
    table = parallel_add("0111", "0001").table()
    assert list(table.index) == [0, 1, 2, 3, 4]
    assert list(table.columns) == ["carries into bits 3..1", "readout"]
    assert list(table["carries into bits 3..1"]) == ["000", "001", "011", "111", "111"]
    assert list(table["readout"]) == ["0110", "0100", "0000", "1000", "1000"]


def test_seed_example_numbers():
    trace = parallel_add("0111", "0001")
    assert trace.result == "1000"
    assert trace.rounds_to_settle == 3
    assert longest_carry_chain("0111", "0001") == 3


def test_no_carry_settles_at_round_zero():
    trace = parallel_add("1010", "0101")
    assert trace.rounds_to_settle == 0
    assert trace.n_rounds == 1
    assert trace.result == "1111"
    assert longest_carry_chain("1010", "0101") == 0


def test_carry_out_adds_a_digit_and_a_column():
    trace = parallel_add("1111", "0001")
    assert trace.result == "10000"
    assert "carry out" in trace.table().columns
    assert list(trace.table()["carry out"]) == [0, 0, 0, 0, 1, 1]


def test_different_lengths_are_padded():
    trace = parallel_add("1", "0111")
    assert (trace.a, trace.b) == ("0001", "0111")
    assert trace.result == "1000"


def test_fixed_number_of_rounds_and_unsettled_trace():
    trace = parallel_add("0111", "0001", n_rounds=2)
    assert trace.n_rounds == 2
    assert trace.readout(2) == "0000"
    with pytest.raises(ValueError, match="not settled"):
        _ = trace.rounds_to_settle
    assert parallel_add("0111", "0001", n_rounds=0).table().shape[0] == 1


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("01x1", "1", "not binary"),
        ("0121", "1", "not binary"),
        ("", "1", "empty"),
        ("1", "   ", "empty"),
        (5, "1", "string"),
        ("1", None, "string"),
    ],
)
def test_bad_strings_raise_value_error(a, b, message):
    with pytest.raises(ValueError, match=message):
        parallel_add(a, b)
    with pytest.raises(ValueError, match=message):
        longest_carry_chain(a, b)


@pytest.mark.parametrize("n_rounds", [-1, 1.5, True, "3"])
def test_bad_round_counts_raise_value_error(n_rounds):
    with pytest.raises(ValueError, match="n_rounds"):
        parallel_add("01", "01", n_rounds=n_rounds)


def test_round_outside_trace_raises():
    with pytest.raises(ValueError, match="outside"):
        parallel_add("01", "01").readout(99)


@settings(max_examples=300, deadline=None)
@given(binary, binary)
def test_result_is_integer_addition(a, b):
    trace = parallel_add(a, b)
    assert int(trace.result, 2) == int(a, 2) + int(b, 2)
    assert trace.rounds_to_settle == longest_carry_chain(a, b)
    assert trace.n_rounds == trace.rounds_to_settle + 1


@settings(max_examples=200, deadline=None)
@given(binary, binary, st.integers(min_value=0, max_value=20))
def test_carries_after_round_r_are_the_ones_that_travelled_at_most_r(a, b, r):
    carry, dist = ripple(a, b)
    trace = parallel_add(a, b, n_rounds=r)
    expected = [c if d <= r else 0 for c, d in zip(carry, dist, strict=True)]
    assert trace.carries[r].tolist() == expected


@settings(max_examples=200, deadline=None)
@given(binary, binary)
def test_carry_distance_matches_ripple(a, b):
    width = max(len(a), len(b))
    _, dist = ripple(a, b)
    got = carry_distance(to_bits(a.zfill(width)), to_bits(b.zfill(width)))
    assert got.tolist() == dist


def carry_into(a: int, b: int, i: int) -> int:
    """The carry into bit i of a + b, by integer arithmetic."""
    low = (1 << i) - 1
    return ((a & low) + (b & low)) >> i


def known_after(a: int, b: int, i: int) -> int:
    """Oracle: the fewest rounds r >= 1 such that bits i - r .. i - 1 alone fix the
    carry into bit i, whatever the bits below them are (tried exhaustively)."""
    for r in range(1, i + 1):
        hidden = i - r  # bits 0 .. hidden - 1 are unseen after r rounds
        seen = [carry_into(a, b, i)]
        for x in range(1 << hidden):
            for y in range(1 << hidden):
                clear = ~((1 << hidden) - 1)
                seen.append(carry_into((a & clear) | x, (b & clear) | y, i))
        if len(set(seen)) == 1:
            return r
    return max(i, 1)


def test_wait_rounds_matches_exhaustive_oracle():
    width = 5
    for a in range(1 << width):
        for b in range(1 << width):
            got = wait_rounds(
                to_bits(format(a, f"0{width}b")), to_bits(format(b, f"0{width}b"))
            )
            want = [known_after(a, b, i) for i in range(width + 1)]
            assert got.tolist() == want, (a, b)


@settings(max_examples=200, deadline=None)
@given(binary, binary)
def test_wait_rounds_equal_the_distance_where_a_carry_arrives(a, b):
    width = max(len(a), len(b))
    a_bits, b_bits = to_bits(a.zfill(width)), to_bits(b.zfill(width))
    dist, wait = carry_distance(a_bits, b_bits), wait_rounds(a_bits, b_bits)
    assert (wait[dist > 0] == dist[dist > 0]).all()
    assert (wait >= 1).all()


def test_batched_chains_match_single_pairs():
    a_bits, b_bits = random_pairs(300, 37, seed=3)
    chains = longest_chains(300, 37, seed=3, chunk=37 * 7)  # several chunks
    for x, y, chain in zip(a_bits, b_bits, chains, strict=True):
        a = "".join(map(str, x[::-1]))
        b = "".join(map(str, y[::-1]))
        assert chain == longest_carry_chain(a, b)


def test_random_pairs_are_seeded_and_checked():
    assert np.array_equal(random_pairs(4, 9, seed=1)[0], random_pairs(4, 9, seed=1)[0])
    assert not np.array_equal(random_pairs(4, 9, seed=1)[0], random_pairs(4, 9, 2)[0])
    with pytest.raises(ValueError, match="n_pairs"):
        random_pairs(0, 8)


def test_chain_growth_fits_log2_n():
    growth = chain_growth([2**k for k in range(2, 11)], n_pairs=2000, seed=0)
    assert list(growth.stats.index) == [2**k for k in range(2, 11)]
    assert growth.stats["mean"].is_monotonic_increasing
    assert 0.8 < growth.slope < 1.2  # about one more round per doubling
    assert growth.fit_text.startswith(f"{growth.slope:.2f}·log₂ n")
    again = chain_growth([2**k for k in range(2, 11)], n_pairs=2000, seed=0)
    assert growth.stats.equals(again.stats)
