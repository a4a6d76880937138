"""Every dotted name ``recur.<module>.<name>`` written in the library, the tests, the
benchmarks, the chapters (code and text) and the page's JavaScript resolves: the longest
prefix that is a module imports, and the rest are its attributes. A docstring or a
comment that names a function the library no longer has at that address goes red here,
with the file and the name."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

from conftest import ROOT

# What these directories hold is written by hand; the page's vendored scripts and the
# models the chapters export (_static/vendor, _static/models) are not scanned.
SCANNED = [
    *sorted((ROOT / "src").rglob("*.py")),
    *sorted((ROOT / "tests").glob("*.py")),
    *sorted((ROOT / "benchmarks").rglob("*.py")),
    *sorted((ROOT / "book" / "_ext").glob("*.py")),
    *sorted((ROOT / "book").glob("*.ipynb")),
    *sorted((ROOT / "book" / "_extra" / "_static").glob("*.js")),
]
DOTTED = re.compile(r"\brecur(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
# Dotted words that are not addresses in the library, each with where it is written.
NOT_ADDRESSES = {
    "recur.X": "tests/test_layers.py: a placeholder for any module",
    "recur.processes": "book/_ext/execute.py: a key of a notebook's metadata",
}


def _text(path: Path) -> str:
    """A notebook's code and markdown (not its outputs); any other file whole."""
    if path.suffix != ".ipynb":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells)


def dotted_names(text: str) -> dict[str, int]:
    """Each ``recur.…`` name in ``text`` with the line it first appears on. The match
    stops at the first character that cannot be part of a name, so a trailing full
    stop, backtick, comma or parenthesis is not part of it."""
    found: dict[str, int] = {}
    for match in DOTTED.finditer(text):
        found.setdefault(match.group(0), text.count("\n", 0, match.start()) + 1)
    return found


@functools.cache
def resolves(name: str) -> bool:
    """Whether ``name`` is a module or an attribute reached from one: each part is an
    attribute of what came before, or a submodule of it where that is a package. A
    module that exists but fails to import raises, rather than reading as absent."""
    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        module = ".".join(parts[: i + 1])
        if not hasattr(obj, "__path__") or importlib.util.find_spec(module) is None:
            return False
        obj = importlib.import_module(module)
    return True


def stale_names(path: Path) -> list[str]:
    """``line: name`` for each name in ``path`` that does not resolve."""
    return [
        f"{line}: {name}"
        for name, line in dotted_names(_text(path)).items()
        if name not in NOT_ADDRESSES and not resolves(name)
    ]


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_recur_name_resolves(path):
    stale = stale_names(path)
    assert not stale, f"{path.relative_to(ROOT)} names what the library lacks: {stale}"


# Names that must not resolve, spelt so that the scan of this file does not find them.
MISSING = "recur.core.carry." + "no_such_function"
NO_MODULE = "recur." + "no_such_module.name"


def test_the_scan_finds_names_and_stops_at_punctuation():
    text = (
        f"see :func:`{MISSING}`, or\n"
        "(recur.models.running.run_model). And recur.models.cell.LocalCell."
    )
    assert dotted_names(text) == {
        MISSING: 1,
        "recur.models.running.run_model": 2,
        "recur.models.cell.LocalCell": 2,
    }
    assert not resolves(MISSING)
    assert not resolves(NO_MODULE)
    assert resolves("recur.models.running.run_model")
    assert resolves("recur.models.cell.LocalCell.forward")


def test_every_exception_is_still_written_where_it_says():
    """An entry of NOT_ADDRESSES whose text is gone is dropped, not kept."""
    for name, where in NOT_ADDRESSES.items():
        path = ROOT / where.split(":")[0]
        assert name in dotted_names(_text(path)), (name, where)
