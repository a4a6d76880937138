"""The methods appendix's machine records and its pinned reruns beside their last
unpinned runs (recur.pages.machines, recur.studies.methods.rows_in_common)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recur.pages import machines
from recur.studies.methods import rows_in_common, trained_rows

DAY = datetime.date(2000, 1, 1).isoformat()  # any date


def test_rows_in_common_counts_equal_rows_once_and_ignores_times():
    here = pd.DataFrame(
        {
            "seed": [0, 0, 1, 2],
            "exact": [1.0, 1.0, 0.5, np.nan],
            "seconds to 99%": [3.0, 4.0, 5.0, 6.0],
        }
    )
    there = pd.DataFrame(
        {
            "seed": [0, 1, 2, 3],
            "exact": [1.0, 0.25, np.nan, 1.0],
            "seconds to 99%": [9.0, 9.0, 9.0, 9.0],
        }
    )
    # by hand: (0, 1.0) once in there, so one of here's two; (2, NaN) equal; (1, .5) not
    assert rows_in_common(here, there) == {"here": 4, "there": 4, "equal": 2}


def test_rows_in_common_refuses_tables_of_other_columns():
    with pytest.raises(ValueError, match="same columns"):
        rows_in_common(pd.DataFrame({"a": [1]}), pd.DataFrame({"b": [1]}))


def test_the_one_run_study_is_compared_on_the_rows_it_trains():
    table = pd.DataFrame({"model": ["Chapter 2's cell", "someone else's"]})
    kept = trained_rows(table, "live_seeds_first_100")
    assert list(kept["model"]) == ["Chapter 2's cell"]
    assert len(trained_rows(table, "act_tau")) == 2


@pytest.mark.parametrize(
    ("cpu", "name"),
    [
        ("Intel(R) Xeon(R) Processor", "Intel Xeon"),
        ("AMD EPYC", "AMD EPYC"),
        ("Intel(R) Core(TM) i7-8700 CPU", "Intel Core i7-8700"),
    ],
)
def test_cpu_names_as_prose_writes_them(cpu, name):
    assert machines.cpu_name(cpu) == name


def test_the_rerun_words_say_what_moved():
    cpus = {
        "table": ["a.csv", "b.csv"],
        "pinned on": ["AMD EPYC"] * 2,
        "unpinned on": ["Intel Xeon"] * 2,
    }
    same = pd.DataFrame({"rows": [3, 4], "equal rows": [3, 4]} | cpus)
    moved = pd.DataFrame({"rows": [3, 4], "equal rows": [3, 1]} | cpus)
    assert machines.rerun_words(same).startswith("Every row came out the same")
    assert machines.rerun_words(moved).startswith("1 of the tables moved.")
    assert "not which of the two" in machines.rerun_words(moved)
    assert machines.rerun_words(moved.assign(**{"equal rows": 0})).startswith(
        "Every table moved."
    )
    kernels = moved.assign(**{"unpinned on": ["Intel Xeon", "AMD EPYC"]})
    assert machines.rerun_words(kernels).endswith(
        "b ran on the same kind of CPU both times, so the kernels alone moved those."
    )


def test_the_unpinned_runs_cpus_in_words():
    reruns = pd.DataFrame(
        {
            "table": ["a.csv", "b.csv", "c.csv"],
            "unpinned on": ["Intel Xeon", "Intel Xeon", "AMD EPYC"],
        }
    )
    assert machines.before_words(reruns) == "Intel Xeon (c on an AMD EPYC)"


def test_a_records_numerics_in_words():
    pinned = {
        "pinned": True,
        "aten_capability": "AVX2",
        "mkl_cbwr": "COMPATIBLE",
        "cpu": "AMD EPYC",
    }
    assert machines.numerics_words(pinned) == "pinned"
    copied = pinned | {"copied": "live_seeds.csv"}
    assert machines.numerics_words(copied) == "pinned, part copied"
    assert machines.numerics_words(pinned | {"earlier": None}) == "pinned"
    assert machines.numerics_words(pinned | {"earlier": pinned}) == "mixed runs"
    assert machines.numerics_words(pinned | {"pinned": False}) == "CPU's own"
    gpu = pinned | {"pinned": False, "cpu": "NVIDIA H200"}
    assert machines.numerics_words(gpu) == "CUDA"
    assert machines.numerics_words(pinned | {"trained_in": "Chromium"}) == "browser"


def test_the_machine_table_has_a_row_per_record(tmp_path):
    for name, cpu in (("a.csv", "AMD EPYC"), ("b.csv", "Intel(R) Xeon(R) Processor")):
        record = {
            "table": name,
            "cpu": cpu,
            "date": DAY,
            "pinned": False,
            "torch": "2.13.0+cpu",
            "cores": 2,
        }
        stem = name.split(".")[0]
        (tmp_path / f"{stem}.machine.json").write_text(json.dumps(record))
    table = machines.machine_table(tmp_path)
    assert list(table["table"]) == ["a.csv", "b.csv"]
    assert list(table["machine"]) == ["AMD EPYC", "Intel Xeon"]


def test_the_browser_words_follow_the_records():
    old = {"trained_in": "Chromium, before exact_math.js"}
    new = {"trained_in": "Chromium 156"}
    assert machines.browser_words([old, old, {}]).startswith("The page trainings in")
    assert machines.browser_words([old, new]).startswith(
        "Of the 2 tables of page trainings in book/data, 1 ran before"
    )
    assert machines.browser_words([new]).endswith("ran with these functions.")


def test_every_recovered_record_ran_without_the_pins():
    """The methods appendix says the records recovered from the project's history
    (those with ``evidence``) are all of runs without the pins."""
    data = Path(__file__).parents[1] / "book" / "data"
    records = [json.loads(p.read_text()) for p in data.rglob("*.machine.json")]
    recovered = [r for r in records if "evidence" in r]
    assert recovered, "no recovered record: the appendix's sentence needs rewording"
    assert [r["table"] for r in recovered if r["pinned"]] == []


def test_the_appendix_accounts_for_every_record():
    """The methods appendix counts the tables computed with the pins, the page
    trainings whose records the page wrote, and the records written after their runs;
    with ``bench.jsonl`` (mixed runs) these are every record of the machine table."""
    data = Path(__file__).parents[1] / "book" / "data"
    values = machines.machine_values(data)
    counted = sum(
        values[f"pins_{key}_tables"] for key in ("pinned", "browser_own", "recovered")
    )
    mixed = 1  # bench.jsonl
    assert counted + mixed == len(machines.machine_table(data))
