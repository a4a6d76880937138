"""``book/_ext/execute.py`` runs the chapters into Jupyter Book's execution cache before
the build; the build must find each record there (or it executes the chapter again, one
at a time), and a failing chapter must not be stored as if it had run."""

from __future__ import annotations

import json
import re
import sys

import nbformat
import pytest
from jupyter_cache import get_cache

from conftest import ROOT

# importable by name, as the worker processes (spawned) import it
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import execute  # noqa: E402


def test_every_notebook_of_the_book_is_executed():
    found = {p.name for p in execute.book_notebooks()}
    assert found == {p.name for p in (ROOT / "book").glob("*.ipynb")}
    assert execute.book_notebooks()[0].name == "intro.ipynb"  # the toc's root


def test_the_slowest_chapters_start_first(tmp_path):
    bench = tmp_path / "bench.jsonl"
    rows = [
        {"name": "chapter_seconds_b", "value": 5.0},
        {"name": "other", "value": 99},
        {"name": "chapter_seconds_c", "value": 30.0},
    ]
    bench.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    paths = [tmp_path / f"{s}.ipynb" for s in "abc"]
    assert [p.stem for p in execute.longest_first(paths, bench)] == ["c", "b", "a"]
    assert execute.longest_first(paths, tmp_path / "none.jsonl") == paths


def _notebook(path, code):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, path)
    return path


def test_the_build_finds_what_was_executed_and_no_failure(tmp_path):
    good = _notebook(tmp_path / "good.ipynb", "print(6 * 7)")
    bad = _notebook(tmp_path / "bad.ipynb", "raise ValueError('planted')")
    cache_path = tmp_path / "cache"
    failed = execute.execute_into_cache([good, bad], cache_path, 2, 60, root=tmp_path)
    assert failed == [bad]
    cache = get_cache(str(cache_path))
    # what myst-nb's cache mode does with the notebook it read from disk
    _, merged = cache.merge_match_into_notebook(nbformat.read(good, as_version=4))
    assert merged.cells[0].outputs[0]["text"] == "42\n"
    with pytest.raises(KeyError):
        cache.match_cache_notebook(nbformat.read(bad, as_version=4))
    assert execute.execute_into_cache([good], cache_path, 1, 60, root=tmp_path) == []


def test_zero_jobs_is_refused(tmp_path):
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        execute.execute_into_cache([], tmp_path, 0, 60)


def test_a_chapter_that_fills_the_machine_runs_alone(tmp_path):
    paths = [_notebook(tmp_path / f"{s}.ipynb", "1") for s in "abc"]
    wide = nbformat.read(paths[1], as_version=4)
    wide.metadata["recur"] = {"processes": 2}
    nbformat.write(wide, paths[1])
    b = paths[1]
    assert execute.batches(paths, 2) == [([b], 1), ([paths[0], paths[2]], 2)]
    assert execute.batches(paths, 1) == [(paths, 1)]  # one at a time anyway
    assert execute.batches([b], 2) == [([b], 1)]


def test_each_chapter_declares_the_processes_it_trains_in():
    for path in execute.book_notebooks():
        code = "".join(
            c.source
            for c in nbformat.read(path, as_version=4).cells
            if c.cell_type == "code"
        )
        jobs = [int(n) for n in re.findall(r"\bjobs=(\d+)", code)]
        jobs += [2] * len(re.findall(r"\bbeside\(", code))  # one more process
        assert execute.processes(path) == max(jobs, default=1), path.name
