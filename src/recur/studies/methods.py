"""The methods appendix's tables: every study whose table the book reads, what it
measures, the command that reruns it, and how many models and training seconds its
committed table records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from recur.studies.seed_study import models_trained

ACT = ".venv/bin/python benchmarks/act_studies.py --jobs 2"


@dataclass(frozen=True)
class Study:
    name: str
    table: str  # under book/data
    measures: str
    command: str
    seeds: str  # the name of its entry in recur.core.seeds


STUDIES = (
    Study("tau", "act_tau.csv", "the time penalty: accuracy and steps",
          f"{ACT} tau", "first recipe"),
    Study("warmup", "act_warmup.csv", "the ponder cost ramped in or not",
          f"{ACT} warmup", "first recipe"),
    Study("positions", "act_positions.csv", "four position signals, 8 to 24 bits",
          f"{ACT} positions", "first recipe"),
    Study("length", "act_length.csv", "injection and position signals, 8 to 64 bits",
          f"{ACT} length", "first recipe"),
    Study("recipe", "act_recipe.csv", "a simpler procedure, one piece out at a time",
          f"{ACT} recipe", "recipe pieces"),
    Study("waiting", "act_waiting.csv", "halting probabilities while a position waits",
          f"{ACT} waiting", "recipe pieces"),
    Study("give_up", "act_give_up.csv", "every check of first runs: the give-up step",
          f"{ACT} give_up", "give-up step"),
    Study("third_run_rows", "act_third_run_rows.csv", "a third run, running sums only",
          f"{ACT} third_run_rows", "third run"),
    Study("third_run_every", "act_third_run_every.csv", "a third run, every sum",
          f"{ACT} third_run_every", "third run"),
    Study("seeds", "act_seeds.csv", "Chapter 6's procedure over twenty seeds",
          f"{ACT} seeds", "twenty seeds"),
    Study("seeds_every", "act_seeds_every.csv", "the same, other rounding",
          f"{ACT} seeds_every", "twenty seeds"),
    Study("wide", "act_wide.csv", "twenty seeds again, tested up to 1,024 bits",
          f"{ACT} wide", "twenty seeds"),
    Study("live", "live_seeds.csv", "the live trainings of Chapters 2, 3, 4 and 7",
          ".venv/bin/python benchmarks/live_studies.py --jobs 2", "twenty seeds"),
    Study("first_100", "live_seeds_first_100.csv",
          "the same, one run each, stopping at the first 100%",
          ".venv/bin/python benchmarks/live_studies.py --jobs 2 --first-100",
          "twenty seeds"),
    Study("ch7", "ch7_length.csv", "ACT against PonderNet (Chapter 7)",
          ".venv/bin/python benchmarks/ch7_studies.py", "ACT against PonderNet"),
)  # fmt: skip
TIME_COLUMNS = ("train seconds",)  # a run's whole training, restarts included


def training_seconds(table: pd.DataFrame) -> float | None:
    """The training seconds a study's table records, summed over its runs (a run's
    time is repeated on each of its rows), or None where it records none."""
    for column in TIME_COLUMNS:
        if column in table:
            keys = [c for c in table.columns[:2] if c != column]  # setting, seed
            return float(table.groupby(keys)[column].first().sum())
    return None


def study_table(data: Path) -> pd.DataFrame:
    """One row per study: what it measures, the seeds it uses (the registry's name),
    the models its table records, their training time in minutes (summed over runs;
    blank where the table records none). :func:`commands` gives the commands."""
    rows = []
    for study in STUDIES:
        table = pd.read_csv(data / study.table)
        seconds = training_seconds(table)
        rows.append({
            "study": study.name, "measures": study.measures, "seeds": study.seeds,
            "models": _models(table),
            "training minutes": "" if seconds is None else round(seconds / 60, 1),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("study")


def _models(table: pd.DataFrame) -> int:
    if "model" in table:  # the live study: one row per model and seed
        return int(table.groupby(["model", "seed"]).ngroups)
    if "method" in table:  # Chapter 7: one row per method, seed and width
        return int(table.groupby(["method", "seed"]).ngroups)
    return models_trained(table)


def commands() -> dict:
    """The command that reruns each study, by study name."""
    return {study.name: study.command for study in STUDIES}
