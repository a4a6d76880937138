"""Execute each notebook given and keep only the outputs that nbval checks.

Usage: python tests/store_checked_outputs.py book/01_parallel_carry.ipynb [...]

Cells tagged ``nbval-check-output`` keep their outputs (nbval compares them
with a fresh run); every other output and every execution count is dropped, so the
committed notebooks stay small and their diffs readable.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

CHECK = "nbval-check-output"  # the cell tag nbval reads (no marker on the page)


def store(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    resources = {"metadata": {"path": str(path.parent)}}
    NotebookClient(nb, timeout=600, resources=resources).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if CHECK not in cell.metadata.get("tags", []):
            cell.outputs = []
            cell.execution_count = None  # nbval needs the count only where it compares
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    print(f"stored checked outputs of {path}")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        store(Path(name))
