"""A local Sphinx extension: the book's notebooks with everything they need to run,
as one download next to the pages (a chapter's ``.ipynb`` alone cannot run,
it needs the ``recur`` library and ``book/data``).

After a successful HTML build it writes ``one-more-round.zip`` at the site's root: the
chapters, their data, the library, the packaging files and a short how-to."""

from __future__ import annotations

import zipfile
from pathlib import Path

NAME = "one-more-round.zip"
PARTS = ["book/*.ipynb", "book/*.md", "book/*.bib", "book/data/**/*"]
PARTS += ["src/recur/**/*.py"]
FILES = ["README.md", "requirements.txt", "pyproject.toml", "_config.yml", "_toc.yml"]
HOW_TO = """One More Round: the notebooks, their data and the library they import.

    python -m venv .venv
    .venv/bin/pip install -r requirements.txt     (installs recur from src/ too)
    .venv/bin/jupyter lab book/

Each chapter then runs as in the book; its widgets take typing there.
"""


def bundle_files(root: Path) -> list[Path]:
    """Every file the bundle holds, relative to ``root`` (the repository)."""
    found = {p for pattern in PARTS for p in root.glob(pattern) if p.is_file()}
    found |= {root / name for name in FILES if (root / name).is_file()}
    return sorted(p.relative_to(root) for p in found)


def write_bundle(root: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("one-more-round/HOW-TO-RUN.txt", HOW_TO)
        for path in bundle_files(root):
            archive.write(root / path, f"one-more-round/{path.as_posix()}")
    return target


def _after_build(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        write_bundle(Path(app.srcdir), Path(app.outdir) / NAME)


def setup(app):
    app.connect("build-finished", _after_build)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
