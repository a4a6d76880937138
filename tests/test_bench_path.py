"""``make bench`` end to end at a tiny size: the measuring functions are stand-ins that
write one entry each, the chapters are one small notebook that reads its own time from
the benchmark file as every chapter does, and the path between them (which file is
written when, what is kept) is the real one. A path that leaves the book without a
number it reads, or that fails once it has measured, goes red here."""

import json

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import load_script

CHAPTER = """from recur.views.bench_view import chapter_time
print(chapter_time("01_tiny"))"""


def _tiny_book(tmp_path, bench_lines: list[dict]):
    book = tmp_path / "book"
    (book / "data").mkdir(parents=True)
    (book / "data" / "bench.jsonl").write_text(
        "\n".join(json.dumps(row) for row in [{"machine": "old"}, *bench_lines]) + "\n"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CHAPTER)])
    nbformat.write(notebook, book / "01_tiny.ipynb")
    return book


def _run_chapter(book) -> str:
    notebook = nbformat.read(book / "01_tiny.ipynb", as_version=4)
    NotebookClient(notebook, resources={"metadata": {"path": str(book)}}).execute()
    return notebook.cells[0].outputs[0]["text"]


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """benchmarks/run.py on a tiny book whose file has no time for its chapter yet
    (a fresh chapter), every measuring function a stand-in."""
    run = load_script("run")
    book = _tiny_book(tmp_path, [{"name": "carry_old", "value": 1.0, "unit": "s"}])
    monkeypatch.setattr(run, "BOOK", book)
    for name in run.CPU_BENCHES:
        stand_in = lambda name=name: run.emit(f"{name}_tiny", 1.0, "s")  # noqa: E731
        monkeypatch.setattr(run, f"bench_{name}", stand_in)
    monkeypatch.setattr("sys.argv", ["run.py"])
    return run, book


def test_make_bench_measures_everything_and_the_chapter_builds_after(bench):
    run, book = bench
    assert "not yet measured" in _run_chapter(book)  # builds before any bench too
    run.main()
    text = (book / "data/bench.jsonl").read_text()
    rows = [json.loads(line) for line in text.splitlines()]
    names = [row["name"] for row in rows[1:]]
    assert names == [f"{name}_tiny" for name in run.CPU_BENCHES] + [
        "chapter_seconds_01_tiny"
    ]  # the old entries are replaced, the chapter's time is the last
    assert rows[0]["machine"] != "old"
    assert _run_chapter(book).startswith("about ")


def test_a_bench_that_fails_leaves_the_old_file(bench, monkeypatch):
    """Nothing is written until every measuring function has run."""
    run, book = bench
    before = (book / "data/bench.jsonl").read_text()

    def broken():
        raise RuntimeError("a broken benchmark")

    monkeypatch.setattr(run, f"bench_{run.CPU_BENCHES[-1]}", broken)
    with pytest.raises(RuntimeError, match="broken"):
        run.main()
    assert (book / "data/bench.jsonl").read_text() == before


def test_a_full_run_writes_its_time_into_the_benchmarks_readme(tmp_path):
    """``last_run.record`` keeps the run and rewrites the README's table; a command
    it does not know, or a README without the block, is refused."""
    last_run = load_script("last_run")
    readme = tmp_path / "README.md"
    block = "<!-- last runs: x -->\nold\n<!-- end last runs -->\n"
    readme.write_text(f"intro\n{block}end\n")
    runs = tmp_path / "runs.json"
    last_run.record("make bench", 1500.4, runs, readme)  # 25 minutes
    text = readme.read_text()
    assert "old" not in text and text.startswith("intro\n") and text.endswith("end\n")
    assert "| `make bench` | 25 min (" in text
    assert "| `make gpu-check` | no full run recorded yet | |" in text
    assert json.loads(runs.read_text())["make bench"]["seconds"] == 1500
    with pytest.raises(ValueError, match="unknown command"):
        last_run.record("make everything", 1.0, runs, readme)
    (tmp_path / "bare.md").write_text("no block\n")
    with pytest.raises(ValueError, match="no <!-- last runs"):
        last_run.record("make bench", 1.0, runs, tmp_path / "bare.md")


def test_the_tiny_bench_run_records_no_time(bench):
    """A run on another book (a test's) is not a full run of make bench."""
    run, _ = bench
    before = (run.Path(run.__file__).parent / "README.md").read_text()
    run.main()
    assert (run.Path(run.__file__).parent / "README.md").read_text() == before
