"""The skeptic's sums (recur.core.hardest's families and search), the hold of a cell's
answer (recur.training.holds) and the pieces that make a cell hold (recur.models.cell's
snapping and hold cost). Expected sums come from Python's integers, waits by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.core.carry import wait_rounds
from recur.core.hardest import (
    SKEPTIC_MIN_BITS,
    Family,
    pair_from_kinds,
    search_families,
    skeptic_sums,
)
from recur.core.tasks import batch_from_strings, random_batch
from recur.models.cell import LocalCell, hold_loss, snapped, waits
from recur.models.deq import EquilibriumCell
from recur.models.fixedpoint import fixed_point
from recur.training.evaluate import evaluate
from recur.training.holds import cell_holds, deq_holds


def test_kinds_by_hand():
    # g = 1 + 1, a = 1 + 0, k = 0 + 0, b = 0 + 1, MSB first
    assert pair_from_kinds("gakb") == ("1100", "1001")
    with pytest.raises(ValueError, match="kinds"):
        pair_from_kinds("gx")
    with pytest.raises(ValueError, match="kinds"):
        pair_from_kinds("")


@pytest.mark.parametrize("n", [16, 17, 64])
def test_every_skeptic_sum_adds_up(n):
    sums = skeptic_sums(n)
    assert len(set(sums.names)) == len(sums.names)
    target = sums.batch.target.numpy().astype(int)  # (B, n + 1), LSB first
    for kinds, row in zip(sums.kinds, target, strict=True):
        a, b = pair_from_kinds(kinds)
        assert len(kinds) == n
        total = int(a, 2) + int(b, 2)
        assert int("".join(map(str, row[::-1])), 2) == total


def test_waits_of_two_families_by_hand():
    sums = skeptic_sums(16)
    wait = dict(zip(sums.names, sums.wait().tolist(), strict=True))
    # 1 + 111…10: every position propagates; position i waits i rounds, top 16
    assert wait["1 + 111…10"] == [1] + list(range(1, 17))
    # a generate at bit 7 under eight propagates: bits 0..8 know at once, then 2..9
    assert wait["chain from the middle"] == [1] * 9 + list(range(2, 10))


def test_a_family_scales_with_the_width():
    family = Family((("a", 0.5), ("g", 0.0), ("k", 0.5)))
    assert family.kinds(16) == "a" * 8 + "g" + "k" * 7
    assert family.kinds(32) == "a" * 16 + "g" + "k" * 15
    assert skeptic_sums(16, extra=(family,)).names[-1] == family.name


def test_too_narrow_is_refused():
    with pytest.raises(ValueError, match="n_bits"):
        skeptic_sums(SKEPTIC_MIN_BITS - 1)


def test_search_keeps_what_breaks_a_model():
    # a "model" that gets every sum with a generate wrong
    def passes(batch):
        bits = batch.bits
        return ~(bits[..., 0].bool() & bits[..., 1].bool()).any(dim=1)

    kept = search_families(passes, 16, 50, seed=1)
    assert kept and all("g" in f.kinds(16) for f in kept)
    assert len(kept) < 50  # the draws without a generate pass


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12))
def test_torch_waits_equal_the_rule(seed, n):
    bits = random_batch(20, n, seed).bits  # (B, n + 1, 2)
    a, b = (bits[..., k].numpy().astype(np.int64) for k in (0, 1))
    assert (waits(bits).numpy() == wait_rounds(a, b)[:, :-1]).all()


def test_snapped_is_two_levels_with_a_straight_gradient():
    x = torch.tensor([-0.3, 0.2, 0.9], requires_grad=True)
    y = snapped(x)
    assert y.tolist() == [-1.0, 1.0, 1.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_hold_loss_by_hand():
    raw = torch.tensor([0.0, 1.0, 3.0]).reshape(3, 1, 1, 1)  # (R, B, n, d)
    # wait 1: the change into round 2 (0 -> 1) is news, into round 3 (1 -> 3) is not
    assert hold_loss(raw, torch.tensor([[1]])).item() == pytest.approx(4.0)
    # wait 3: round 2 comes before the news and is counted, round 3 is news
    assert hold_loss(raw, torch.tensor([[3]])).item() == pytest.approx(1.0)


def test_cell_holds_agrees_with_every_round_evaluated():
    torch.manual_seed(3)
    cell = LocalCell()
    batch = random_batch(40, 6, seed=5)
    hold = 7
    holds = cell_holds(cell, batch, hold_rounds=hold)
    n_read = batch.bits.shape[1]  # 7 positions: read after round 7
    correct = evaluate(cell, batch, n_read + hold).correct  # (R, B)
    assert (holds.read_round == n_read).all()
    assert torch.equal(holds.right, correct[n_read - 1])
    assert torch.equal(holds.held, correct[n_read - 1 :].all(dim=0))
    assert holds.settled.all()


def test_cell_holds_reads_a_float64_cell_as_its_float32_twin():
    """The page's trained cells come back in float64: read the same as in float32."""
    torch.manual_seed(3)
    cell = LocalCell()
    batch = random_batch(20, 6, seed=5)
    single = cell_holds(cell, batch, hold_rounds=4)
    double = cell_holds(cell.double(), batch, hold_rounds=4)
    assert torch.equal(single.right, double.right)
    assert torch.equal(single.held, double.held)


