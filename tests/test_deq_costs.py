"""recur.chapters.ch7_fixed_points and recur.chapters.ch7_costs: the DEQ cell is the
unrolled cell at its fixed point, the memory it keeps does not grow with the iterations,
banded attention is the masked one, and the sharing table matches the counts checked by
hand in FACTS."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.chapters.ch7_costs import (
    attention_costs,
    saved_bytes,
    sharing_costs,
    ut_round,
)
from recur.chapters.ch7_fixed_points import state_changes, training_memory
from recur.core.tasks import random_batch
from recur.models.attention import UTBlock, banded_attention, local_mask
from recur.models.cell import LocalCell
from recur.models.deq import EquilibriumCell


def test_saved_bytes_by_hand():
    x = torch.ones(1000, requires_grad=True)  # float32: 4,000 bytes
    assert saved_bytes(lambda: torch.exp(x).sum()) == 4000  # exp keeps its result
    assert saved_bytes(lambda: (x + 1).sum()) == 0  # an addition keeps nothing
    with torch.no_grad():
        assert saved_bytes(lambda: torch.exp(x)) == 0


def test_saved_bytes_can_leave_out_the_parameters():
    """y = x W^T keeps x (8 x 5 float32: 160 bytes) and W (3 x 5: 60 bytes) for the
    backward pass; with the layer's parameters left out, only x is counted."""
    layer = torch.nn.Linear(5, 3, bias=False)
    x = torch.ones(8, 5, requires_grad=True)
    assert saved_bytes(lambda: layer(x).sum()) == 160 + 60
    assert saved_bytes(lambda: layer(x).sum(), layer.parameters()) == 160


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 20),
    window=st.integers(0, 5),
    heads=st.sampled_from([1, 2, 4]),
    seed=st.integers(0, 1000),
)
def test_banded_attention_is_the_masked_attention(n, window, heads, seed):
    torch.manual_seed(seed)
    block = UTBlock(8, heads, 16)
    x = torch.randn(2, n, 8)
    masked = block.attn(x, x, x, attn_mask=local_mask(n, window), need_weights=False)
    assert torch.allclose(banded_attention(x, block.attn, window), masked[0], atol=1e-5)
    rounds = [
        ut_round(block, x, kind, window) for kind in ("masked local", "banded local")
    ]
    assert torch.allclose(*rounds, atol=1e-5)


def test_ut_round_and_costs_reject_unknown_attention():
    block = UTBlock(8, 2, 16)
    with pytest.raises(ValueError, match="attention"):
        ut_round(block, torch.zeros(1, 4, 8), "sparse")
    with pytest.raises(ValueError, match="window"):
        banded_attention(torch.zeros(1, 4, 8), block.attn, -1)
    table = attention_costs(block, [8, 256], repeats=1)
    assert len(table) == 6 and (table["seconds"] > 0).all()
    kept = table.set_index(["n", "attention"])["bytes"]
    assert kept[256, "masked local"] > kept[256, "banded local"]  # n^2 against n w


def test_sharing_costs_match_the_hand_counts():
    """FACTS.md: one Transformer-base layer has 3,152,384 parameters; twelve have
    37,828,608."""
    table = sharing_costs(512, 2048, 12, 512)
    assert table["parameters"].tolist() == [37_828_608, 3_152_384, 3 * 3_152_384]
    assert table["multiply-adds per token"].nunique() == 1  # the same work for all


def test_the_deq_cell_returns_a_fixed_point_of_the_cell():
    torch.manual_seed(0)
    deq = EquilibriumCell(tol=1e-6)
    bits = random_batch(4, 6, seed=0).bits
    with torch.no_grad():
        logits = deq(bits, 200).logits[0]  # (B, n)
        problem = deq.cell.embed(bits)
        state = torch.zeros_like(problem)
        for _ in range(300):  # the oracle: plain rounds of Chapter 2's loop
            state = deq.cell.step(state, problem)
        assert torch.allclose(deq.cell.step(state, problem), state, atol=1e-6)
        want = deq.cell.readout(state).squeeze(-1)
    assert deq.last_solve.converged and deq.last_solve.residual < 1e-6
    assert torch.allclose(logits, want, atol=1e-4)


