"""Chapter 6's procedure run in Chromium, as a reader of the static page runs it
(``book/_extra/_static/act_train.js`` in a Web Worker), over the registry's "trained in
the page, Chapter 6" seeds: whether each seed's run passed Chapter 6's check, at which
step, in how many runs, the seconds to the verdict, and the page's own widths row (8
to 64 bits: random sums, long chains, long waits without a carry, the hardest sums).
Then each kept model, moved into the library (rounded to float32), on the hardest sums
of every width from 8 to 64 bits with the library's own code. Writes
``book/data/browser_act_seeds.csv``, which Chapter 6 and the methods appendix read.

Run: ``.venv/bin/python benchmarks/browser_act_train.py [--workers 2] [--seeds A-B]``
(Debian's Chromium; ``--jobs`` seeds train at once, one by default, ``--workers``
workers each).
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
from recur.chapters.ch6_hardest import hardest_columns  # noqa: E402
from recur.core.chromium import (  # noqa: E402
    ACT_TRAINER_SCRIPTS,
    CHROMIUM_FLAGS,
    chromium_path,
)
from recur.core.machine import write_machine_record  # noqa: E402
from recur.core.seeds import by_name  # noqa: E402
from recur.core.tasks import twice_width_plus_one  # noqa: E402
from recur.models.ut import UniversalTransformer  # noqa: E402
from recur.training.ut_recipe import BOOK_ACT  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from last_run import recorded  # noqa: E402
from recur.studies import cluster  # noqa: E402

STATIC = ROOT / "book" / "_extra" / "_static"
SCRIPTS = [STATIC / name for name in ACT_TRAINER_SCRIPTS]
OUT = ROOT / "book" / "data" / "browser_act_seeds.csv"
SEEDS = by_name("trained in the page, Chapter 6")
WIDTHS = [8, 16, 32, 64]

# In the page: ``jobs`` workers made as the trainer makes them, each taking the next
# seed until none is left; every result comes back with its weights and widths row.
DRIVER = """async ([seeds, jobs, variant, workers]) => {
  const queue = seeds.slice(), results = [];
  const one = () => new Promise((resolve) => {
    const seed = queue.shift();
    if (seed === undefined) return resolve();
    const worker = actTrainerWorkers(workers);
    const start = performance.now();
    let result = null;
    worker.lead.onmessage = (event) => {
      const { done, widths } = event.data;
      if (done) {
        const w = Object.fromEntries(
          Object.entries(done.w).map(([k, v]) => [k, Array.from(v)]));
        result = { seed, passed: done.passed, step: done.step, attempts: done.attempts,
          seconds: (performance.now() - start) / 1000, w };
      }
      if (!widths) return;
      worker.stop();
      result.widthsSeconds = (performance.now() - start) / 1000 - result.seconds;
      result.widths = widths;
      results.push(result);
      resolve(one());
    };
    worker.start({ seed, variant, widths: true });
  });
  await Promise.all(Array.from({ length: jobs }, one));
  return results;
}"""


def model_from(weights: dict) -> UniversalTransformer:
    """The page's trained weights in the library's model, rounded to float32 as the
    library runs its models (its measures feed it float32 bits)."""
    model = UniversalTransformer(BOOK_ACT.model).eval()
    state = {
        name: torch.tensor(weights[name], dtype=torch.float32).reshape(tensor.shape)
        for name, tensor in model.state_dict().items()
    }
    model.load_state_dict(state)
    return model


def row_of(result: dict) -> dict:
    """One seed's row: the verdict, the page's widths row, and the library's hardest
    sums on the same weights."""
    model = model_from(result.pop("w"))
    widths = {w["bits"]: w for w in result.pop("widths")}
    row = dict(result)
    for bits in WIDTHS:
        page = widths[bits]
        row[f"exact {bits}"] = page["exact"]
        row[f"long chains {bits}"] = page["exact, long chains"]
        row[f"long waits {bits}"] = page["exact, long waits without a carry"]
        row[f"hardest {bits}"] = bool(page["hardest sums right"])
        library = hardest_columns(model, bits, twice_width_plus_one(bits), news=False)
        row[f"hardest {bits}, library"] = bool(library["hardest sums right"])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="seeds training at once")
    parser.add_argument(
        "--seeds",
        type=cluster.seed_range,
        default=f"{SEEDS.first}-{SEEDS.last}",
        metavar="A-B",
        help=f"a range (default {SEEDS.first}-{SEEDS.last})",
    )
    parser.add_argument("--variant", default="book", help="the page's settings")
    parser.add_argument(
        "--workers", type=int, default=2, help="workers per training (1 or 2)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=OUT.parent,
        metavar="DIR",
        help="where the table goes (default: book/data)",
    )
    args = parser.parse_args()
    first, last = args.seeds[0], args.seeds[-1]
    out = args.out / OUT.name
    exe = chromium_path()
    if exe is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    start = time.perf_counter()
    command = "make studies: browser_act_train.py"
    everything = (first, last) == (SEEDS.first, SEEDS.last)
    full = everything and cluster.writes_the_books_tables(args.out)
    with recorded(command, full=full), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.set_content("<html><body></body></html>")
        for script in SCRIPTS:
            page.add_script_tag(path=str(script))
        seeds = list(range(first, last + 1))
        results = page.evaluate(DRIVER, [seeds, args.jobs, args.variant, args.workers])
        chromium = f"Chromium {browser.version}"
        browser.close()
        args.out.mkdir(parents=True, exist_ok=True)
        raw = args.out / f".{OUT.stem}_raw.json"  # kept in case what follows fails
        raw.write_text(json.dumps(results))
        rows = []
        for result in sorted(results, key=lambda r: r["seed"]):
            rows.append(row_of(result))
            shown = {k: v for k, v in rows[-1].items() if "," not in k}
            print(json.dumps(shown), flush=True)
        table = pd.DataFrame(rows)
        table["jobs"], table["workers"] = args.jobs, args.workers
        table["variant"] = args.variant
        table.to_csv(out, index=False)
        # trained in the browser (JavaScript); torch only reads the trained models
        write_machine_record(out, cores=args.jobs * args.workers, trained_in=chromium)
        raw.unlink()
    print(f"wrote {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
