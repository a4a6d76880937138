"""Chapter 2's derived words about the chain experiment and the live-seed counts,
checked on hand-made runs and tables whose answers are worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recur.chapters.ch2_shared_update import (
    ChainExperiment,
    chain_seed_words,
    rounds_behind_rule,
)
from recur.studies.live import (
    CHAPTER2_CELL,
    CHAPTER3_INJECTED,
    CHAPTER7_DEQ,
    added_every_sum,
    live_seed_values,
)

A, B = CHAPTER2_CELL.name, CHAPTER7_DEQ.name  # two trainings' rows

LENGTHS = [0, 1, 4, 8]  # the rule needs 1, 1, 4 and 8 rounds


def run_with(first_right: list[int]) -> ChainExperiment:
    ones = np.ones(len(LENGTHS))
    first = np.array(first_right)
    return ChainExperiment(8, LENGTHS, np.zeros((4, 9)), first, ones, ones)


def test_rounds_behind_the_rule_by_hand():
    # a chain of 0 still needs one round: 2 - 1, 1 - 1, 7 - 4, 9 - 8
    assert rounds_behind_rule(run_with([2, 1, 7, 9])).tolist() == [1, 0, 3, 1]


def test_a_cell_that_waits_is_described_with_its_lag():
    words = chain_seed_words(run_with([2, 1, 7, 9]), "Seed 0")
    assert words == (
        "Seed 0 waits for the carry, as the rule does, at most 3 rounds behind it."
    )
    same = chain_seed_words(run_with([1, 1, 4, 8]), "Seed 0")
    assert same.endswith("right in the same round as the rule on every chain length.")
    one = chain_seed_words(run_with([2, 2, 5, 9]), "Seed 2")  # 1 behind on each
    assert one == "Seed 2 waits for the carry, as the rule does, 1 round behind it."
    late = chain_seed_words(run_with([2, 4, 6, 9]), "Seed 2")  # 1, 3, 2, 1 behind
    assert late.endswith("does, 1 to 3 rounds behind it.")


def test_a_cell_ahead_of_the_rule_names_its_chains_and_the_longest():
    # ahead on 4 (3 < 4) and 8 (5 < 8), behind on 0 and 1 (3 > 1)
    words = chain_seed_words(run_with([3, 3, 3, 5]), "Seed 1")
    assert words.startswith("Seed 1 is ahead of the rule on chains of 4 and 8: ")
    assert "every sum whose longest chain is 8 is right after 5 rounds," in words
    assert words.endswith(" It is behind the rule on chains of 0 and 1.")


def test_the_longest_chain_named_is_one_the_cell_is_ahead_on():
    # ahead only on 4; on 8 it is late, so 8 must not be named as early
    words = chain_seed_words(run_with([1, 1, 2, 9]), "Seed 1")
    assert "whose longest chain is 4 is right after 2 rounds," in words
    assert words.endswith(" It is behind the rule on chains of 8.")


def test_a_chain_never_right_is_said_so_and_the_lag_refuses_it():
    run = run_with([1, 1, -1, 9])
    assert chain_seed_words(run, "Seed 0") == (
        "Seed 0 never had every sum right for chains of 4."
    )
    with pytest.raises(ValueError, match="never had every sum right"):
        rounds_behind_rule(run)


def test_added_every_sum_counts_value_one_whether_or_not_training_reached():
    table = pd.DataFrame(
        {
            "model": [A, A, A, A, B],
            "reached 100%": [True, False, True, True, True],
            "value": [1.0, 1.0, 0.98, 1.0, 1.0],
            "success": [True, False, False, True, True],
        }
    )
    assert added_every_sum(table, CHAPTER2_CELL) == 3  # success would say 2
    with pytest.raises(ValueError, match='no runs of "Chapter 3\'s injected cell"'):
        added_every_sum(table, CHAPTER3_INJECTED)


def test_live_seed_values_keeps_the_three_counts_apart():
    # seed 1 added every sum without reaching 100%; seed 2 reached and fell short
    table = pd.DataFrame(
        {
            "model": [A] * 4,
            "seed": [0, 1, 2, 3],
            "reached 100%": [True, False, True, True],
            "train seconds": [1.0, 2.0, 3.0, 4.0],
            "exact at 8 bits": [1.0, 1.0, 1.0, 1.0],
            "value": [1.0, 1.0, 0.5, 1.0],
            "success": [True, False, False, True],
        }
    )
    values = live_seed_values(table, CHAPTER2_CELL)
    assert (values["reached"], values["added"], values["met"]) == (3, 3, 2)
    assert values["verdict"].startswith("falls short of")  # 2 of 4 is below 19 of 20