def test_deq_holds_reads_where_the_solver_stops():
    torch.manual_seed(4)
    deq = EquilibriumCell(tol=1e-3).eval()
    batch = random_batch(6, 5, seed=2)
    holds = deq_holds(deq, batch, cap=40, hold_rounds=3)
    for k in range(len(batch)):
        bits = batch.bits[k : k + 1]
        with torch.no_grad():
            problem = deq.cell.embed(bits)
            _, info = fixed_point(
                deq.update, problem, torch.zeros_like(problem), tol=deq.tol,
                max_iter=40, method="iteration", on_fail="report",
            )  # fmt: skip
        assert holds.read_round[k] == info.n_iter
        assert holds.settled[k] == info.converged
        right = evaluate(deq, batch.part(k, k + 1), info.n_iter).correct[-1, 0]
        assert holds.right[k] == right


def test_bad_hold_rounds():
    batch = batch_from_strings([("1010", "0110")])
    with pytest.raises(ValueError, match="hold_rounds"):
        cell_holds(LocalCell(), batch, hold_rounds=-1)


def _table(rows):
    from recur.studies.skeptic_study import COLUMNS

    full = [dict.fromkeys(COLUMNS, 0) | row for row in rows]
    return pd.DataFrame(full, columns=COLUMNS)


def test_counts_and_most_failed_by_hand():
    from recur.pages.skeptic import most_failed
    from recur.studies.skeptic_study import all_passed

    table = _table([
        {"model": "m", "seed": 0, "n_bits": 64, "sums": 3, "passed": 3, "failed": ""},
        {"model": "m", "seed": 1, "n_bits": 64, "sums": 3, "passed": 1,
         "failed": "x; y"},
        {"model": "m", "seed": 2, "n_bits": 64, "sums": 3, "passed": 2, "failed": "x"},
        {"model": "m", "seed": 0, "n_bits": 256, "sums": 3, "passed": 3, "failed": ""},
    ])  # fmt: skip
    assert all_passed(table, "m", 64) == (1, 3)
    assert all_passed(table, "m", 256) == (1, 1)
    assert all_passed(table, "other", 64) == (0, 0)
    assert most_failed(table, "m", 64) == "x (2 seeds)"
    tied = table.assign(failed=table["failed"].replace("x", "x; y"))
    assert most_failed(tied, "m", 64) == "x and y (2 seeds each)"
    assert most_failed(table, "m", 256) == "none"


def test_wrong_or_late_by_hand():
    from recur.pages.skeptic import wrong_or_late

    table = _table([
        {"model": "m", "seed": 0, "n_bits": 64, "sums": 3, "right when read": 3,
         "settled": 3},  # right and on time
        {"model": "m", "seed": 1, "n_bits": 64, "sums": 3, "right when read": 3,
         "settled": 2},  # right, one sum late
        {"model": "m", "seed": 2, "n_bits": 64, "sums": 3, "right when read": 2,
         "settled": 1},  # wrong (and late): counted as wrong only
    ])  # fmt: skip
    assert wrong_or_late(table, "m", 64) == {"wrong": 1, "late": 1}


def test_found_families_rank_by_how_many_models_they_broke():
    from recur.studies.skeptic_study import families_to_json, found_families

    a = Family((("a", 0.5), ("g", 0.5)))
    b = Family((("k", 0.25), ("b", 0.75)))
    table = _table(
        [{"found": families_to_json([a, b])}, {"found": families_to_json([b])}]
    )
    assert found_families(table) == (b, a)
    assert found_families(table, most=1) == (b,)


