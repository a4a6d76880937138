"""Chapter 5's Solution 4 (a loop over one position's halting probabilities) agrees
with the library's batched halting_weights, as the solution says."""

from __future__ import annotations

import pytest
import torch

from recur.models.act import halting_weights


def my_halting(h, eps=0.01):
    """The solution as the page prints it."""
    total, p = 0.0, []

    for r, h_r in enumerate(h.tolist(), start=1):
        if total + h_r >= 1 - eps or r == len(h):  # Eq. 7, or the cap
            remainder = 1 - total  # Eq. 8
            return r, remainder, torch.tensor(p + [remainder] + [0.0] * (len(h) - r))

        total, p = total + h_r, p + [h_r]  # Eq. 6 for r < N


def test_the_solution_is_the_one_on_the_page():
    import json
    from pathlib import Path

    page = Path(__file__).parents[1] / "book" / "05_act.ipynb"
    cells = json.loads(page.read_text())["cells"]
    shown = next(
        "".join(c["source"]) for c in cells if "def my_halting" in "".join(c["source"])
    )
    import inspect

    body = inspect.getsource(my_halting).split(
        '"""The solution as the page prints it."""\n'
    )
    assert body[1].strip() in shown


@pytest.mark.parametrize("seed", range(5))
def test_solution_4_agrees_with_the_library_on_200_draws(seed):
    torch.manual_seed(seed)
    for _ in range(200):
        h = 0.5 * torch.rand(6)
        n_steps, remainder, weights = my_halting(h)
        library = halting_weights(h)
        assert n_steps == int(library.n_steps)
        assert remainder == pytest.approx(float(library.remainder), abs=1e-6)
        assert torch.allclose(weights, library.weights.float(), atol=1e-6)


def test_a_wrong_remainder_would_be_seen():
    h = torch.tensor([0.6, 0.5])  # halts at round 2 with R = 0.4
    n_steps, remainder, _ = my_halting(h)
    assert (n_steps, remainder) == (2, pytest.approx(0.4))
    assert float(halting_weights(h).remainder) == pytest.approx(0.4)
