"""The methods appendix's tables: every study whose table the book reads, what it
measures, the command that reruns it, and how many models and training seconds its
committed table records."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from recur.core import seeds
from recur.core.bars import ROBUST
from recur.studies.act_studies import ACT, ACT_SCRIPT, ACT_STUDIES
from recur.studies.ch7_study import STUDY as CH7_STUDY
from recur.studies.live import FIRST_100_DIFFERS, RESULTS, SEEDS_NEEDED
from recur.studies.seed_study import changed_outcomes, count_range
from recur.studies.study import Study
from recur.views.text import listed

ONE_RUN_NAMES = tuple(t.name for t in FIRST_100_DIFFERS)  # the one-run study's own

# Every study whose table the book reads, in the appendix's order: Chapter 6's
# (recur.studies.act_studies), then those run by scripts of their own
STUDY_TABLES = (
    *ACT_STUDIES.values(),
    Study("live", "live_seeds.csv", "the live trainings of Chapters 2, 3, 4 and 7",
          ".venv/bin/python benchmarks/live_studies.py --jobs 2", "live trainings"),
    Study("first_100", "live_seeds_first_100.csv",
          f"{', '.join(ONE_RUN_NAMES[:-1])} and {ONE_RUN_NAMES[-1]}, "
          "one run each, stopping at the first 100%",
          ".venv/bin/python benchmarks/live_studies.py --jobs 2 --first-100",
          "live trainings", trains=ONE_RUN_NAMES),
    CH7_STUDY,
    Study("browser", "browser_cell_seeds.csv",
          "Chapter 2's cell trained in the page, in Chromium",
          ".venv/bin/python benchmarks/browser_train.py --jobs 2 --seeds 0-19",
          "trained in the page"),
    Study("browser_new", "browser_cell_seeds_new.csv",
          "Chapter 2's cell trained in the page, fresh seeds",
          ".venv/bin/python benchmarks/browser_train.py --jobs 2",
          "browser cell new seeds"),
    Study("browser_holding", "browser_cell_holding.csv",
          "Chapter 2's holding recipe trained in the page, on the skeptic's sums",
          ".venv/bin/python benchmarks/browser_train.py --jobs 2 --holding",
          "holding recipe in the page"),
    Study("browser_act", "browser_act_seeds.csv",
          "Chapter 6's procedure trained in the page",
          ".venv/bin/python benchmarks/browser_act_train.py --workers 2",
          "trained in the page, Chapter 6"),
    Study("skeptic_choose", "skeptic_choose.csv",
          "the holding recipe, each piece left out, and the search for sums "
          "(16 to 256 bits)",
          ".venv/bin/python benchmarks/skeptic_studies.py --choose --jobs 2",
          "holding recipe"),
    Study("skeptic", "skeptic_report.csv",
          "the cells of Chapters 2, 3 and 7 and Chapter 6's Transformer on the "
          "skeptic's sums, 64 to 1,024 bits",
          ".venv/bin/python benchmarks/skeptic_studies.py --jobs 2",
          "skeptic's sums"),
    Study("skeptic_wide", "skeptic_wide.csv",
          "the holding cells on the skeptic's 4,096-bit sums",
          ".venv/bin/python benchmarks/skeptic_studies.py --wide --jobs 2",
          "skeptic's sums"),
)  # fmt: skip
# a run's whole training, restarts included ("seconds": the browser study's)
TIME_COLUMNS = ("train seconds", "seconds")


def training_seconds(table: pd.DataFrame, setting: str | None = None) -> float | None:
    """The training seconds a study's table records, summed over its runs (a run's
    time is repeated on each of its rows), or None where it records none. A run is
    a setting and a seed: ``setting`` names its column, else the table's first."""
    for column in TIME_COLUMNS:
        if column in table:
            first_two = [c for c in table.columns[:2] if c != column]  # setting, seed
            keys = [setting, "seed"] if setting else first_two
            return float(table.groupby(keys)[column].first().sum())
    return None


