"""Chapter 6's model on the hardest sums, counted over seeds: the ``pairs`` study
(:func:`pair_runs`), which chose to read each pair of bits as a set, and the counts a
page glues from it and from the ``seeds`` and ``wide`` studies' hardest-sum columns."""

from __future__ import annotations

import pandas as pd

from recur.chapters.ch6_hardest import HARDEST_NEWS, HARDEST_PAST, HARDEST_RIGHT
from recur.core.bars import HARDEST_PAST as HARDEST_PAST_BAR
from recur.studies.seed_study import seed_runs

PAIRS = "pairs as sets"  # the column of :func:`pair_runs`


def pair_runs(seeds: tuple[int, ...], jobs: int = 1, **settings) -> pd.DataFrame:
    """The ``pairs`` study: :func:`seed_runs` of Chapter 6's procedure with its model
    reading each pair of bits as a set (``pair_as_set``, the procedure's own) and
    without, the hardest sums included; a column :data:`PAIRS` says which."""
    tables = [
        seed_runs(("BOOK_ACT",), seeds, jobs=jobs, hardest=True,
                  pair_as_set=as_set, **settings)
        .assign(**{PAIRS: as_set})
        for as_set in (True, False)
    ]  # fmt: skip
    return pd.concat(tables, ignore_index=True)


def hardest_counts(table: pd.DataFrame, recipe: str = "BOOK_ACT") -> dict:
    """From a :func:`seed_runs` table with the hardest sums' columns, one recipe's
    seeds: how many (``n``); how many got every hardest sum right at every width of
    the table (``right``); how many also halted every position at most
    :data:`~recur.core.bars.HARDEST_PAST` rounds after its carry-in could be known
    (``met``: the goal); and the most rounds past the carry of any seed (``worst``)."""
    runs = table[table["recipe"] == recipe]
    right = runs.groupby("seed")[HARDEST_RIGHT].all()  # (seeds,)
    on_time = runs.groupby("seed")[HARDEST_PAST].max() <= HARDEST_PAST_BAR  # (seeds,)
    return {
        "n": len(right),
        "right": int(right.sum()),
        "met": int((right & on_time).sum()),
        "worst": int(runs[HARDEST_PAST].max()),
    }


def hardest_by_width(table: pd.DataFrame, recipe: str = "BOOK_ACT") -> pd.DataFrame:
    """Per width of a :func:`seed_runs` table with the hardest sums' columns: the seeds
    whose every hardest sum came out right, those also on time (at most
    :data:`~recur.core.bars.HARDEST_PAST` rounds past the carry), of how many."""
    runs = table[table["recipe"] == recipe]
    on_time = runs[HARDEST_RIGHT].astype(bool) & (
        runs[HARDEST_PAST] <= HARDEST_PAST_BAR
    )
    return pd.DataFrame({
        "all right": runs[HARDEST_RIGHT].astype(bool).groupby(runs["bits"]).sum(),
        "all right and on time": on_time.groupby(runs["bits"]).sum(),
        "seeds": runs.groupby("bits").size(),
    }).astype(int)  # fmt: skip


def pair_counts(table: pd.DataFrame) -> dict:
    """From the ``pairs`` study (:func:`pair_runs`): for each variant (``with``: each
    pair read as a set; ``without``), :func:`hardest_counts` of its seeds; and, of the
    seeds without it, :func:`late_kinds`."""
    counts = {}
    for key, as_set in (("with", True), ("without", False)):
        runs = table[table[PAIRS] == as_set]
        counts |= {f"{key}_{k}": v for k, v in hardest_counts(runs).items()}
    return counts | late_kinds(table[table[PAIRS] == False])  # noqa: E712


def late_kinds(table: pd.DataFrame) -> dict:
    """Of the seeds of a table with the hardest sums' columns that got every hardest
    sum right, at the width where each halted latest: how many were late (more than
    :data:`~recur.core.bars.HARDEST_PAST` rounds past the carry, ``late``); of them,
    how many had the latest readout turn right late, at most one round before the
    latest halt (``news_late``: the carry's news came late and the halting waited for
    it), and how many had every readout right in time and still ran on (``ran_on``)."""
    late = _latest_of_late(table)
    gap = late[HARDEST_PAST] - late[HARDEST_NEWS]  # halting after the latest answer
    return {
        "late": len(late),
        "news_late": int(((gap <= 1) & (late[HARDEST_NEWS] > HARDEST_PAST_BAR)).sum()),
        "ran_on": int((late[HARDEST_NEWS] <= HARDEST_PAST_BAR).sum()),
    }


def _latest_of_late(table: pd.DataFrame) -> pd.DataFrame:
    """The late seeds of :func:`late_kinds`, one row each: the width where each halted
    latest (only seeds that got every hardest sum right)."""
    right = table.groupby("seed")[HARDEST_RIGHT].transform("all").astype(bool)
    table = table[right]  # a wrong sum's readout may never turn right
    if table.empty:
        return table
    worst = table.loc[table.groupby("seed")[HARDEST_PAST].idxmax()]  # a row per seed
    return worst[worst[HARDEST_PAST] > HARDEST_PAST_BAR]
