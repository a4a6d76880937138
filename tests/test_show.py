"""recur.views.text's helpers for the prose and the Performance page."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from recur.views.bench_view import read_bench
from recur.views.text import small_number


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


def test_device_table_and_the_first_batch_where_the_gpu_wins():
    import pandas as pd

    from recur.views.bench_view import device_table, first_gpu_win

    rows = [("m", 64, "cpu", 1.0), ("m", 64, "cuda", 2.0), ("m", 256, "cpu", 4.0),
            ("m", 256, "cuda", 2.5), ("m", 1024, "cpu", 16.0),
            ("m", 1024, "cuda", 3.0), ("n", 64, "cpu", 2.0),
            ("n", 64, "cuda", 1.0)]  # fmt: skip
    columns = ["model", "batch", "device", "seconds per 100 steps"]
    wide = device_table(pd.DataFrame(rows, columns=columns))
    assert wide.loc[("m", 64), "GPU time / CPU time"] == 2.0
    assert first_gpu_win(wide, "m") == 1024  # 2.5 / 4 is not half; 3 / 16 is
    assert first_gpu_win(wide, "m", factor=1.5) == 256
    assert first_gpu_win(wide, "m", factor=10) is None
    assert first_gpu_win(wide, "n") == 64  # exactly half the CPU's time counts


def test_chapter_range_by_hand():
    from recur.views.bench_view import chapter_range

    bench = pd.DataFrame(
        {"name": ["chapter_seconds_01_a", "chapter_seconds_06_act_ut",
                  "chapter_seconds_ending", "shared_seconds", "chapter_seconds_intro"],
         "value": [11.0, 147.0, 26.0, 999.0, 5.0], "unit": ["s"] * 5}
    )  # fmt: skip
    assert chapter_range(bench) == {
        "fastest": 11.0, "slowest": 147.0, "slowest_name": "Chapter 6"
    }  # fmt: skip
    with pytest.raises(ValueError, match="make bench"):
        chapter_range(bench[bench["name"] == "shared_seconds"])


def test_the_library_imports_without_ipython():
    """``import recur`` and its computing modules need no IPython (showing does)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['IPython'] = None; sys.modules['ipywidgets'] = None\n"
        "import recur, recur.views.plots_carry, recur.views.plots_exact, "
        "recur.views.plots_halting, recur.views.plots_fixed, recur.training.loop, "
        "recur.chapters.ch6_act_ut, recur.studies.seed_study, recur.studies.live"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_reading_minutes_by_hand(tmp_path):
    import json

    from recur.views.text import reading_minutes

    def page(words: int):
        cells = [{"cell_type": "markdown", "source": ["w " * words]},
                 {"cell_type": "code", "source": ["x " * 5000]}]  # fmt: skip
        path = tmp_path / f"p{words}.ipynb"
        path.write_text(json.dumps({"cells": cells}))
        return path

    assert reading_minutes(page(10)) == 5  # at least 5
    assert reading_minutes(page(1000)) == 5  # 5 minutes at 200 words a minute
    assert reading_minutes(page(1001)) == 10  # rounded up; code does not count
    assert reading_minutes(page(3000)) == 15


def test_the_readme_times_block_is_replaced_in_place():
    from conftest import ROOT, load_script

    module = load_script("time_commands")
    readme = "a\n<!-- times: x -->\nold\n<!-- end times -->\nb"
    new = module.BLOCK.sub(lambda m: m.group(1) + "NEW\n" + m.group(2), readme)
    assert new == "a\n<!-- times: x -->\nNEW\n<!-- end times -->\nb"
    out = "== 3 passed, 1 skipped in 9.0s ==\n"
    assert module.SUMMARY.findall(out) == ["3 passed, 1 skipped in 9.0s"]
    table = module.block(11.6, "words", 20.0, "3 passed", 6.4)
    assert "| 12 s |" in table and "tests/test_carry.py` (the quick loop" in table
    assert table.count("| 6 s |") == 1
    book = ("executing 3 notebooks, 2 at a time\n/x/book/04_ut.ipynb: 36 s\n"
            "/x/book/06_act.ipynb: 41 s\n/x/book/intro.ipynb: 7 s\n"
            "executed 3 notebooks in 52 s (wall)\n")  # fmt: skip
    assert module.execution(book) == (
        "chapters executed in 52 s, the slowest page 06_act 41 s"
    )
    assert module.execution("a cached build") == "no execution times in its output"
    assert module.BLOCK.search((ROOT / "README.md").read_text())
