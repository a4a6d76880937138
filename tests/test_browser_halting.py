"""Chapter 5's halting explorer in the static page draws what Fig. 13 draws: the
running sum of the halting probabilities against the line 1 - eps, with round N
shaded, and a text alternative made from the same numbers."""

from __future__ import annotations

import pytest


def _explorer(page, site):
    page.goto(f"{site}/book/05_act.html", wait_until="load")
    explorer = page.locator(".halting-explorer").first
    explorer.locator(".halt-chart").wait_for()
    return explorer


def _drawn(explorer) -> dict:
    """The chart as drawn: each dot's running sum and height, the threshold's value
    and height, the shaded round and the text alternative."""
    return explorer.evaluate(
        """root => {
            const chart = root.querySelector(".halt-chart");
            const dots = [...chart.querySelectorAll(".halt-sum-dot")];
            const line = chart.querySelector(".halt-threshold");
            return {
                sums: dots.map((d) => Number(d.dataset.sum)),
                heights: dots.map((d) => Number(d.getAttribute("cy"))),
                threshold: Number(line.dataset.value),
                lineHeight: Number(line.getAttribute("y1")),
                shaded: Number(chart.querySelector(".halt-n").dataset.round),
                text: chart.getAttribute("aria-label"),
            };
        }"""
    )


@pytest.mark.parametrize(
    ("moves", "h", "eps"),
    [
        ({}, [0.1, 0.3, 0.8, 0.5, 0.2], 0.01),  # the page's own values
        ({"h3": "0"}, [0.1, 0.3, 0.0, 0.5, 0.2], 0.01),  # reaches it in the last round
        # the sum lands on the line 0.95
        ({"h3": "0.55", "eps": "0.05"}, [0.1, 0.3, 0.55, 0.5, 0.2], 0.05),
    ],
)
def test_the_running_sum_is_drawn_against_one_minus_eps(page, site, moves, h, eps):
    """Each dot sits at h_1 + ... + h_r (the library's halting_weights on the same
    values gives N), on or above the dashed line exactly where the sum has reached
    1 - eps, and the shaded round is N."""
    import numpy as np
    import torch

    from recur.models.act import halting_weights

    explorer = _explorer(page, site)
    for name, value in moves.items():
        explorer.locator(f".halt-{name}").fill(value)
    drawn = _drawn(explorer)
    sums = np.cumsum(h)
    n_steps = int(halting_weights(torch.tensor(h, dtype=torch.float64), eps).n_steps)
    assert drawn["sums"] == pytest.approx(sums.tolist(), abs=1e-9)
    assert drawn["threshold"] == pytest.approx(1 - eps)
    above = [height <= drawn["lineHeight"] for height in drawn["heights"]]
    assert above == (sums >= 1 - eps).tolist()  # SVG heights grow downwards
    assert drawn["shaded"] == n_steps
    assert f"N = {n_steps}" in drawn["text"]
    assert f"1 − ε = {1 - eps:.2f}" in drawn["text"]
    assert ", ".join(f"{s:.2f}" for s in sums) in drawn["text"]
    assert not page.errors, page.errors


def test_a_sum_that_never_reaches_the_line_says_the_cap_stopped_it(page, site):
    explorer = _explorer(page, site)
    explorer.locator(".halt-h3").fill("0")  # 0.1 + 0.3 + 0 + 0.5 + 0.2 = 1.1 >= 0.99
    explorer.locator(".halt-h5").fill("0")  # now 0.9: never reaches 0.99
    text = _drawn(explorer)["text"]
    assert "never reaches 1 − ε = 0.99" in text and "N = 5" in text