def test_unrolled_mode_is_chapter_2s_cell():
    torch.manual_seed(0)
    cell = LocalCell()
    unrolled = EquilibriumCell(implicit=False)
    unrolled.cell.load_state_dict(cell.state_dict())
    bits = random_batch(5, 6, seed=1).bits
    assert torch.allclose(unrolled(bits, 7).logits[0], cell(bits, 7).logits[-1])


def test_implicit_training_memory_is_flat_and_unrolled_grows_with_the_rounds():
    torch.manual_seed(0)
    kept = training_memory(EquilibriumCell(), 6, 8, [4, 8, 16]).pivot(
        index="rounds", columns="method", values="bytes"
    )
    assert kept["implicit"].nunique() == 1
    unrolled = kept["unrolled backprop"]
    assert 3.5 < unrolled[16] / unrolled[4] <= 4.0  # linear in the rounds


def test_state_changes_vanish_for_a_constant_update():
    """An update whose weights are zero returns tanh(bias) whatever the state: from
    round 1 on the state never changes."""
    cell = LocalCell()
    with torch.no_grad():
        for layer in (cell.update[0], cell.update[2]):
            layer.weight.zero_()
        cell.update[2].bias.fill_(0.5)
    changes = state_changes(cell, random_batch(3, 5, seed=0).bits, 6)
    assert changes.shape == (5,) and torch.all(changes == 0)
    with pytest.raises(ValueError, match="LocalCell or a UT"):
        state_changes(torch.nn.Linear(2, 2), random_batch(3, 5, seed=0).bits, 3)


def test_solves_are_collected_over_every_chunk_of_an_evaluation():
    """The iterations of a sample larger than one chunk are those of its slowest chunk,
    not of the last one. A scripted update, z <- x + (z shifted up one position): its
    fixed point is reached once x has spread to the top, n + 1 = 9 iterations when x
    sits at bit 0 (first chunk), 2 when it sits at the top bit (second chunk)."""
    from recur.chapters.ch7_fixed_points import collect_solves, solves_summary
    from recur.core.tasks import AdditionBatch
    from recur.training.evaluate import evaluate

    deq = EquilibriumCell(tol=1e-6)
    deq.cell.embed, deq.cell.readout = torch.nn.Identity(), torch.nn.Linear(2, 1)
    deq.update = lambda x, z: x + torch.nn.functional.pad(z[:, :-1], (0, 0, 1, 0))
    bits = torch.zeros(8, 8, 2)  # (B, n, 2)
    bits[:4, 0, 0] = 1  # first chunk: a_0 = 1
    bits[4:, 7, 0] = 1  # second chunk: the top bit
    zeros = torch.zeros(8, 8)
    with collect_solves(deq) as solves:
        evaluate(deq, AdditionBatch(bits, zeros, zeros.long()), 40, chunk=4)
    assert [s.n_iter for s in solves] == [9, 2]
    assert solves_summary(solves).n_iter == 9
    assert deq.solves is None  # collecting ends with the block


def test_solves_summary_by_hand():
    from recur.chapters.ch7_fixed_points import solves_summary
    from recur.models.fixedpoint import Solve

    merged = solves_summary([Solve(5, 1e-4, True), Solve(9, 1e-2, False)])
    assert merged == Solve(9, 1e-2, False)
    with pytest.raises(ValueError, match="no solves"):
        solves_summary([])


def test_failed_solves_in_training_are_counted():
    """A tolerance no solve can meet in 2 iterations: every training solve fails,
    forward and backward, and is counted; evaluation solves are not."""
    from recur.training.config import TrainConfig
    from recur.training.loop import train

    torch.manual_seed(0)
    deq = EquilibriumCell(tol=1e-12)
    cfg = TrainConfig(n_steps=3, n_rounds=2, eval_every=3, eval_size=50, progress=False)
    train(deq, cfg)
    assert deq.training_solves == 3
    assert deq.failed_solves == {"forward": 3, "backward": 3}


def test_state_changes_leave_out_the_floor_and_need_two_rounds():
    """A UT with a floor position: the changes are those of the bits' positions only
    (the floor's state, which nothing reads, is changed by hand to show it)."""
    from recur.chapters.ch7_fixed_points import _states
    from recur.models.ut import UniversalTransformer

    torch.manual_seed(0)
    ut = UniversalTransformer(window=1, floor=True, inject=True, d_model=8, n_heads=2)
    bits = random_batch(3, 4, seed=0).bits  # 5 positions, 6 with the floor
    states = _states(ut.eval(), bits, 3)
    assert states[0].shape == (3, 5, 8)
    with pytest.raises(ValueError, match="n_rounds must be >= 2"):
        state_changes(ut, bits, 1)


