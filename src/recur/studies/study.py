"""A study as one record: its name, what it measures, what computes its table and with
which settings, the seeds it trains (an entry of :mod:`recur.core.seeds`), the table it
writes under ``book/data`` and the command that reruns it. The scripts of
``benchmarks/`` run the records, the methods appendix lists them and the seeds' test
checks them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from recur.core.seeds import by_name


@dataclass(frozen=True)
class Study:
    name: str
    table: str  # under book/data
    measures: str
    command: str
    seeds: str  # the name of its entry in recur.core.seeds
    # the models it trains, where its table also holds rows copied from another study
    trains: tuple[str, ...] = ()
    # the column that tells its settings apart, where it is not the table's first
    setting: str | None = None
    # what computes its table, with these keyword arguments (seeds included); None: a
    # script of its own computes it (the command)
    runs: Callable | None = None
    settings: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        entry = by_name(self.seeds)  # a name the registry lacks fails here
        trained = set(self.settings.get("seeds", ()))
        if not trained <= set(entry.seeds):
            outside = sorted(trained - set(entry.seeds))
            raise ValueError(
                f"study {self.name!r} trains seeds {outside} outside its registry "
                f"entry {self.seeds!r} ({entry.first}-{entry.last})"
            )

    def run(self, **changes) -> pd.DataFrame | dict[str, pd.DataFrame]:
        """Its table (or tables, by name): :attr:`runs` with :attr:`settings`,
        ``changes`` replacing or adding to them (``seeds``, ``device``, a tiny
        ``n_steps`` in a test)."""
        if self.runs is None:
            raise ValueError(
                f"study {self.name!r} runs by its own script: {self.command}"
            )
        return self.runs(**(dict(self.settings) | changes))
