"""Chapter 3's sentence about the cell given the problem once, counted seed by seed
from a table made by hand (not by the ablation), so each branch is seen."""

import pandas as pd

from recur.chapters.ch3_input_injection import seeds_that_lose
from recur.pages.ch3_input_injection import kept_words


def _table(exact: dict) -> pd.DataFrame:
    """Rows as :func:`injection_ablation` writes them, for the uninjected cell with
    every round in its loss: ``exact[(seed, bits)] = (after n + 1, after 4 (n + 1))``;
    the other rounds are 0."""
    rows = []
    for (seed, bits), (trained, most) in exact.items():
        for r in range(1, 4 * (bits + 1) + 1):
            value = {bits + 1: trained, 4 * (bits + 1): most}.get(r, 0.0)
            rows.append({"inject": False, "loss window": "all", "seed": seed,
                         "bits": bits, "round": r, "exact": value})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_seed_loses_sums_when_the_last_round_is_right_on_fewer():
    exact = {(0, 2): (1.0, 0.5), (1, 2): (0.9, 0.9), (2, 2): (0.8, 0.9),
             (0, 4): (1.0, 1.0), (1, 4): (0.7, 0.2), (2, 4): (0.6, 0.1)}  # fmt: skip
    table = _table(exact)  # equal is not fewer: seed 1 at 2 bits keeps its sums
    assert seeds_that_lose(table, False, "all") == {2: 1, 4: 2, "n": 3}


def test_a_seed_that_peaks_before_n_plus_1_and_falls_loses_sums():
    table = _table({(0, 8): (0.5, 0.5), (1, 8): (0.9, 0.9)})
    peak = (table["seed"] == 0) & (table["round"] == 3)  # seed 0 was right on all
    table.loc[peak, "exact"] = 1.0
    assert seeds_that_lose(table, False, "all") == {8: 1, "n": 2}


def test_the_words_follow_the_counts():
    assert "not kept: every seed is right on fewer" in kept_words({8: 3, 32: 3, "n": 3})
    assert "and kept: no seed is right on fewer" in kept_words({8: 0, 32: 0, "n": 3})
    assert kept_words({8: 1, 32: 3, "n": 3}).endswith(
        "1 of 3 seeds at 8 bits and 3 of 3 seeds at 32 bits are right on fewer sums"
        " after 4(n + 1) rounds than after its best round"
    )