def test_fade_words_from_a_walk_by_hand():
    from recur.chapters.ch2_skeptic import Walk, fade_words

    right = np.array([[0, 0], [1, 1], [1, 1], [1, 0], [1, 0]], dtype=bool)  # 5 rounds
    walk = Walk(right, np.zeros((5, 2)), np.array([1, 2]))
    assert fade_words(walk, read_round=3) == (
        "is first right after round 2, turns wrong again after round 4 and is still"
        " wrong after round 5"
    )
    held = Walk(right[:3], np.zeros((3, 2)), np.array([1, 2]))
    assert (
        fade_words(held, 3)
        == "is first right after round 2 and stays right through round 3"
    )
    late = Walk(
        np.array([[0, 0], [0, 1], [1, 1]], dtype=bool),
        np.zeros((3, 2)),
        np.array([1, 2]),
    )
    assert fade_words(late, 2) == (
        "is wrong when read after round 2, is first right after round 3 and stays"
        " right through round 3"
    )


def test_a_walk_agrees_with_the_cell_and_the_rule():
    from recur.chapters.ch2_skeptic import walk

    torch.manual_seed(0)
    cell = LocalCell(snap=True)
    w = walk(cell, "a" * 15 + "g", 20)
    assert w.right.shape == (20, 17) and w.change.shape == (20, 17)
    assert w.wait.tolist() == [1] + list(range(1, 17))
    batch = batch_from_strings([pair_from_kinds("a" * 15 + "g")])
    correct = evaluate(cell, batch, 20).correct[:, 0]  # (R,)
    assert (w.all_right() == correct.numpy()).all()
    # a snapped state moves by 0 or by at least 2 (one entry flipped)
    moves = w.change[1:]
    assert ((moves == 0) | (moves >= 2)).all()


def test_families_named_by_their_numbers_are_those_numbers():
    n = 16
    sums = skeptic_sums(n)
    pairs = dict(zip(sums.names, map(pair_from_kinds, sums.kinds), strict=True))
    assert pairs["1 + 111…10"] == ("0" * (n - 1) + "1", "1" * (n - 1) + "0")
    assert pairs["all ones + 1"] == ("1" * n, "0" * (n - 1) + "1")
    assert pairs["chain broken by one kill"] == (
        "1" * 7 + "0" + "1" * 8,
        "0" * 7 + "0" + "0" * 7 + "1",
    )


def test_act_holds_on_time_by_hand(monkeypatch):
    """The Transformer's reading: right from the model's output, on time when no
    position halts more than one round past its wait (waits by hand)."""
    import recur.chapters.ch6_hardest as ch6

    # 0111 + 0001, positions from bit 0: a position's carry-in is known one round
    # after the generate or kill below it, one more for each propagate between. Bit 0
    # (no position below) and bit 1 (a generate below) wait 1, bits 2 and 3 wait 2 and
    # 3 (one and two propagates over the generate), the carry out 1 (a kill below)
    batch = batch_from_strings([("0111", "0001"), ("0111", "0001")])
    wait = np.array([1, 1, 2, 3, 1])
    steps = np.stack([wait + 1, wait + 1])  # (B, n + 1): every position on time
    steps[1, 2] = wait[2] + 2  # one position two rounds past its wait: late
    monkeypatch.setattr(
        ch6, "ponder_by_position", lambda model, b, cap: (steps, np.array([1, 1]))
    )
    holds = ch6.act_holds(None, batch)
    assert holds.settled.tolist() == [True, False]
    assert holds.right.tolist() == holds.held.tolist() == [True, True]
    assert holds.passed.tolist() == [True, False]
    assert holds.read_round.tolist() == [4, 4]  # the last position to halt


def test_drift_words_count_answers_that_turn_wrong_after_right():
    from recur.chapters.ch2_skeptic import Walk, drift_words, turned_wrong

    def walk(rows):  # rounds of (all right?) for a one-position sum
        right = np.array([[r] for r in rows], dtype=bool)
        return Walk(right, np.zeros(right.shape), np.array([1]))

    held, late, faded, never = (
        walk([0, 1, 1]),
        walk([0, 0, 1]),
        walk([1, 0, 1]),
        walk([0]),
    )
    assert [turned_wrong(w) for w in (held, late, faded, never)] == [0, 0, 1, 0]
    assert drift_words([held, late]).startswith("Drift does not show here")
    assert drift_words([faded, held]).startswith("Drift turned 1 of this cell's 2")


