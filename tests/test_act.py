"""ACT: the pure functions against a plain loop written here, and the loop itself."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from recur.models.act import HaltingUnit, act_loop, halting_weights, ponder_cost


def reference(h_row: list[float], eps: float) -> tuple[list[float], int, float]:
    """Graves Eqs. 6-8 for one position, as a plain loop."""
    total, weights = 0.0, []
    for n, h in enumerate(h_row, start=1):
        if total + h >= 1 - eps or n == len(h_row):
            remainder = 1 - total
            weights.append(remainder)
            weights += [0.0] * (len(h_row) - n)
            return weights, n, remainder
        total += h
        weights.append(h)
    raise AssertionError("unreachable")


shapes = st.sampled_from([(7,), (3, 5), (2, 4, 6), (1, 1)])


@settings(max_examples=150, deadline=None)
@given(shapes, st.integers(0, 10_000), st.sampled_from([0.01, 0.1, 0.5]))
def test_halting_weights_match_a_plain_loop(shape, seed, eps):
    h = torch.rand(
        shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )
    halt = halting_weights(h, eps)
    assert torch.all(halt.weights >= 0)
    assert torch.allclose(halt.weights.sum(-1), torch.ones(shape[:-1], dtype=h.dtype))
    assert torch.all((halt.n_steps >= 1) & (halt.n_steps <= shape[-1]))
    for index in (
        torch.cartesian_prod(*[torch.arange(s) for s in shape[:-1]]).reshape(
            -1, len(shape) - 1
        )
        if len(shape) > 1
        else [()]
    ):
        index = tuple(int(i) for i in index)
        weights, n_steps, remainder = reference(h[index].tolist(), eps)
        assert halt.weights[index].tolist() == pytest.approx(weights)
        assert int(halt.n_steps[index]) == n_steps
        assert float(halt.remainder[index]) == pytest.approx(remainder)


def test_worked_example():
    halt = halting_weights(torch.tensor([0.1, 0.3, 0.8, 0.5]), eps=0.01)
    assert int(halt.n_steps) == 3
    assert float(halt.remainder) == pytest.approx(0.6)
    assert halt.weights.tolist() == pytest.approx([0.1, 0.3, 0.6, 0.0])
    assert float(ponder_cost(torch.tensor([0.1, 0.3, 0.8, 0.5]))) == pytest.approx(3.6)


def test_ponder_gradient_is_eq_14():
    h = torch.tensor([0.1, 0.3, 0.8, 0.5], requires_grad=True)
    ponder_cost(h).backward()
    assert h.grad.tolist() == [-1.0, -1.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("h", "eps", "message"),
    [
        (torch.zeros(0), 0.01, "step"),
        (torch.tensor([1.5]), 0.01, "\\[0, 1\\]"),
        (torch.tensor([0.5]), 0.0, "eps"),
    ],
)
def test_bad_halting_input_raises(h, eps, message):
    with pytest.raises(ValueError, match=message):
        halting_weights(h, eps)


def _scripted(h_by_step):
    """A step function that adds 1 to the state and records the rows it was given
    (``calls["rows"]``, None: all), and a halting unit that returns the scripted
    probabilities h_by_step[n] (B, n) at step n."""
    calls = {"n": 0, "rows": []}

    def step(state, n, rows=None):
        calls["rows"].append(None if rows is None else rows.tolist())
        return state + 1  # (b, n, d)

    class Scripted(HaltingUnit):
        def forward(self, state):
            h = h_by_step[calls["n"]]
            calls["n"] += 1
            return h

    return step, Scripted(1), calls


def test_act_loop_mean_field_equals_explicit_sum():
    h_by_step = torch.tensor([[[0.2, 0.9]], [[0.5, 0.9]], [[0.9, 0.9]], [[0.9, 0.9]]])
    step, unit, calls = _scripted(h_by_step)
    out = act_loop(step, torch.zeros(1, 2, 1), unit, max_steps=4, mix="mean_field")
    # position 0: h = .2, .5, .9 -> N = 3, R = .3; states 1, 2, 3
    assert out.n_updates.tolist() == [[3.0, 2.0]]
    assert out.remainder[0, 0].item() == pytest.approx(0.3)
    assert out.output[0, 0, 0].item() == pytest.approx(0.2 * 1 + 0.5 * 2 + 0.3 * 3)
    # position 1: h = .9, .9 -> N = 2, R = .1
    assert out.output[0, 1, 0].item() == pytest.approx(0.9 * 1 + 0.1 * 2)
    assert out.n_rounds == 3 and calls["n"] == 3  # stopped early, not at max_steps


def test_act_loop_interpolation_differs_from_mean_field():
    h_by_step = torch.tensor([[[0.2]], [[0.5]], [[0.9]]])
    step, unit, _ = _scripted(h_by_step)
    out = act_loop(step, torch.zeros(1, 1, 1), unit, max_steps=3, mix="interpolate")
    blend = 0.0
    for p, s in [(0.2, 1), (0.5, 2), (0.3, 3)]:
        blend = p * s + (1 - p) * blend
    assert out.output.item() == pytest.approx(blend)
    assert blend != pytest.approx(0.2 * 1 + 0.5 * 2 + 0.3 * 3)


def test_halted_positions_are_copied_unchanged():
    seen = []

    def step(state, n):
        seen.append(state.clone())
        return state + 1

    class Halt(HaltingUnit):
        def forward(self, state):
            return torch.tensor([[1.0, 0.1]])  # position 0 halts at step 1

    act_loop(step, torch.zeros(1, 2, 1), Halt(1), max_steps=3)
    assert [s[0, 0, 0].item() for s in seen] == [0.0, 1.0, 1.0]  # frozen after halting
    assert [s[0, 1, 0].item() for s in seen] == [0.0, 1.0, 2.0]


def test_ponder_has_gradient_only_through_remainder():
    """Eq. 14 through the loop: d(N + R)/dh_r = -1 for r < N, 0 from N on (and 0 for
    steps never run). Position 0: h = .2, .5, .9 -> N = 3; position 1: .9, .9 -> N = 2.
    """
    h_by_step = torch.tensor(
        [[[0.2, 0.9]], [[0.5, 0.9]], [[0.9, 0.9]], [[0.9, 0.9]]], requires_grad=True
    )  # (M, B, n)
    step, unit, _ = _scripted(h_by_step)
    out = act_loop(step, torch.zeros(1, 2, 1), unit, max_steps=4)
    out.ponder.sum().backward()
    assert out.ponder[0].tolist() == pytest.approx([3 + 0.3, 2 + 0.1])
    expected = [[[-1, -1]], [[-1, 0]], [[0, 0]], [[0, 0]]]
    assert h_by_step.grad.tolist() == expected


def test_act_loop_records_h_while_a_position_runs_and_0_after():
    h_by_step = torch.tensor([[[0.2, 0.9]], [[0.5, 0.9]], [[0.9, 0.9]], [[0.9, 0.9]]])
    step, unit, _ = _scripted(h_by_step)
    out = act_loop(step, torch.zeros(1, 2, 1), unit, max_steps=4)
    # three rounds ran; position 1 halted in round 2 (.9 + .9 >= .99)
    expected = h_by_step[:3].clone()
    expected[2, 0, 1] = 0.0  # round 3, position 1: halted
    assert torch.equal(out.halting, expected)


def test_rows_only_runs_the_step_on_running_rows_and_changes_no_number():
    # row 0 halts in round 1; row 1's position 0 in round 1, its position 1 in round
    # 2; row 2 runs to the cap (round 4)
    first = [[1.0, 1.0], [1.0, 0.5], [0.1, 0.1]]  # (B, n): round 1
    second = [[0.3, 0.3], [0.3, 0.6], [0.1, 0.1]]  # round 2
    h_by_round = torch.tensor([first, second] + [[[0.3] * 2, [0.3] * 2, [0.1] * 2]] * 2)
    state = torch.arange(12.0).reshape(3, 2, 2)  # (B, n, d)
    step, unit, calls = _scripted(h_by_round)
    full = act_loop(step, state, unit, max_steps=4)
    assert calls["rows"] == [None] * 4  # every row, every round
    step, unit, calls = _scripted(h_by_round)
    rows = act_loop(step, state, unit, max_steps=4, rows_only=True)
    assert calls["rows"] == [None, [1, 2], [2], [2]]  # all three, then the running ones
    for name in ("output", "ponder", "n_updates", "remainder", "halting"):
        assert torch.equal(getattr(rows, name), getattr(full, name)), name
    assert rows.halting[1:, 0].eq(0).all()  # row 0 halted: h is 0 from round 2


def test_halting_noise_only_in_training():
    torch.manual_seed(0)
    state = torch.randn(3, 5, 4)
    noisy, plain = HaltingUnit(4, noise=2.0), HaltingUnit(4)
    plain.load_state_dict(noisy.state_dict())
    clean = torch.sigmoid(plain.linear(state)).squeeze(-1)
    assert torch.equal(plain(state), clean)  # no noise asked: training mode too
    assert not torch.allclose(noisy(state), clean)  # training mode: noise
    noisy.eval()
    assert torch.equal(noisy(state), clean)  # eval mode: none


def test_halting_bias_starts_at_one():
    assert HaltingUnit(4).linear.bias.item() == 1.0
