"""What each piece of Chapter 6's check and restart decides, read from study tables
(recur.chapters.ch6_check.without_each_part and restart_counts), and the share of
positions a sum makes wait (recur.chapters.ch6_measures.share_waiting); every
expected value worked out by hand from the small tables below."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from recur.chapters.ch6_check import (
    CHECK_PARTS,
    MAX_RING_BUDGET,
    MIN_DELAYED,
    restart_counts,
    without_each_part,
)
from recur.chapters.ch6_measures import halted_early_by_variant, share_waiting
from recur.core.tasks import batch_from_strings
from recur.models.act import HaltingUnit, act_loop
from recur.pages.ch6_act_ut import ramp_words

GOOD = {"heldout": 1.0, "long_chains": 1.0, "beyond": 0.0, "budget_used": 0.0,
        "delayed": 1.0, "ring": 0.0}  # fmt: skip


def _check(seed: int, step: int, **bad) -> dict:
    return {"seed": seed, "step": step} | GOOD | bad


def test_a_part_counts_where_taking_it_out_moves_the_stop():
    checks = pd.DataFrame([
        # seed 1: the held-back carries fail at 600, all passes at 700
        _check(1, 600, delayed=MIN_DELAYED - 0.01), _check(1, 700),
        # seed 2: the rings fail at every check; never passes
        _check(2, 600, ring=MAX_RING_BUDGET + 0.1),
        _check(2, 700, ring=MAX_RING_BUDGET + 0.1),
        # seed 3: rings and held-back carries fail together at 600, passes at 700
        _check(3, 600, ring=1.0, delayed=0.0), _check(3, 700),
    ])  # fmt: skip
    table = without_each_part(checks)
    assert list(table.index) == list(CHECK_PARTS)
    # by hand: without the held-back carries seed 1 stops at 600 (seed 3 still fails
    # its rings); without the rings seed 2 passes at 600, seed 3 still fails at 600
    assert table.loc["held-back carries"].to_dict() == {
        "changed": 1, "would pass": 0, "runs": 3}  # fmt: skip
    assert table.loc["rings"].to_dict() == {"changed": 1, "would pass": 1, "runs": 3}
    assert table.loc["held-out pairs", "changed"] == 0
    assert table.loc["steps beyond the carry", "changed"] == 0


def test_a_check_passes_only_when_every_part_does():
    from recur.chapters.ch6_check import ActCheck

    fields = {k: v for k, v in GOOD.items()}
    assert ActCheck(step=1, **fields).passed
    for name, value in [("heldout", 0.999), ("delayed", 0.0), ("ring", 0.9)]:
        check = ActCheck(step=1, **(fields | {name: value}))
        assert not check.passed
        assert sum(not ok for ok in check.parts().values()) == 1


def test_restarts_are_counted_per_seed():
    rows = []
    for seed, runs, passed, met in [
        (0, 1, True, True),
        (1, 2, True, True),
        (2, 3, False, False),
        (3, 1, True, False),
    ]:
        rows += [{"seed": seed, "bits": b, "runs": runs, "check passed": passed,
                  "success": met} for b in (8, 64)]  # fmt: skip
    assert restart_counts(pd.DataFrame(rows)) == {
        "seeds": 4, "first": 2, "restarted": 2, "later": 1, "met": 2,
        "both": 2}  # fmt: skip  # seed 3 passed but missed; seed 2 did neither


def test_the_tau_figure_draws_the_steps_beyond_the_carry_per_seed():
    from recur.views.plots_halting import plot_tau_sweep

    table = pd.DataFrame(
        {"seed": [0, 0, 1, 1], "tau": [0.01, 0.1] * 2, "exact": [1.0] * 4,
         "steps beyond the carry": [2.5, 0.1, 3.0, 0.2]}
    )  # fmt: skip
    fig = plot_tau_sweep(table)
    assert len(fig.axes) == 1  # no panel of exact match, which sits at 1 here
    drawn = {line.get_label(): list(line.get_ydata()) for line in fig.axes[0].lines}
    assert drawn["seed 0"] == [2.5, 0.1] and drawn["seed 1"] == [3.0, 0.2]


def test_the_long_chain_words_say_no_more_than_the_runs():
    from recur.pages.ch6_act_ut import long_chain_words

    assert long_chain_words(2, 1, 3).endswith(
        "so few runs cannot tell the two apart, and the quarter rests on the argument."
    )
    assert long_chain_words(1, 1, 3).endswith("rests on the argument.")
    assert long_chain_words(0, 3, 3).endswith("the long chains helped.")
    assert long_chain_words(3, 1, 3).endswith("the long chains did not help.")
    assert long_chain_words(2, 1, 3).startswith(
        "trained on random sums only, 2 of 3 runs met the chapter's bar, against 1 of 3"
    )


def test_the_act_explorer_writes_the_model_it_is_given_under_its_name(
    monkeypatch, tmp_path
):
    """Chapter 6 shows two models, each in its own file next to the page."""
    from recur.models.cell import LocalCell
    from recur.views import explorers

    monkeypatch.setenv("RECUR_STATIC_PAGE", "1")
    monkeypatch.chdir(tmp_path)
    written: list[str] = []
    monkeypatch.setattr(
        "recur.views.explorers.write_model_script", lambda m, n: written.append(n)
    )
    page = explorers.act_explorer(LocalCell(), "0111", "0001", name="ch6_first").data
    assert 'class="act-explorer"' in page and 'data-model="ch6_first"' in page
    assert written == ["ch6_first"]
    explorers.act_explorer(LocalCell(), "0111", "0001")
    assert written == ["ch6_first", "ch6_act"]  # the chapter's model, by default


def test_the_share_waiting_counts_waits_by_hand():
    # 0111 + 0001, LSB first: bit 0 one round; bit 1 (carry from bit 0) 1; bit 2: 2;
    # bit 3: 3; the carry-out sits above a 0 + 0 at bit 3: 1. 0000 + 0000: all 1
    batch = batch_from_strings([("0111", "0001"), ("0000", "0000")])
    assert share_waiting(batch, 2) == pytest.approx(2 / 10)
    assert share_waiting(batch, 3) == pytest.approx(1 / 10)
    assert share_waiting(batch, 1) == pytest.approx(1.0)
    # 0110 + 0000: no carry anywhere, yet bit 3 waits past the propagating bits 1, 2
    quiet = batch_from_strings([("0110", "0000")])
    assert not (quiet.distance >= 1).any()  # no carry travels at all
    assert share_waiting(quiet, 3) == pytest.approx(1 / 5)
    with pytest.raises(ValueError, match="at_least"):
        share_waiting(batch, 0)


def test_the_early_share_is_a_mean_over_seeds_not_over_rows():
    # seed 0 kept positions waiting for three rounds (three rows, share 0.6 on each);
    # seed 1 for one round (share 0.0): half of their positions' shares is 0.3, while
    # a mean over rows would give 0.45
    rows = [("a", 0, r, 0.6) for r in (1, 2, 3)] + [("a", 1, 1, 0.0)]
    rows += [("b", 0, 1, 0.1), ("b", 1, 1, 0.3)]
    table = pd.DataFrame(rows, columns=["variant", "seed", "round",
                                        "halted before the carry"])  # fmt: skip
    early = halted_early_by_variant(table)
    assert early["a"] == pytest.approx(0.3)
    assert early["b"] == pytest.approx(0.2)


def test_the_ramp_words_say_no_more_than_the_runs():
    assert ramp_words(4, 5, 5) == (
        "4 of 5 runs with the penalty at full weight from the first step got there, "
        "and 5 of 5 ramped ones: too few runs to tell apart, so the ramp rests on the "
        "argument."
    )
    assert ramp_words(1, 5, 5).endswith(": the ramp helped.")
    assert ramp_words(5, 2, 5).endswith(": the ramp did not help.")


def _my_act(step, state, halting, max_steps, eps=0.01, copy=True, cap=True):
    """Solution 4 of Chapter 6, with two bugs that can be switched on."""
    total = state.new_zeros(state.shape[:-1])  # (B, n)
    output = torch.zeros_like(state)  # (B, n, d)
    for r in range(max_steps):
        running = total < 1 - eps
        new = step(state, r)
        h = halting(new)
        last = cap and r == max_steps - 1
        halts = running & ((total + h >= 1 - eps) | last)
        p = torch.where(halts, 1 - total, torch.where(running, h, 0.0))
        output, total = output + p[..., None] * new, total + p
        state = torch.where(running[..., None], new, state) if copy else new
    return output


def _exercise_4_agrees(my_act) -> bool:
    """Exercise 4's check as the page states it: five random draws, caps 2 to 6, a
    step that mixes each position with its neighbour, a halting unit with bias -1
    and weights of standard deviation 2."""
    for seed in range(5):
        torch.manual_seed(seed)
        w = torch.randn(8, 8)

        def step(s, r, w=w):
            return torch.tanh((s + s.roll(1, dims=1)) @ w)

        halting = HaltingUnit(8, bias_init=-1.0)
        torch.nn.init.normal_(halting.linear.weight, std=2.0)
        state = torch.randn(3, 5, 8)
        for max_steps in range(2, 7):
            with torch.no_grad():
                want = act_loop(step, state, halting, max_steps).output
                got = my_act(step, state, halting, max_steps)
            if not torch.allclose(got, want, atol=1e-5):
                return False
    return True


def test_exercise_4s_check_passes_the_solution_and_catches_broken_ones():
    assert _exercise_4_agrees(_my_act)
    assert not _exercise_4_agrees(lambda *a: _my_act(*a, copy=False))  # no copy
    assert not _exercise_4_agrees(lambda *a: _my_act(*a, cap=False))  # no cap