def test_each_model_is_read_as_its_chapter_reads_it():
    from recur.pages.skeptic import read_after

    assert read_after("Chapter 2's cell") == "n + 1 rounds"
    assert read_after("holding cell") == "n + 1 rounds"
    assert read_after("Chapter 3's injected cell") == "4(n + 1) rounds"
    assert read_after("Chapter 6's Transformer") == "on time, within 2(n + 1) rounds"
    assert read_after("holding DEQ cell") == "where its solver settles"


def test_two_counts_are_apart_only_when_their_intervals_do_not_overlap():
    from recur.pages.skeptic import apart_words

    # Wilson 95%: 14 of 20 is 48% to 85%, 17 of 20 is 64% to 95%; 3 of 20 is 5% to 36%
    assert apart_words((14, 20), (17, 20)).startswith("their intervals overlap")
    assert apart_words((3, 20), (17, 20)).startswith("their intervals do not overlap")
    assert apart_words((17, 20), (3, 20)).startswith("their intervals do not overlap")


def test_ablation_words_say_how_the_cells_that_missed_a_sum_missed_it():
    from recur.pages.skeptic import ablation_words

    columns = ["model", "n_bits", "sums", "passed", "right when read", "held"]
    rows = [
        ("a", 256, 5, 5, 5, 5),  # every sum right
        ("a", 256, 5, 4, 4, 4),  # one sum wrong when read: late
        ("b", 256, 5, 3, 3, 3),  # late
        ("b", 64, 5, 0, 0, 0),  # another width: not counted
    ]
    table = pd.DataFrame(rows, columns=columns)
    words = ablation_words(table, ["a", "b"], 256)
    assert words == "each of the 2 cells that missed a sum was late, and none drifted"
    drifted = pd.DataFrame([("a", 256, 5, 4, 5, 4)], columns=columns)  # right, then not
    words = ablation_words(pd.concat([table, drifted]), ["a", "b"], 256)
    assert words == "of the 3 cells that missed a sum, 2 were late and 1 drifted"


def test_told_apart_words_compare_each_count_with_the_full_recipes_interval():
    from recur.pages.skeptic import told_apart_words

    def rows(name, met):  # 20 seeds, ``met`` of them with every sum right
        return [(name, 256, 5, 5 if s < met else 4) for s in range(20)]

    columns = ["model", "n_bits", "sums", "passed"]
    # Wilson 95%: 20 of 20 is 84% to 100%, 10 of 20 30% to 70%, 18 of 20 70% to 97%
    table = pd.DataFrame(
        rows("all", 20) + rows("a", 10) + rows("b", 18), columns=columns
    )
    words = told_apart_words(table, "all", {"a": "without a", "b": "without b"}, 256)
    assert words == (
        "by their 95% intervals, only the count without a is told apart; "
        "those without b are not"
    )
    both = told_apart_words(table, "all", {"a": "without a"}, 256)
    assert both == "by their 95% intervals, every count without a is told apart"
    none = told_apart_words(table, "all", {"b": "without b"}, 256)
    assert none == "by their 95% intervals, no count without b is told apart"


def test_guess_words_read_which_way_a_cell_guessed_while_it_waited():
    from recur.chapters.ch2_skeptic import Walk, guess_words

    def walk(rows, wait):  # rounds of (right?) for one position that waits ``wait``
        right = np.array([[r] for r in rows], dtype=bool)
        return Walk(right, np.zeros(right.shape), np.array([wait]))

    early_wrong, late_wrong = walk([0, 1, 1], wait=3), walk([1, 1, 0], wait=2)
    quiet = walk([1, 1, 1], wait=3)
    assert guess_words(early_wrong, quiet) == '"a carry is coming"'  # wrong on no carry
    assert guess_words(quiet, early_wrong) == '"no carry"'
    assert guess_words(early_wrong, early_wrong) == "each way: wrong early on both"
    # wrong only once its news can arrive (rounds 2 and 3 of a wait of 2) is no guess
    assert guess_words(late_wrong, quiet).startswith("nothing wrong")
    behind = walk([1, 0, 1], wait=2)  # wrong in round 2, when the news arrives: late
    assert guess_words(behind, quiet).startswith("nothing wrong")
