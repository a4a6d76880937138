"""recur.show's helpers for the prose and the Performance page."""

from __future__ import annotations

import json

import pytest

from recur.show import read_bench, small_number


def test_read_bench_returns_the_machine_and_the_rows(tmp_path):
    path = tmp_path / "bench.jsonl"
    rows = [
        {"name": "a", "value": 1.5, "unit": "s"},
        {"name": "b", "value": 2.0, "unit": ""},
    ]
    path.write_text("\n".join(json.dumps(x) for x in [{"gpu": None}, *rows]) + "\n")
    machine, table = read_bench(path)
    assert machine == {"gpu": None}
    assert table.to_dict("records") == rows
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(ValueError, match="make bench"):
        read_bench(tmp_path / "empty.jsonl")


def test_small_numbers_for_the_prose():
    assert small_number(0.2865) == "2.9e-01"
    assert small_number(0.0) == "less than 1e-07"
    assert small_number(5e-8) == "less than 1e-07"
    assert small_number(1e-7) == "1.0e-07"