def test_solve_words_say_a_capped_solve_did_not_converge():
    from recur.pages.ch7_fixed_points import solve_words

    assert solve_words(12, True) == "converges after 12 iterations"
    assert solve_words(130, False) == (
        "stops at its cap of 130 iterations without converging"
    )


def test_iterations_words_follow_the_fitted_slope():
    import pandas as pd

    from recur.pages.ch7_fixed_points import iterations_words

    lengths = pd.Index([1, 2, 4, 8], name="longest chain")
    walking = iterations_words(pd.Series([3.0, 5.0, 9.0, 17.0], index=lengths))
    assert walking["slope"] == pytest.approx(2.0)  # 2 per position, by hand
    assert walking["words"] == "grow with the chain, by about 2.0 per position of it"
    flat = iterations_words(pd.Series([51.0, 36.0, 36.0, 40.0], index=lengths))
    assert flat["words"].startswith("hardly depend on the chain")
    assert "36 to 51" in flat["words"]
    with pytest.raises(ValueError):
        iterations_words(pd.Series([3.0], index=lengths[:1]))


def test_cap_words_name_the_widths_where_the_solver_hit_its_cap():
    import pandas as pd

    from recur.pages.ch7_fixed_points import cap_words

    widths = pd.DataFrame(
        {"converged": [False, True, False], "DEQ exact": [1.0, 1.0, 0.5]},
        index=pd.Index([8, 64, 1024], name="bits"),
    )
    assert cap_words(widths) == (
        "At 8 and 1,024 bits the solver reached its cap of 18 and 2,050 iterations, "
        "2(n + 1), before every sum had settled."
    )  # one width capped and wrong: no "readout right" clause
    right = cap_words(widths.iloc[:2])
    assert right.startswith("At 8 bits") and right.endswith("right on every sum.")
    settled = cap_words(widths.iloc[1:2])
    assert settled == "At every width the solver stopped because the state had settled."


def test_restart_words_tell_the_restart_from_the_check():
    from recur.pages.ch7_fixed_points import restart_words

    # the chapter's case: 20 passed with restarts, 16 got there in one run, all 16 met
    both = restart_words({"reached": 20}, {"reached": 16, "met": 16})
    assert (both["restarted"], both["rejected"]) == (4, 0)
    assert both["words"].endswith("the restart, not the check, made the difference")
    check = restart_words({"reached": 20}, {"reached": 20, "met": 17})
    assert (check["restarted"], check["rejected"]) == (0, 3)
    assert check["words"].startswith("3 of them missed a sum")
    neither = restart_words({"reached": 18}, {"reached": 18, "met": 18})
    assert neither["words"] == "neither the restart nor the check changed the count"


def test_settle_words_sort_the_loops_by_the_tolerance():
    from recur.pages.ch7_fixed_points import settle_words

    changes = {"a": 1e-8, "b": 4e-4, "c": 9e-2, "d": 1e-3, "e": 1.3e-2}
    words = settle_words(changes, 1e-3)
    assert words["moving"] == "c and e"  # above 1e-3; d is at it, so settled
    assert words["settled"] == "a, b and d"
    assert settle_words({"a": 1.0}, 1e-3) == {"moving": "a", "settled": "none"}
    with pytest.raises(ValueError):
        settle_words({}, 1e-3)


def _my_iterate(f, x, z, tol=1e-6, max_iter=100):
    """Chapter 7's Solution 2, as the page prints it."""
    for k in range(1, max_iter + 1):
        fz = f(x, z)
        moved = (fz - z).norm() / (fz.norm() + 1e-12)  # relative change
        z = fz
        if moved < tol:
            return z, k
    return z, max_iter


