"""Execute the book's notebooks into Jupyter Book's execution cache, two at a time.

``jupyter-book build`` executes the notebooks one after another, each in a kernel whose
torch trains on one thread, so on two cores half the machine waits. This script runs
them in ``--jobs`` kernels at once, longest first (by ``book/data/bench.jsonl``'s
``chapter_seconds_*``), each in its own folder as Jupyter Book would; a chapter whose
metadata says it trains in that many processes itself runs alone. It stores each
executed notebook in ``_build/.jupyter_cache`` under the hash of its code, the record
Jupyter Book's cache mode looks for. The build then reads every chapter from the cache.
A notebook whose record is already there is not run again; a notebook that fails is
not stored, and the script prints its traceback and exits 1.

Run by ``make book``: ``.venv/bin/python book/_ext/execute.py [--jobs N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import nbformat
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "_build" / ".jupyter_cache"  # Jupyter Book's default cache path


def book_notebooks(root: Path = ROOT) -> list[Path]:
    """The notebooks ``_toc.yml`` lists (its Markdown pages need no kernel)."""
    toc = (root / "_toc.yml").read_text()
    stems = [root / toc.split("root:")[1].split()[0]]
    stems += [root / line.split("file:")[1].strip() for line in toc.splitlines()
              if "file:" in line]  # fmt: skip
    return [s.with_suffix(".ipynb") for s in stems if s.with_suffix(".ipynb").exists()]


def longest_first(paths: list[Path], bench: Path) -> list[Path]:
    """``paths`` with the slowest chapters (as ``make bench`` timed them) first, so that
    the last notebook to start is a short one; unmeasured ones go last."""
    seconds = {}
    if bench.exists():
        for line in bench.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if str(row.get("name", "")).startswith("chapter_seconds_"):
                seconds[row["name"].removeprefix("chapter_seconds_")] = row["value"]
    return sorted(paths, key=lambda p: -float(seconds.get(p.stem, 0.0)))


def _execute(path: str, timeout: int) -> tuple[str, dict, float, str | None]:
    """Run one notebook in its folder: (path, executed notebook, seconds, traceback)."""
    notebook = nbformat.read(path, as_version=4)
    result = single_nb_execution(
        notebook, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False
    )
    return path, notebook, result.time, result.exc_string if result.err else None


def processes(path: Path) -> int:
    """How many processes the notebook trains in at once: its metadata's
    ``recur.processes``, 1 where it says nothing."""
    metadata = nbformat.read(path, as_version=4).metadata
    return int(metadata.get("recur", {}).get("processes", 1))


def batches(paths: list[Path], jobs: int) -> list[tuple[list[Path], int]]:
    """(notebooks, kernels at once) to run one after another: each notebook that keeps
    ``jobs`` cores busy by itself runs alone, so that it is not slowed by sharing them;
    then the rest, ``jobs`` at a time, in the order given."""
    alone = [p for p in paths if jobs > 1 and processes(p) >= jobs]
    rest = [p for p in paths if p not in alone]
    return [([p], 1) for p in alone] + ([(rest, jobs)] if rest else [])


def _run_batch(paths: list[Path], workers: int, cache, timeout: int) -> list[Path]:
    """Execute ``paths``, ``workers`` at a time, storing each that succeeds in
    ``cache``; returns those that failed (each traceback printed)."""
    failed = []
    context = get_context("spawn")  # workers start their kernels from a clean process
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(_execute, str(p), timeout) for p in paths]
        for future in as_completed(futures):
            path, notebook, seconds, traceback = future.result()
            if traceback:
                failed.append(Path(path))
                print(f"{path} failed after {seconds:.0f} s:\n{traceback}", flush=True)
                continue
            bundle = CacheBundleIn(nbformat.from_dict(notebook), path,
                                   data={"execution_seconds": seconds})  # fmt: skip
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
            print(f"{path}: {seconds:.0f} s", flush=True)
    return failed


def execute_into_cache(
    paths: list[Path], cache_path: Path, jobs: int, timeout: int, root: Path = ROOT
) -> list[Path]:
    """Execute those of ``paths`` that the cache at ``cache_path`` has no record for,
    ``jobs`` at a time, longest first (a notebook that trains in ``jobs`` processes
    alone), storing each that succeeds; returns those that failed."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    cache = get_cache(str(cache_path))
    todo = []
    for path in paths:
        try:
            cache.match_cache_notebook(nbformat.read(path, as_version=4))
        except KeyError:
            todo.append(path)
    todo = longest_first(todo, root / "book" / "data" / "bench.jsonl")
    print(f"executing {len(todo)} notebooks, {jobs} at a time", flush=True)
    failed, start = [], time.perf_counter()
    for batch, workers in batches(todo, jobs):
        failed += _run_batch(batch, workers, cache, timeout)
    if todo:
        wall = time.perf_counter() - start
        print(f"executed {len(todo)} notebooks in {wall:.0f} s (wall)", flush=True)
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="kernels at once")
    args = parser.parse_args()
    timeout = yaml.safe_load((ROOT / "_config.yml").read_text())["execute"]["timeout"]
    try:
        failed = execute_into_cache(book_notebooks(), CACHE, args.jobs, timeout)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    if failed:
        print(f"failed: {', '.join(map(str, failed))}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
