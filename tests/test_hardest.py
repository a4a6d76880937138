"""The hardest sums (recur.core.hardest): each sum and its wait rounds worked out by
hand at 4 bits, every sum checked against Python's integers at every width, and the
family each name promises checked from the bits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.core.hardest import hardest_sums

# 4 bits, by hand: (a, b, the 5-bit sum, rounds each position 0..4 waits for its
# carry-in). A position waits i - j rounds, j the highest bit below it that does not
# pass a carry on (0 + 0 or 1 + 1); with none below, i rounds; at least 1.
BY_HAND = {
    "all ones + 1": ("1111", "0001", "10000", [1, 1, 2, 3, 4]),
    "1 + all ones": ("0001", "1111", "10000", [1, 1, 2, 3, 4]),
    "1 + 1 under alternating propagates": ("0101", "1011", "10000", [1, 1, 2, 3, 4]),
    "0111…1 + 0000…1": ("0111", "0001", "01000", [1, 1, 2, 3, 1]),
    "all ones + 0": ("1111", "0000", "01111", [1, 1, 2, 3, 4]),
    "0 + all ones": ("0000", "1111", "01111", [1, 1, 2, 3, 4]),
    "alternating + its complement": ("0101", "1010", "01111", [1, 1, 2, 3, 4]),
    "1111…0 + 0": ("1110", "0000", "01110", [1, 1, 2, 3, 4]),
    "all ones + all ones": ("1111", "1111", "11110", [1, 1, 1, 1, 1]),
    "0 + 0": ("0000", "0000", "00000", [1, 1, 1, 1, 1]),
    "alternating + 0": ("0101", "0000", "00101", [1, 1, 1, 2, 1]),
    "top bit + top bit": ("1000", "1000", "10000", [1, 1, 1, 1, 1]),
}


def test_every_sum_and_its_waits_by_hand_at_4_bits():
    hard = hardest_sums(4)
    assert hard.names == tuple(BY_HAND)
    waits = hard.wait()
    for k, (name, (a, b, total, wait)) in enumerate(BY_HAND.items()):
        assert hard.pairs[k] == (a, b), name
        target = "".join(str(int(x)) for x in hard.batch.target[k].tolist()[::-1])
        assert target == total, name
        assert waits[k].tolist() == wait, name


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=4, max_value=300))
def test_every_sum_is_its_integers_sum(n_bits):
    hard = hardest_sums(n_bits)
    for k, (a, b) in enumerate(hard.pairs):
        assert len(a) == len(b) == n_bits
        want = format(int(a, 2) + int(b, 2), f"0{n_bits + 1}b")[::-1]  # LSB first
        got = "".join(str(int(x)) for x in hard.batch.target[k].tolist())
        assert got == want, hard.names[k]


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=4, max_value=300))
def test_each_family_is_what_its_name_says(n_bits):
    hard = hardest_sums(n_bits)
    by_name = dict(zip(hard.names, range(len(hard.names)), strict=True))
    dist, wait = hard.batch.distance.numpy(), hard.wait()
    for name in ("all ones + 1", "1 + all ones", "1 + 1 under alternating propagates"):
        # a carry crosses every position: it reaches the overflow after n rounds
        assert dist[by_name[name], n_bits] == n_bits, name
    assert dist[by_name["0111…1 + 0000…1"], n_bits - 1] == n_bits - 1  # ends at the top
    assert dist[by_name["0111…1 + 0000…1"], n_bits] == 0
    for name in ("all ones + 0", "0 + all ones", "alternating + its complement",
                 "1111…0 + 0"):  # fmt: skip
        assert dist[by_name[name]].max() == 0, name  # no carry anywhere
        assert wait[by_name[name], n_bits] == n_bits, name  # yet the top waits n rounds
    a, b = (
        np.array([int(x) for x in s])
        for s in hard.pairs[by_name["1 + 1 under alternating propagates"]]
    )
    assert ((a ^ b)[:-1] == 1).all() and (a[:-1] != a[1:]).all()  # mixed, not uniform


@pytest.mark.parametrize("n_bits", [3, 0, -1, 4.0, "8"])
def test_a_width_too_small_or_not_an_integer_is_refused(n_bits):
    with pytest.raises(ValueError, match="n_bits"):
        hardest_sums(n_bits)


# ------------------------------------------------ measured on a model, and counted

import pandas as pd  # noqa: E402
import torch  # noqa: E402

from recur.chapters.ch6_hardest import (  # noqa: E402
    HARDEST_PAST,
    HARDEST_RIGHT,
    first_right_round,
    hardest_table,
    readouts_by_round,
)
from recur.core.intervals import interval_range, interval_text, wilson  # noqa: E402
from recur.models.halting import ActHalting  # noqa: E402
from recur.models.ut import UniversalTransformer  # noqa: E402
from recur.pages.ch6_live import hardest_words  # noqa: E402
from recur.studies.hardest_study import hardest_by_width, hardest_counts  # noqa: E402
from test_measurements import Scripted  # noqa: E402

ACT = ActHalting()  # ACT halting with its defaults


def test_hardest_table_by_hand():
    # Scripted: always right; ACT steps = carry distance + 2, and 1 where no carry
    table = hardest_table(Scripted(act=True, at_zero=1), 4, cap=10, news=False)
    assert table["right"].all()
    # all ones + 1: distances 0..4 -> steps 1, 3, 4, 5, 6; waits 1, 1, 2, 3, 4
    assert table.loc["all ones + 1", "rounds past"] == 2
    assert table.loc["0 + 0", "rounds past"] == 0  # steps 1, waits 1
    # all ones + 0: no carry, steps 1 everywhere against waits 1, 1, 2, 3, 4
    assert table.loc["all ones + 0", "rounds past"] == 0
    # top bit + top bit: only the carry out arrives, after 1 round: 3 steps, wait 1
    assert table.loc["top bit + top bit", "rounds past"] == 2


def test_first_right_round_by_hand():
    right = torch.tensor([  # rounds down, positions across
        [False, True, False, False],
        [True, False, False, False],
        [True, True, True, False],
    ])  # fmt: skip
    assert first_right_round(right[:, None]).tolist() == [[2, 1, 3, 4]]  # 4: never


def test_readouts_by_round_of_a_model_that_halts_at_once():
    torch.manual_seed(0)
    model = UniversalTransformer(
        d_model=8, n_heads=2, window=1, halting=ActHalting()
    ).eval()
    torch.nn.init.constant_(model.halting.linear.bias, 50.0)  # h = 1 in round 1
    bits = torch.randint(0, 2, (3, 5, 2)).float()
    logits = readouts_by_round(model, bits, 6)
    with torch.no_grad():
        state, step, real = model.prepare(bits, 6)
        once = model.readout(step(state, 0)).squeeze(-1)[..., real]  # (B, n)
    assert logits.shape == (1, 3, 5)  # every position halted after one round
    torch.testing.assert_close(logits[0], once)


def _seed_table(rows) -> pd.DataFrame:
    return pd.DataFrame(
        rows, columns=["recipe", "seed", "bits", HARDEST_RIGHT, HARDEST_PAST]
    )


def test_hardest_counts_by_hand():
    table = _seed_table([
        ("BOOK_ACT", 0, 8, True, 0), ("BOOK_ACT", 0, 64, True, 1),  # met
        ("BOOK_ACT", 1, 8, True, 0), ("BOOK_ACT", 1, 64, True, 7),  # right, late
        ("BOOK_ACT", 2, 8, True, 1), ("BOOK_ACT", 2, 64, False, 0),  # wrong
        ("TUNED_ACT", 0, 8, False, 30), ("TUNED_ACT", 0, 64, False, 90),
    ])  # fmt: skip
    assert hardest_counts(table) == {"n": 3, "right": 2, "met": 1, "worst": 7}
    by_width = hardest_by_width(table)
    assert by_width.loc[8].tolist() == [3, 3, 3]
    assert by_width.loc[64].tolist() == [2, 1, 3]


def test_wilson_by_hand():
    # k = n: the lower end is n / (n + z^2); k = n / 2: centred, z sqrt(...) wide
    low, high = wilson(20, 20)
    assert high == 1.0 and low == pytest.approx(20 / (20 + 1.959964**2), abs=1e-6)
    low, high = wilson(10, 20)
    z2 = 1.959964**2
    half = 1.959964 * (0.25 / 20 + z2 / 1600) ** 0.5 / (1 + z2 / 20)
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-6)
    assert wilson(0, 20) == pytest.approx((0.0, 1 - 20 / (20 + z2)), abs=1e-6)
    assert interval_text(20, 20) == "a rate of 84% to 100% at 95% confidence"
    assert interval_range(19, 20) == "76% to 99%"  # 0.7639 and 0.9911, by the formula


@pytest.mark.parametrize("k, n", [(3, 2), (-1, 5), (1, 0), (1.5, 4)])
def test_wilson_refuses_impossible_counts(k, n):
    with pytest.raises(ValueError):
        wilson(k, n)


def test_pair_counts_by_hand():
    from recur.chapters.ch6_hardest import HARDEST_NEWS
    from recur.pages.ch6_act_ut import news_words
    from recur.studies.hardest_study import PAIRS, pair_counts

    rows = [  # seed, bits, right, past, news (answer first right, past the carry)
        (0, 8, True, 0, 0), (0, 64, True, 7, 6),  # late: its news late too
        (1, 8, True, 0, 0), (1, 64, False, 120, 1),  # a sum wrong: not counted
        (2, 8, True, 1, 1), (2, 64, True, 1, 0),  # on time
        (3, 8, True, 9, 4), (3, 64, True, 5, 5),  # latest at 8 bits: neither kind
        (4, 8, True, 0, 0), (4, 64, True, 9, 9),  # late, news late
        (5, 8, True, 0, 0), (5, 64, True, 30, 1),  # late, readouts in time: ran on
    ]  # fmt: skip
    without = pd.DataFrame(
        rows, columns=["seed", "bits", HARDEST_RIGHT, HARDEST_PAST, HARDEST_NEWS]
    ).assign(**{PAIRS: False, "recipe": "BOOK_ACT"})
    with_it = without.assign(**{PAIRS: True, HARDEST_RIGHT: True, HARDEST_PAST: 0})
    counts = pair_counts(pd.concat([without, with_it], ignore_index=True))
    assert counts["without_right"] == 5 and counts["without_met"] == 1
    assert counts["with_right"] == 6 and counts["with_met"] == 6
    assert counts["without_worst"] == 120
    # seed 1 got a sum wrong: left out; 0 and 4 news late, 5 ran on, 3 neither
    assert (counts["late"], counts["news_late"], counts["ran_on"]) == (4, 2, 1)
    assert news_words({"late": 0, "news_late": 0, "ran_on": 0}) == (
        "None that got every one right halted late."
    )
    assert "Of the 4 that got every one right but halted late, 2 had" in news_words(
        counts
    )
    assert news_words(counts).endswith("; the other 1 did some of each.")


def test_late_kinds_by_hand():
    from recur.chapters.ch6_hardest import HARDEST_NEWS
    from recur.studies.hardest_study import late_kinds

    rows = [  # seed, bits, right, past, news (answer first right, past the carry)
        (0, 16, True, 3, 0), (0, 64, True, 40, 1),  # ran on, more at 64 bits
        (1, 16, True, 5, 0), (1, 64, True, 2, 0),  # ran on, latest at 16 bits
        (2, 16, True, 1, 0), (2, 64, True, 9, 8),  # late, but its news was late
        (3, 16, True, 0, 0), (3, 64, True, 1, 1),  # on time
        (4, 16, True, 7, 0), (4, 64, False, 99, 0),  # a sum wrong: not counted
        (5, 16, True, 2, 1), (5, 64, True, 0, 0),  # in time, then a round on: ran on
    ]  # fmt: skip
    table = pd.DataFrame(
        rows, columns=["seed", "bits", HARDEST_RIGHT, HARDEST_PAST, HARDEST_NEWS]
    )
    assert late_kinds(table) == {"late": 4, "news_late": 1, "ran_on": 3}


def test_hardest_words_by_hand():
    """On time at every width up to ``up_to``; else each width's wrong sums, then each
    width's rounds past the carry, and widths above ``up_to`` left out."""
    summary = pd.DataFrame(
        {"right": [12, 12, 11, 10], "of": [12, 12, 12, 12],
         "most rounds past the carry": [0, 1, 1, 5]},
        index=pd.Index([8, 16, 32, 128], name="bits"),
    )  # fmt: skip
    assert (
        hardest_words(summary.loc[[8, 16]], 1)
        == "was on time at each width from 8 to 16 bits"
    )
    assert hardest_words(summary, 1) == "got 11 of 12 right at 32 bits"
    assert hardest_words(summary, 1, up_to=128) == (
        "got 11 of 12 right at 32 bits; got 10 of 12 right at 128 bits; "
        "ran 5 rounds past the carry at 128 bits"
    )
    assert (
        hardest_words(summary.loc[[8, 16]], 0)
        == "ran 1 round past the carry at 16 bits"
    )