@pytest.mark.parametrize("seed", range(10))
def test_solution_2_stops_with_the_library_on_one_example(seed):
    """The solution's claim, for the exercise's one example x of shape (1, 5): the same
    iteration count and the same z as the library's plain iteration."""
    from recur.models.fixedpoint import fixed_point

    gen = torch.Generator().manual_seed(seed)
    w = 0.3 * torch.randn(5, 5, generator=gen) / 5**0.5
    x = torch.randn(1, 5, generator=gen)

    def f(x, z):
        return torch.tanh(z @ w + x)

    with torch.no_grad():
        z_lib, solve = fixed_point(f, x, torch.zeros(1, 5), method="iteration")
        z_mine, k = _my_iterate(f, x, torch.zeros(1, 5))
    assert k == solve.n_iter
    assert torch.allclose(z_mine, z_lib, atol=1e-6)


def test_train_deq_hands_its_solver_to_the_cell(monkeypatch):
    """Exercise 1's call, train_deq(method="anderson"), trains a cell that solves with
    Anderson acceleration; the chapter's default stays plain iteration."""
    import recur.chapters.ch7_fixed_points as ch7

    made = []

    def record(make, *args, **kwargs):
        made.append(make())

    monkeypatch.setattr(ch7, "checked_training", record)
    ch7.train_deq(method="anderson")
    ch7.train_deq()
    assert [cell.method for cell in made] == ["anderson", "iteration"]


def test_seeds_above_counts_the_last_round_per_method():
    import pandas as pd

    from recur.chapters.ch7_fixed_points import seeds_above

    rows = [  # (method, seed, round, change); only round 2 counts
        ("A", 0, 1, 9.0), ("A", 0, 2, 2e-1), ("A", 1, 1, 9.0), ("A", 1, 2, 5e-4),
        ("B", 0, 1, 9.0), ("B", 0, 2, 1e-3), ("B", 1, 2, 3e-3), ("B", 2, 2, 4e-2),
    ]  # fmt: skip
    settle = pd.DataFrame(rows, columns=["method", "seed", "round", "change"])
    counts = seeds_above(settle, 1e-3)
    assert counts == {"A_above": 1, "A_seeds": 2, "B_above": 2, "B_seeds": 3}
    with pytest.raises(ValueError):
        seeds_above(settle.iloc[:0], 1e-3)


def test_band_ahead_from_needs_every_longer_length():
    import pandas as pd

    from recur.chapters.ch7_costs import band_ahead_from

    def rows(n, band, full, mask):  # (seconds, bytes) for each kind
        kinds = {"banded local": band, "full": full, "masked local": mask}
        return [(n, kind, t, b) for kind, (t, b) in kinds.items()]

    table = (
        rows(64, (3, 9), (1, 5), (2, 8))  # band slowest and biggest
        + rows(256, (1, 5), (2, 4), (3, 9))  # fastest, less than the mask
        + rows(1024, (1, 5), (2, 4), (3, 9))
    )
    costs = pd.DataFrame(table, columns=["n", "attention", "seconds", "bytes"])
    assert band_ahead_from(costs) == 256
    slow_top = costs.copy()
    at_top = (slow_top["n"] == 1024) & (slow_top["attention"] == "full")
    slow_top.loc[at_top, "seconds"] = 0
    assert band_ahead_from(slow_top) is None  # behind at the longest length
    gap = costs.copy()
    gap.loc[(gap["n"] == 256) & (gap["attention"] == "banded local"), "bytes"] = 10
    assert band_ahead_from(gap) == 1024  # 256 keeps more than the mask


def _kept_shapes(run) -> list[tuple[tuple[int, ...], torch.dtype]]:
    """The shape and dtype of every tensor autograd keeps for backward in ``run()``."""
    kept = []

    def pack(t):
        kept.append((tuple(t.shape), t.dtype))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run()
    return kept


def test_full_attention_keeps_no_n_by_n_tensor_and_the_masked_window_keeps_one():
    """What the Performance page says of Fig. 30's memory: PyTorch's fused attention
    keeps nothing of size n x n for backward, while the masked window keeps its mask
    as an n x n float tensor."""
    from recur.chapters.ch7_costs import ut_round
    from recur.models.attention import UTBlock

    n = 256
    block, x = UTBlock(32, 4, 128), torch.randn(1, n, 32)
    square = [s for s, _ in _kept_shapes(lambda: ut_round(block, x, "full"))
              if math.prod(s) >= n * n]  # fmt: skip
    assert square == []
    masked = _kept_shapes(lambda: ut_round(block, x, "masked local"))
    assert [(s[-2:], d) for s, d in masked if math.prod(s) >= n * n] == [
        ((n, n), torch.float32)
    ]