def study_table(data: Path) -> pd.DataFrame:
    """One row per study: what it measures, the seeds it uses (the registry's name),
    the models its table records, their training time in minutes (summed over runs;
    blank where the table records none). :func:`commands` gives the commands."""
    rows = []
    for study in STUDY_TABLES:
        table = pd.read_csv(data / study.table)
        if study.trains:  # the other rows are another study's runs
            table = table[table["model"].isin(study.trains)]
        seconds = training_seconds(table, study.setting)
        rows.append({
            "study": study.name, "measures": study.measures, "seeds": study.seeds,
            "models": _models(table, study.setting),
            "training minutes": "" if seconds is None else round(seconds / 60, 1),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("study")


def _models(table: pd.DataFrame, setting: str | None = None) -> int:
    if "model" in table:  # the live study: one row per model and seed
        return int(table.groupby(["model", "seed"]).ngroups)
    if "method" in table:  # Chapter 7: one row per method, seed and width
        return int(table.groupby(["method", "seed"]).ngroups)
    if "attempts" in table:  # the browser study: one row per seed, its runs counted
        return int(table["attempts"].sum())
    return models_trained(table, setting)


def commands() -> dict:
    """The command that reruns each study, by study name."""
    return {study.name: study.command for study in STUDY_TABLES}


def command_lines() -> str:
    """The commands that rerun the studies, as a Markdown list: Chapter 6's studies
    share one command (with ``--jobs 2`` where the study takes it) and differ by the
    name the table gives them."""
    lines, named = [], set()
    for script in (ACT, ACT_SCRIPT):
        act = [s.name for s in STUDY_TABLES if s.command.rsplit(" ", 1)[0] == script]
        lines += [f"- `{script} NAME`, NAME one of " + ", ".join(f"`{n}`" for n in act)]
        named |= set(act)
    lines += [
        f"- `{s.command}`: `{s.name}`" for s in STUDY_TABLES if s.name not in named
    ]
    return "\n".join(lines)


# Studies that trained the same seeds twice, once in each rounding (Chapter 6)
ROUNDING_PAIRS = (("seeds", "seeds_every"), ("third_run_rows", "third_run_every"))


def rounding_counts(data: Path, recipe: str = "BOOK_ACT") -> list[dict]:
    """For each pair of :data:`ROUNDING_PAIRS`: its seeds' registry entry and role,
    and :func:`recur.studies.seed_study.changed_outcomes` of the two tables."""
    tables = {study.name: study for study in STUDY_TABLES}
    counts = []
    for first, second in ROUNDING_PAIRS:
        entry = seeds.by_name(tables[first].seeds)
        both = [pd.read_csv(data / tables[name].table) for name in (first, second)]
        changed = changed_outcomes(*both, recipe)
        counts.append(changed | {"use": entry.name, "role": entry.role})
    return counts


def rounding_sentence(counts: dict) -> str:
    """A sentence for the methods appendix from one entry of :func:`rounding_counts`:
    how many of its seeds met the bar in each rounding and how many changed outcome."""
    did = "report" if counts["role"] == seeds.REPORT else "chose"
    moved = "no seed" if counts["changed"] == 0 else f"{counts['changed']} of them"
    n, use, here, there = (counts[k] for k in ("n", "use", "here", "there"))
    return (
        f"Of the {n} seeds that {did} (the registry's “{use}”), {here} met the bar in "
        f"one rounding and {there} in the other, and {moved} met it in one and not "
        "the other."
    )


def rounding_expectation(counts: list[dict]) -> str:
    """What :func:`rounding_counts` lets a reader expect of a rerun in other rounding:
    the range of every pair's counts, and that the list of seeds that pass can change
    where any pair changed an outcome."""
    sizes = {c["n"] for c in counts}
    if len(sizes) != 1:
        raise ValueError(
            f"the pairs trained different numbers of seeds: {sorted(sizes)}"
        )
    met = count_range(*(c[k] for c in counts for k in ("here", "there")))
    procedure = "Chapter 6's procedure"
    words = (
        f"In these runs {met} of {sizes.pop()} of {procedure} passed under either "
        "rounding, a count that another rerun need not repeat"
    )
    moved = any(c["changed"] for c in counts)
    return words + (", and the list of seeds that pass can change." if moved else ".")


def shared_choosing_seeds(studies=seeds.REGISTRY) -> list[tuple]:
    """Pairs of choosing uses of the registry that share training seeds: (first name,
    second name, lowest shared seed, highest)."""
    choosing = [s for s in studies if s.role == seeds.CHOOSE]
    shared = []
    for k, one in enumerate(choosing):
        for other in choosing[k + 1 :]:
            both = sorted(set(one.seeds) & set(other.seeds))
            if both:
                shared.append((one.name, other.name, both[0], both[-1]))
    return shared


def choose_report_overlap(studies=seeds.REGISTRY) -> list[int]:
    """The training seeds that a choosing use and a reporting use of the registry
    both train from (each pair allowed by :data:`recur.core.seeds.OVERLAPS`)."""
    shared = set()
    for chose in (s for s in studies if s.role == seeds.CHOOSE):
        for told in (s for s in studies if s.role == seeds.REPORT):
            shared |= set(chose.seeds) & set(told.seeds)
    return sorted(shared)


def models_trained(table: pd.DataFrame, setting: str | None = None) -> int:
    """How many models a study trained, from the table it wrote: one per (setting,
    seed), the setting being the column ``setting`` or else the table's first; where
    a ``runs`` column counts restarts, each restart is one more model."""
    column = setting or table.columns[0]
    runs = table.groupby([column, "seed"]).first()  # (settings x seeds, ...)
    return int(runs["runs"].sum()) if "runs" in runs else len(runs)


def cpu_changes(here: pd.DataFrame, there: pd.DataFrame) -> dict:
    """Two :func:`live_seed_runs` tables of the same trainings and seeds, written on
    two kinds of CPU: how many rows differ in anything but training seconds
    (``changed``, of ``n``); per training whose count of seeds that met the bar
    moved, that count here and there (``moved``); and the trainings whose result a
    chapter states that met it for at least :data:`SEEDS_NEEDED` seeds on one CPU and
    not on the other (``crossed``)."""
    columns = [c for c in here.columns if "seconds" not in c]
    if sorted(columns) != sorted(c for c in there.columns if "seconds" not in c):
        raise ValueError("the two tables must have the same columns")
    keys = ["model", "seed"]
    a, b = (t[columns].set_index(keys).sort_index() for t in (here, there))
    if not a.index.equals(b.index):
        raise ValueError("the two tables must hold the same trainings and seeds")
    same = (a == b) | (a.isna() & b.isna())  # (rows, columns)
    met = {name: (int(a.loc[name, "success"].sum()), int(b.loc[name, "success"].sum()))
           for name in a.index.unique("model")}  # fmt: skip
    moved = {name: counts for name, counts in met.items() if counts[0] != counts[1]}
    states = {t.name for t in RESULTS}
    crossed = [name for name, (x, y) in moved.items() if name in states
               and (x >= SEEDS_NEEDED) != (y >= SEEDS_NEEDED)]  # fmt: skip
    return {"changed": int((~same.all(axis=1)).sum()), "n": len(a),
            "moved": moved, "crossed": crossed}  # fmt: skip


def cpu_words(changes: dict, lead: str = "") -> str:
    """What a page may say of :func:`cpu_changes`, after a sentence that gives the rows
    that changed: whose counts of seeds moved, and whether a stated result crossed the
    book's rule; ``lead`` ("In the pinned rerun") says which run it compares."""
    moved = [f"{x} to {y} for {name}" for name, (x, y) in changes["moved"].items()]
    opening = f"{lead}, the" if lead else "The"
    if not moved:
        return f"{opening} count of seeds that met the bar moved for no model."
    crossed = changes["crossed"]
    bar = f"the book's rule of {SEEDS_NEEDED} seeds in {ROBUST[1]}"
    verdict = (
        f"no result a chapter states moved across {bar}"
        if not crossed
        else f"{' and '.join(crossed)} moved across {bar}"
    )
    counts = "count" if len(moved) == 1 else "counts"
    moved_words = f"{counts} of seeds that met the bar moved ({listed(moved)})"
    return f"{opening} {moved_words}; {verdict}."


def rows_in_common(here: pd.DataFrame, there: pd.DataFrame) -> dict:
    """Two tables of one study written on two machines: the rows of each (``here``,
    ``there``) and how many rows of ``here`` have an equal row in ``there``, every
    column but the times compared (``equal``; each row of ``there`` matched once)."""
    columns = [c for c in here.columns if "seconds" not in c]
    if sorted(columns) != sorted(c for c in there.columns if "seconds" not in c):
        raise ValueError("the two tables must have the same columns")

    def rows(table: pd.DataFrame) -> Counter:
        return Counter(table[columns].astype(str).itertuples(index=False))  # NaN: "nan"

    common = rows(here) & rows(there)
    return {"here": len(here), "there": len(there), "equal": sum(common.values())}


def trained_rows(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """The rows a study's run trained itself: in the one-run study
    (``live_seeds_first_100``) those of its own trainings, the others being copied
    from ``live_seeds.csv``; every row of any other table."""
    if name != "live_seeds_first_100":
        return table
    return table[table["model"].isin(ONE_RUN_NAMES)]
