"""Issue 16, item 4: how often the book's other live trainings do what their chapters
say: Chapter 2's cell, Chapter 3's injected cell, Chapter 4's local UT, Chapter 7's DEQ
cell and PonderNet, each trained as its chapter trains it with seeds 0 to 19 on the
CPU and tested on fresh sums (``recur.live``, whose docstring gives each bar).
Writes ``book/data/live_seeds.csv`` and prints one JSON line per run. About 15 minutes
on 2 cores with ``--jobs 2``.
Run: ``.venv/bin/python benchmarks/live_studies.py [--jobs N]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from recur.live import live_seed_runs

DATA = Path(__file__).resolve().parents[1] / "book" / "data"

if __name__ == "__main__":
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else 1
    table = live_seed_runs(jobs=jobs)
    for row in table.to_dict("records"):
        print(json.dumps(row), flush=True)
    table.to_csv(DATA / "live_seeds.csv", index=False)
    print("wrote book/data/live_seeds.csv", flush=True)
