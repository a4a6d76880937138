"""The values Chapter 6 glues from the browser study (``browser_act_seeds.csv``),
on a hand-made table whose counts are worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from recur.pages.ch6_act_ut import browser_values, trainer_expectation


def _runs() -> pd.DataFrame:
    """Four page seeds: three passed (one after a restart), one did not; of the
    passing ones, one got a hardest sum of 32 bits wrong by the library's count."""
    rows = []
    for seed, passed, attempts, seconds, wrong_at in [
        (0, True, 1, 40.0, None),
        (1, True, 2, 100.0, 32),
        (2, False, 3, 170.0, None),
        (3, True, 1, 50.0, None),
    ]:
        row = {"seed": seed, "passed": passed, "attempts": attempts, "seconds": seconds}
        for bits in (8, 16, 32, 64):
            row[f"hardest {bits}, library"] = bits != wrong_at
        rows.append(row)
    return pd.DataFrame(rows)


def test_the_counts_median_and_slowest_are_the_tables():
    values = browser_values(_runs())
    assert values["browser_act_n"] == 4
    assert values["browser_act_passed"] == 3
    assert values["browser_act_restarted"] == 2  # seeds 1 and 2
    assert values["browser_act_median"] == pytest.approx(75.0)  # (50 + 100) / 2
    assert values["browser_act_slowest"] == pytest.approx(170.0)
    assert values["browser_act_hardest"] == 2  # seeds 0 and 3; seed 2 did not pass
    assert values["browser_act_interval"].startswith("a rate of ")


def test_the_expected_time_sentence_reads_the_median_and_slowest():
    text = trainer_expectation(_runs())
    expected = (
        "4 seeds each finished training, its check passed or not, after a median of "
        "75 s (at most"
    )
    assert "every restart counted" in text
    assert expected in text
