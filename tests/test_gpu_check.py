"""``make gpu-check`` and the device benchmark, tested on the CPU: a chapter is run in
a kernel with the stand-in glue, errors are reported, and the verdict fails exactly when
a chapter raises, a test fails or a glued verdict (``*_ok``) changes."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from conftest import load_script

ROOT = Path(__file__).resolve().parents[1]


CHECK = load_script("gpu_check")


def _chapter(name, glued, error=None) -> dict:
    return {"chapter": name, "seconds": 1.0, "error": error, "glued": glued}


def test_the_verdict_fails_on_a_changed_verdict_an_error_or_a_failed_test():
    reference = {"ch": {"x_ok": "True", "x_exact": "1.0"}}
    same = [_chapter("ch", {"x_ok": "True", "x_exact": "0.5"})]  # a number may move
    assert CHECK.verdict(same, reference)[1] == {"check": "passed", "problems": []}
    flipped = [_chapter("ch", {"x_ok": "False"})]
    assert CHECK.verdict(flipped, reference)[1]["problems"] == [
        "ch: x_ok was True on the CPU, False here"
    ]
    broken = [_chapter("ch", {}, error="NameError: x")]
    assert CHECK.verdict(broken, reference)[1]["problems"] == ["ch: NameError: x"]
    tests = [{"tests": "1 failed", "returncode": 1, "failed": ["FAILED t.py::a"]}]
    assert CHECK.verdict(tests, reference)[1]["problems"] == ["tests: FAILED t.py::a"]


@pytest.mark.real_devices  # a kernel of its own: the pretend accelerator is not there
def test_a_chapter_runs_in_a_kernel_with_the_stand_in_glue(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{CHECK.STAND_IN}:{ROOT / 'src'}")
    good, bad = tmp_path / "good.ipynb", tmp_path / "bad.ipynb"
    code = "from myst_nb import glue\nglue('answer_ok', 6 * 7 == 42, display=False)"
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), good
    )
    cells = [nbformat.v4.new_code_cell("1 / 0")]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), bad)
    row = CHECK.run_chapter(good, timeout=60)
    assert row["error"] is None and row["glued"] == {"answer_ok": "True"}
    assert "ZeroDivisionError" in CHECK.run_chapter(bad, timeout=60)["error"]


def test_the_device_benchmark_runs_on_every_device_found(tmp_path):
    bench = load_script("run")
    table = bench.bench_devices(batch_sizes=(8,), n_steps=1, out=tmp_path / "d.csv")
    assert set(table["model"]) == {"shared", "act_ut"}
    assert set(table["device"]) == set(bench.devices())
    assert (table["seconds per 100 steps"] > 0).all()
    assert (tmp_path / "d.csv").exists()


def test_rerunning_some_entries_keeps_every_other_functions_entries(tmp_path):
    """``run.py --only NAME``: the entries NAME wrote before go (renamed ones too) and
    its new ones come in; entries of other functions stay even when their names start
    with ``NAME_`` (the old prefix rule dropped them), and so do entries without
    ``by`` (written before entries were marked) unless NAME writes their name now."""
    bench = load_script("run")
    bench.bench_fake = lambda: bench.emit("fake_new", 2.0, "s")
    path = tmp_path / "bench.jsonl"
    old = [
        {"machine": "x"},
        {"name": "fake_renamed", "value": 1.0, "unit": "s", "by": "fake"},
        {"name": "fake_by_other", "value": 3.0, "unit": "s", "by": "other"},
        {"name": "fake_new", "value": 1.0, "unit": "s"},  # unmarked, same name
        {"name": "unmarked", "value": 4.0, "unit": "s"},
    ]
    path.write_text("\n".join(json.dumps(row) for row in old) + "\n")
    bench.update(["fake"], path)
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert [(r["name"], r["value"], r.get("by")) for r in rows] == [
        ("fake_by_other", 3.0, "other"),
        ("unmarked", 4.0, None),
        ("fake_new", 2.0, "fake"),
    ]


def test_a_bench_run_keeps_the_chapter_times_the_chapters_read(tmp_path):
    """``make bench`` writes its file before it times the chapters, which read their
    old ``chapter_seconds_*`` from it: those must survive the first write (a run once
    left the book unbuildable), and the new ones replace them at the end."""
    bench = load_script("run")
    path = tmp_path / "bench.jsonl"
    old = [
        {"machine": "x"},
        {"name": "chapter_seconds_01_a", "value": 9.0},
        {"name": "carry_old", "value": 1.0},
    ]
    path.write_text("\n".join(json.dumps(row) for row in old) + "\n")
    bench.RESULTS.clear()
    bench.emit("carry_new", 2.0, "s")
    bench.write_results(path, keep=("chapter_seconds_",))
    names = [json.loads(line)["name"] for line in path.read_text().splitlines()[1:]]
    assert names == ["chapter_seconds_01_a", "carry_new"]  # carry_old is gone
    bench.emit("chapter_seconds_01_a", 3.0, "s")
    bench.write_results(path, keep=("chapter_seconds_",))
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert [(r["name"], r["value"]) for r in rows] == [
        ("carry_new", 2.0),
        ("chapter_seconds_01_a", 3.0),
    ]
    bench.RESULTS.clear()
