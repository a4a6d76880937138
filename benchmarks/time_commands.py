"""Time the README's two commands on a fresh clone and write the result into the README.

Clones the repository's HEAD into a temporary folder, runs ``make book`` there (which
creates the virtual environment and executes every chapter), then ``make test`` and
then the quick loop that needs no book (:data:`QUICK`, the fastest of three runs), and
replaces the README's block between ``<!-- times`` and ``<!-- end times -->`` with a
table of the three wall times, the test summary, the date and the machine.

Run: ``python3 benchmarks/time_commands.py [--keep]`` (as long as the two commands take:
the table it writes says how long).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from last_run import machine

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- times[^\n]*-->\n).*?(<!-- end times -->)", re.S)
SUMMARY = re.compile(r"^=+ (.*(?:passed|failed).*) =+$", re.M)
EXECUTED = re.compile(r"^executed \d+ notebooks in (\d+) s \(wall\)$", re.M)
PAGE = re.compile(r"^\S*/book/(\S+)\.ipynb: (\d+) s$", re.M)
QUICK = [".venv/bin/pytest", "-q", "tests/test_carry.py"]  # the README's "Start here"


def execution(output: str) -> str:
    """From ``make book``'s output (``book/_ext/execute.py``): the wall time of
    executing every chapter and the slowest page, in words."""
    wall = EXECUTED.findall(output)
    slowest = max(((int(s), name) for name, s in PAGE.findall(output)), default=None)
    if not wall or slowest is None:
        return "no execution times in its output"
    seconds, name = slowest
    return f"chapters executed in {wall[-1]} s, the slowest page {name} {seconds} s"


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    """Wall seconds and the combined output of ``command`` run in ``cwd``."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          env=os.environ | {"CI": "true"})  # fmt: skip
    seconds = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{output[-3000:]}")
    return seconds, output


def block(book: float, executed: str, test: float, summary: str, quick: float) -> str:
    today = datetime.date.today().isoformat()
    return (
        "| on a fresh clone | wall time |\n|---|---|\n"
        "| `make book` (install, execute every chapter, build the HTML and the PDF):"
        f" {executed} | {book:,.0f} s |\n"
        f"| `make test` after it (lint, unit, nbval, browser): {summary} |"
        f" {test:,.0f} s |\n"
        f"| `{' '.join(QUICK)}` (the quick loop, no book needed) | {quick:.0f} s |\n"
        f"\nMeasured {today} on {machine()} by `benchmarks/time_commands.py`.\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="omr-clone-"))
    subprocess.run(["git", "clone", "-q", str(ROOT), str(folder / "repo")], check=True)
    repo = folder / "repo"
    book, output = timed(["make", "book"], repo)
    executed = execution(output)
    print(f"make book: {book:.0f} s ({executed})", flush=True)
    test, output = timed(["make", "test"], repo)
    found = SUMMARY.findall(output)
    summary = found[-1] if found else "no pytest summary"
    print(f"make test: {test:.0f} s ({summary})", flush=True)
    quick = min(timed(QUICK, repo)[0] for _ in range(3))
    print(f"{' '.join(QUICK)}: {quick:.1f} s", flush=True)
    readme = ROOT / "README.md"
    table = block(book, executed, test, summary, quick)
    text = BLOCK.sub(lambda m: m.group(1) + table + m.group(2), readme.read_text())
    readme.write_text(text)
    if not args.keep:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
