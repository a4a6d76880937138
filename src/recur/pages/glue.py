"""What every page module shares: reading a study table, values as myst-nb glues
them, and the gluing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def plain(value):
    """A numpy or torch scalar as the Python number it holds (what a page shows);
    anything else as it is."""
    return value.item() if hasattr(value, "item") else value


def prefixed(prefix: str, values: dict) -> dict:
    """``values`` under the glue keys ``{prefix}_{key}`` (``pos`` and ``8`` give
    ``pos_8``), as plain Python values."""
    return {f"{prefix}_{key}": plain(value) for key, value in values.items()}


def glue_all(values: dict) -> None:
    """Glue each of a page function's ``{key: value}`` for the prose (myst-nb), as
    plain Python values, without displaying anything."""
    from myst_nb import glue  # only where a book is being built

    for key, value in values.items():
        glue(key, plain(value), display=False)


def read_table(data, name: str) -> pd.DataFrame:
    """The study table ``name`` (``act_seeds``) of the folder ``data``
    (``book/data``)."""
    return pd.read_csv(Path(data) / f"{name}.csv")
