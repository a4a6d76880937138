"""The tau sweep of Chapter 6: train the local ACT UT for several time penalties and
seeds, print one JSON line per run and write the table the chapter reads.

Run: .venv/bin/python benchmarks/act_tau.py   (about 5 minutes on 2 cores)
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from recur.ut_experiments import tau_sweep

OUT = Path(__file__).resolve().parents[1] / "book" / "data" / "act_tau_sweep.csv"

if __name__ == "__main__":
    torch.set_num_threads(2)
    table = tau_sweep(taus=[0.001, 0.01, 0.1], seeds=[0, 1], device="cpu")
    for row in table.to_dict("records"):
        print(json.dumps(row), flush=True)
    OUT.parent.mkdir(exist_ok=True)
    table.to_csv(OUT, index=False)
    print(f"wrote {OUT.relative_to(OUT.parents[2])}")
