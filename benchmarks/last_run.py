"""How long each make target's script took on its last full run, written by the script
itself: ``record(name, seconds)`` keeps the entry in ``benchmarks/last_runs.json`` and
rewrites the table in ``benchmarks/README.md`` between ``<!-- last runs`` and
``<!-- end last runs -->``. A script that has not run since it learned to record says so
in the table instead of a number."""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "last_runs.json"
README = HERE / "README.md"
BLOCK = re.compile(r"(<!-- last runs[^\n]*-->\n).*?(<!-- end last runs -->)", re.S)
COMMANDS = (
    "make bench",
    "make studies: act_studies.py",
    "make studies: ch7_studies.py",
    "make studies: live_studies.py",
    "make studies: live_studies.py --first-100",
    "make studies: browser_train.py",
    "make studies: browser_act_train.py",
    "make gpu-check",
)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    if Path("/proc/cpuinfo").exists():
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} cores"


def table(runs: dict) -> str:
    rows = ["| command | last full run | on |", "|---|---|---|"]
    for command in COMMANDS:
        run = runs.get(command)
        if run is None:
            rows.append(f"| `{command}` | no full run recorded yet | |")
        else:
            minutes = run["seconds"] / 60
            when = f"{minutes:,.0f} min ({run['date']})"
            rows.append(f"| `{command}` | {when} | {run['machine']} |")
    return "\n".join(rows) + "\n"


def write_readme(runs: dict, readme: Path = README) -> None:
    text = readme.read_text()
    if not BLOCK.search(text):
        raise ValueError(f"{readme} has no <!-- last runs --> block")
    readme.write_text(BLOCK.sub(lambda m: m.group(1) + table(runs) + m.group(2), text))


def record(
    command: str, seconds: float, runs_path: Path = RUNS, readme: Path = README
) -> None:
    """Keep ``command``'s last full run and rewrite the README's table."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}: one of {COMMANDS}")
    runs = json.loads(runs_path.read_text()) if runs_path.exists() else {}
    runs[command] = {
        "seconds": round(seconds),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
    }
    runs_path.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")
    write_readme(runs, readme)


@contextmanager
def recorded(command: str, full: bool = True):
    """Time the block; record it only if it finished and was a full run."""
    start = time.perf_counter()
    yield
    if full:
        record(command, time.perf_counter() - start)
