"""Where each chapter's time goes: runs a notebook's code cells in this process (one
torch thread, as ``make book`` runs them), under cProfile, and prints the library
functions with the most cumulative time and the functions with the most time of their
own (PyTorch's operators among them).

    .venv/bin/python benchmarks/profile_chapters.py book/06_act_ut.ipynb [--top 8]

A notebook runs in its own folder with that checkout's ``src`` first on the path, so
the script can profile another checkout's chapters too (``git worktree add``)."""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path


def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def run_notebook(notebook: Path) -> tuple[cProfile.Profile, float]:
    """Executes the notebook's code cells in order; the profile and the wall seconds."""
    os.chdir(notebook.parent)
    sys.path.insert(0, str(notebook.parent.parent / "src"))
    namespace: dict = {"__name__": "__main__"}
    profile = cProfile.Profile()
    start = time.perf_counter()
    for source in code_cells(notebook):
        profile.runctx(compile(source, str(notebook), "exec"), namespace, namespace)
    return profile, time.perf_counter() - start


def top_lines(profile: cProfile.Profile, top: int) -> list[str]:
    """The ``top`` library functions by cumulative time, then all functions by own."""
    stats = pstats.Stats(profile).stats  # (file, line, name) -> (cc, nc, tt, ct, ...)
    rows = [(key, value[2], value[3]) for key, value in stats.items()]
    library = [r for r in rows if f"{os.sep}src{os.sep}recur{os.sep}" in r[0][0]]
    lines = ["cumulative  library function"]
    for (path, line, name), _, cumulative in sorted(library, key=lambda r: -r[2])[:top]:
        where = path.split(f"{os.sep}src{os.sep}")[-1]
        lines.append(f"{cumulative:9.2f} s  {where}:{line} {name}")
    lines.append("own time    function")
    for (path, line, name), own, _ in sorted(rows, key=lambda r: -r[1])[:top]:
        where = name if path == "~" else f"{Path(path).name}:{line} {name}"
        lines.append(f"{own:9.2f} s  {where}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    import torch

    torch.set_num_threads(1)
    profile, seconds = run_notebook(args.notebook.resolve())
    print(f"{args.notebook.name}: {seconds:.1f} s (under cProfile)")
    print("\n".join(top_lines(profile, args.top)))


if __name__ == "__main__":
    main()
