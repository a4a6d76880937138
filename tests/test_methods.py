"""The methods appendix's study table: every study it lists has its committed table,
its seeds in the registry, and training time summed by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from recur.core import seeds
from recur.studies import methods

DATA = Path(__file__).resolve().parents[1] / "book" / "data"


def test_training_seconds_counts_each_run_once():
    table = pd.DataFrame({
        "recipe": ["A", "A", "A", "B"], "seed": [0, 0, 1, 0],
        "bits": [8, 64, 8, 8], "train seconds": [10.0, 10.0, 5.0, 2.5],
    })  # fmt: skip
    assert methods.training_seconds(table) == 17.5  # 10 + 5 + 2.5, not 27.5
    assert methods.training_seconds(table.drop(columns="train seconds")) is None


@pytest.mark.parametrize("study", methods.STUDIES, ids=lambda s: s.name)
def test_every_study_has_its_table_and_registered_seeds(study):
    assert (DATA / study.table).exists()
    assert seeds.by_name(study.seeds)  # raises if the registry has no such entry


def test_the_study_table_by_hand():
    table = methods.study_table(DATA)
    assert list(table.index) == [s.name for s in methods.STUDIES]
    seeds_study = pd.read_csv(DATA / "act_seeds.csv")
    runs = seeds_study.groupby(["recipe", "seed"])["runs"].first()
    assert table.loc["seeds", "models"] == runs.sum()  # each restart is a model
    assert table.loc["live", "models"] == 5 * 20  # five trainings, twenty seeds
    assert table.loc["waiting", "training minutes"] == ""  # it records no time
    assert set(methods.commands()) == set(table.index)
