"""The ACT studies of Chapter 6, too slow for the page: train the local ACT UT for
several settings and seeds, print one JSON line per run and write the tables the
chapter reads (``book/data/act_*.csv``).

- ``tau``: the time penalty, 3 values x 3 seeds, 1,500 steps each so that every
  penalty acts for 1,000 steps after the warm-up (about 7 minutes on 2 cores);
- ``warmup``: the ponder cost at full weight from the start vs. ramped up over the
  first 500 steps, 5 seeds (about 4 minutes);
- ``positions``: the sinusoidal position signal, none, randomly shifted while
  training, or a learned relative attention bias instead, 3 seeds, tested on 8 to 24
  bits (about 9 minutes).

Run: .venv/bin/python benchmarks/act_studies.py [tau] [warmup] [positions]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from recur.ut_experiments import act_runs, tau_sweep

DATA = Path(__file__).resolve().parents[1] / "book" / "data"

STUDIES = {
    "tau": lambda: tau_sweep(
        taus=[0.001, 0.01, 0.1], seeds=[0, 1, 2], stop_at_exact=None, device="cpu"
    ),
    "warmup": lambda: act_runs(
        {"full weight from step 1": {"aux_warmup": 0}, "ramped over 500 steps": {}},
        seeds=[0, 1, 2, 3, 4],
        n_sums=2000,
        device="cpu",
    ),
    "positions": lambda: act_runs(
        {
            "sinusoid (positions 0-8)": {},
            "no position signal": {"model_options": {"position": "none"}},
            "sinusoid, random shift 0-16": {"model_options": {"position_offsets": 16}},
            "relative attention bias": {"model_options": {"position": "relative"}},
        },
        seeds=[0, 1, 2],
        widths=(8, 12, 16, 24),
        max_steps=24,
        device="cpu",
    ),
}

if __name__ == "__main__":
    torch.set_num_threads(2)
    for name in sys.argv[1:] or list(STUDIES):
        table = STUDIES[name]()
        for row in table.to_dict("records"):
            print(json.dumps({"study": name} | row), flush=True)
        out = DATA / f"act_{name}.csv"
        table.to_csv(out, index=False)
        print(f"wrote book/data/{out.name}", flush=True)
