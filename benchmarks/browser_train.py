"""Chapter 2's cell trained in Chromium, as a reader of the static page trains it
(``book/_extra/_static/cell_train.js`` in a Web Worker), from the registry's "browser
cell new seeds" (2200-2219): whether each run passed its check, at which step, in how
many runs and seconds; then each trained cell, moved into the library as it is
(float64), on 200 random 1,024-bit sums (the registry's BROWSER_SUMS + seed, used for
nothing else) after n + 1 rounds. Writes ``book/data/browser_cell_seeds_new.csv``
(Chapter 2 reads its counts), or for the registry's "trained in the page" (seeds 0-19)
``browser_cell_seeds.csv`` (the Performance page shows it), else the latter's name.

``--holding`` trains the page's holding recipe (its ``HOLDING`` settings) from the
registry's "holding recipe in the page" seeds (0-19) and tests each cell, snapped as it
was trained, on every skeptic's 1,024-bit sum (``recur.training.holds``, with the
families ``skeptic_choose.csv`` kept): ``book/data/browser_cell_holding.csv``.

Run: ``.venv/bin/python benchmarks/browser_train.py [--jobs 2] [--seeds A-B]
[--holding]`` (Debian's Chromium; ``--jobs`` workers train at once, one per core).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[1]
from recur.core.chromium import (  # noqa: E402
    CELL_TRAINER_SCRIPTS,
    CHROMIUM_FLAGS,
    chromium_path,
)
from recur.core.hardest import skeptic_sums  # noqa: E402
from recur.core.machine import write_machine_record  # noqa: E402
from recur.core.seeds import BROWSER_SUMS, by_name  # noqa: E402
from recur.core.tasks import random_batch  # noqa: E402
from recur.models.cell import LocalCell  # noqa: E402
from recur.studies.live import PAGE_WIDE_SUMS  # noqa: E402
from recur.studies.skeptic_study import found_families  # noqa: E402
from recur.training.holds import cell_holds  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from last_run import recorded  # noqa: E402
from recur.studies import cluster  # noqa: E402

SCRIPT = ROOT / "book" / "_extra" / "_static" / "cell_train.js"
OUT = ROOT / "book" / "data" / "browser_cell_seeds.csv"
NEW_OUT = OUT.with_name("browser_cell_seeds_new.csv")
HOLDING_OUT = OUT.with_name("browser_cell_holding.csv")
HOLDING_SEEDS = by_name("holding recipe in the page").seeds
# The book's table: seeds the page's procedure was not chosen on (its third run was
# chosen on page seeds 100-119); the first study's seeds 0-19 were the registry's
# "trained in the page".
SEEDS = by_name("browser cell new seeds").seeds

# In the page: ``jobs`` workers made as the trainer makes them, each taking the next
# seed until none is left; every result comes back with its weights.
DRIVER = """async ([seeds, jobs, settings]) => {
  const queue = seeds.slice(), results = [];
  const one = () => new Promise((resolve) => {
    const seed = queue.shift();
    if (seed === undefined) return resolve();
    const worker = trainerWorker();
    const start = performance.now();
    worker.onmessage = (event) => {
      if (!event.data.done) return;
      worker.terminate();
      const d = event.data.done;
      const w = Object.fromEntries(
        Object.entries(d.w).map(([k, v]) => [k, Array.from(v)]));
      results.push({ seed, passed: d.passed, step: d.step, attempts: d.attempts,
        seconds: (performance.now() - start) / 1000, w });
      resolve(one());
    };
    worker.postMessage({ seed, settings });
  });
  await Promise.all(Array.from({ length: jobs }, one));
  return results;
}"""


def cell_from(weights: dict, snap: bool = False) -> LocalCell:
    """The page's trained weights in the library's cell, in float64 as in the page."""
    cell = LocalCell(snap=snap).double()
    state = {
        name: torch.tensor(weights[name], dtype=torch.float64).reshape(tensor.shape)
        for name, tensor in cell.state_dict().items()
    }
    cell.load_state_dict(state)
    return cell


@torch.no_grad()
def exact_at_1024(cell: LocalCell, seed: int, n_sums: int = PAGE_WIDE_SUMS) -> float:
    """The share of ``n_sums`` random 1,024-bit sums right after n + 1 rounds: the
    cell's rounds run directly, reading out only the last (every round's readout of
    200 such sums would be 1.7 GB)."""
    batch = random_batch(n_sums, 1024, seed=BROWSER_SUMS + seed)
    problem = cell.embed(batch.bits.double())  # (B, n + 1, d)
    state = torch.zeros_like(problem)
    for _ in range(batch.n_positions):  # n + 1 rounds
        state = cell.step(state, problem)
    logits = cell.readout(state).squeeze(-1)  # (B, n + 1)
    return float(((logits > 0).double() == batch.target).all(dim=1).double().mean())


def skeptic_at(cell: LocalCell, n_bits: int, data: Path) -> dict:
    """How many of the skeptic's ``n_bits``-bit sums (the named and the searched)
    ``cell`` passed, read after n + 1 rounds and held."""
    extra = found_families(pd.read_csv(data / "skeptic_choose.csv"))
    sums = skeptic_sums(n_bits, extra)
    passed = cell_holds(cell, sums.batch).passed
    return {"skeptic sums": len(sums.names), "skeptic passed": int(passed.sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="workers training at once")
    parser.add_argument(
        "--seeds",
        type=cluster.seed_range,
        default=f"{SEEDS[0]}-{SEEDS[-1]}",
        metavar="A-B",
        help=f"a range (default {SEEDS[0]}-{SEEDS[-1]}, the book's)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=OUT.parent,
        metavar="DIR",
        help="where the table goes (default: book/data)",
    )
    parser.add_argument(
        "--holding", action="store_true", help="the holding recipe (HOLDING_OUT)"
    )
    args = parser.parse_args()
    if args.holding and "--seeds" not in sys.argv:
        args.seeds = list(HOLDING_SEEDS)
    first, last = args.seeds[0], args.seeds[-1]
    out = args.out / (NEW_OUT if args.seeds == list(SEEDS) else OUT).name
    if args.holding:
        out = args.out / HOLDING_OUT.name
    exe = chromium_path()
    if exe is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    start = time.perf_counter()
    command = "make studies: browser_train.py"
    full = args.seeds == list(SEEDS) and cluster.writes_the_books_tables(args.out)
    full = full and not args.holding
    with recorded(command, full=full), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.set_content("<html><body></body></html>")
        page.add_script_tag(content="function warning() {}")  # explorers.js's, unused
        for name in CELL_TRAINER_SCRIPTS:
            page.add_script_tag(path=str(SCRIPT.parent / name))
        settings = page.evaluate("OneMoreRound.train.HOLDING") if args.holding else {}
        seeds = list(range(first, last + 1))
        results = page.evaluate(DRIVER, [seeds, args.jobs, settings])
        chromium = f"Chromium {browser.version}"
        browser.close()
        rows = []
        for result in sorted(results, key=lambda r: r["seed"]):
            cell = cell_from(result.pop("w"), snap=args.holding)
            if args.holding:
                result |= skeptic_at(cell, 1024, OUT.parent)  # the book's families
            else:
                result["exact at 1024 bits"] = exact_at_1024(cell, result["seed"])
            print(json.dumps(result), flush=True)
            rows.append(result)
        table = pd.DataFrame(rows)
        table["jobs"] = args.jobs
        args.out.mkdir(parents=True, exist_ok=True)
        table.to_csv(out, index=False)
        # trained in the browser (JavaScript); torch only reads the trained models
        write_machine_record(out, cores=args.jobs, trained_in=chromium)
    print(f"wrote {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
