"""The methods appendix's study table: every study it lists has its committed table,
its seeds in the registry, and training time summed by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from recur.core import seeds
from recur.pages.methods import shared_choosing_words
from recur.studies import methods

DATA = Path(__file__).resolve().parents[1] / "book" / "data"


def test_training_seconds_counts_each_run_once():
    table = pd.DataFrame({
        "recipe": ["A", "A", "A", "B"], "seed": [0, 0, 1, 0],
        "bits": [8, 64, 8, 8], "train seconds": [10.0, 10.0, 5.0, 2.5],
    })  # fmt: skip
    assert methods.training_seconds(table) == 17.5  # 10 + 5 + 2.5, not 27.5
    assert methods.training_seconds(table.drop(columns="train seconds")) is None


@pytest.mark.parametrize("study", methods.STUDY_TABLES, ids=lambda s: s.name)
def test_every_study_has_its_table_and_registered_seeds(study):
    assert (DATA / study.table).exists()
    assert seeds.by_name(study.seeds)  # raises if the registry has no such entry


def test_the_study_table_by_hand():
    table = methods.study_table(DATA)
    assert list(table.index) == [s.name for s in methods.STUDY_TABLES]
    seeds_study = pd.read_csv(DATA / "act_seeds.csv")
    runs = seeds_study.groupby(["recipe", "seed"])["runs"].first()
    assert table.loc["seeds", "models"] == runs.sum()  # each restart is a model
    assert table.loc["live", "models"] == 5 * 20  # five trainings, twenty seeds
    pairs = pd.read_csv(DATA / "act_pairs.csv")  # with and without, each seed
    assert table.loc["pairs", "models"] == 2 * 20 + (pairs.groupby(
        ["pairs as sets", "seed"])["runs"].first() - 1).sum()  # fmt: skip
    # three trainings differ without the check and restart; the others' rows are copies
    assert table.loc["first_100", "models"] == 3 * 20
    assert table.loc["waiting", "training minutes"] == ""  # it records no time
    assert set(methods.commands()) == set(table.index)
    browser = pd.read_csv(DATA / "browser_cell_seeds.csv")
    assert table.loc["browser", "models"] == browser["attempts"].sum()


def test_every_command_of_make_studies_is_listed():
    """The Makefile's ``studies`` target is what reruns the studies: each of its
    commands is a study's command here (Chapter 6's script once, with no name),
    however many jobs it runs at once."""
    makefile = (DATA.parents[1] / "Makefile").read_text()
    target = makefile.split("\nstudies:")[1].split("\n\n")[0]

    def plain(command: str) -> str:
        return (
            command.strip()
            .replace("$(PY)", ".venv/bin/python")
            .replace(" --jobs 2", "")
            .replace(" --jobs $(JOBS)", "")
        )

    lines = [plain(line) for line in target.splitlines()[1:]]
    listed = {plain(command) for command in methods.commands().values()}
    for line in lines:
        assert line == plain(methods.ACT) or line in listed, line
    assert "benchmarks/browser_train.py" in " ".join(lines)


def test_chapter_6s_studies_are_those_its_script_runs():
    from conftest import load_script

    script = load_script("act_studies")  # runs the records of recur.studies
    act = {
        s.name for s in methods.STUDY_TABLES if s.command.startswith(methods.ACT_SCRIPT)
    }
    assert act == set(script.ACT_STUDIES)
    assert all(f"`{name}`" in methods.command_lines() for name in act)


def test_only_the_studies_that_take_jobs_are_listed_with_jobs():
    """act_studies.py passes --jobs only to a study whose settings have "jobs"; the
    others train one run at a time, so their command must not promise two."""
    from conftest import load_script

    script = load_script("act_studies")
    takes_jobs = {
        name for name, study in script.ACT_STUDIES.items() if "jobs" in study.settings
    }
    listed = {
        s.name for s in methods.STUDY_TABLES if s.command.startswith(methods.ACT + " ")
    }
    assert listed == takes_jobs
    assert "`tau`" in methods.command_lines().split("\n")[1]  # the list without --jobs


def test_the_browser_study_counts_each_attempt_as_a_model():
    table = pd.DataFrame({
        "seed": [0, 1, 2], "passed": [True, True, False],
        "attempts": [1, 2, 3], "seconds": [60.0, 90.0, 30.0],
    })  # fmt: skip
    assert methods._models(table) == 6
    assert methods.training_seconds(table) == 180.0


def _runs(success: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({"recipe": "BOOK_ACT", "seed": range(len(success)),
                         "bits": 8, "success": success})  # fmt: skip


def test_rounding_counts_and_words_by_hand(tmp_path):
    """Seeds 0-3 report: 3 and 3 met the bar, seeds 1 and 2 swapped (2 changed); the
    choosing pair: 2 and 2, none changed."""
    names = {study.name: study.table for study in methods.STUDY_TABLES}
    tables = {
        "seeds": [True, True, False, True], "seeds_every": [True, False, True, True],
        "third_run_rows": [True, False, True], "third_run_every": [True, False, True],
    }  # fmt: skip
    for name, success in tables.items():
        _runs(success).to_csv(tmp_path / names[name], index=False)
    report, choose = methods.rounding_counts(tmp_path)
    counted = (report["here"], report["there"], report["changed"], report["n"])
    assert counted == (3, 3, 2, 4)
    assert report["role"] == seeds.REPORT and choose["role"] == seeds.CHOOSE
    assert (choose["here"], choose["there"], choose["changed"]) == (2, 2, 0)
    assert methods.rounding_sentence(report) == (
        "Of the 4 seeds that report (the registry's “twenty seeds”), 3 met the bar in "
        "one rounding and 3 in the other, and 2 of them met it in one and not the "
        "other."
    )
    assert "and no seed met it" in methods.rounding_sentence(choose)
    assert "seeds that chose (the registry's “third run”)" in methods.rounding_sentence(
        choose
    )


def test_seeds_shared_by_choosing_uses_and_by_both_roles_by_hand():
    registry = (
        seeds.Seeds("a", 0, 4, None, seeds.CHOOSE, ""),
        seeds.Seeds("b", 3, 9, None, seeds.CHOOSE, ""),
        seeds.Seeds("c", 20, 29, None, seeds.CHOOSE, ""),
        seeds.Seeds("r", 2, 6, 1, seeds.REPORT, ""),
    )
    assert methods.shared_choosing_seeds(registry) == [("a", "b", 3, 4)]
    assert shared_choosing_words(registry) == "a and b (seeds 3 to 4)"
    assert methods.choose_report_overlap(registry) == [2, 3, 4, 5, 6]


def test_the_appendix_words_about_chapter_3s_test():
    """The appendix says the injected cell's test runs four times n + 1 rounds."""
    from recur.studies.live import CHAPTER3_INJECTED

    fresh = CHAPTER3_INJECTED.fresh
    assert fresh.rounds == 4 * (fresh.n_bits + 1)


def test_the_rounding_expectation_spans_every_pair_by_hand():
    same = {"n": 20, "here": 20, "there": 20, "changed": 0}
    moved = {"n": 20, "here": 19, "there": 20, "changed": 1}
    assert (
        methods.rounding_expectation([same])
        == "In these runs 20 of 20 of Chapter 6's procedure passed under either "
        "rounding, a count that another rerun need not repeat."
    )
    assert methods.rounding_expectation([same, moved]) == (
        "In these runs 19 to 20 of 20 of Chapter 6's procedure passed under either "
        "rounding, a count that another rerun need not repeat, and "
        "the list of seeds that pass can change."
    )
    with pytest.raises(ValueError, match="different numbers"):
        methods.rounding_expectation([same, moved | {"n": 3}])
