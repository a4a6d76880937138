"""The methods appendix's "Machines and rounding": the pinned CPU numerics
(:mod:`recur.core.numerics`), every table's machine record, and the tables rerun with
the pins beside their last run without them (``unpinned/``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from recur.core.machine import read_machine_records, sidecar_path
from recur.core.numerics import PINS
from recur.pages.glue import prefixed, read_table
from recur.studies import live as lt
from recur.studies import methods as studies

# Chapter 6's reporting studies but its hundred seeds, its six small studies, the live
# trainings' studies and Chapter 7's three tables: rerun with the pins, their last
# unpinned tables kept in unpinned/
PINNED_RERUNS = tuple(
    f"act_{name}"
    for name in ("tau", "warmup", "positions", "length", "recipe", "waiting", "seeds",
                 "seeds_every", "wide", "third_run_rows", "third_run_every", "give_up",
                 "pairs")
)  # fmt: skip
PINNED_RERUNS += ("live_seeds", "live_seeds_first_100", "ch7_length", "ch7_distance",
                  "ch7_settle")  # fmt: skip
BEFORE = "unpinned"  # the folder of data/ with their last unpinned tables


def pins_words() -> str:
    """The pins as the page names them: ATEN_CPU_CAPABILITY=avx2, ... (glued as text,
    so without code marks)."""
    levels = [f"{name}={PINS[name]}" for name in PINS if "THREADS" not in name]
    return f"{', '.join(levels[:-1])} and {levels[-1]}, with one thread"


def cpu_name(cpu: str) -> str:
    """``Intel(R) Xeon(R) Processor`` -> ``Intel Xeon``: a model as prose names it."""
    return re.sub(r"\((R|TM)\)| Processor$| CPU$", "", cpu).strip()


def numerics_words(record: dict) -> str:
    """A record's numerics in a word or two: pinned (AVX2 kernels, MKL's compatible
    path, one thread), the CPU's own, CUDA, the browser's, or mixed."""
    if record.get("earlier"):
        return "mixed runs"
    if record.get("trained_in"):
        return "browser"
    if record["cpu"].startswith("NVIDIA"):
        return "CUDA"
    if not record["pinned"]:
        return "CPU's own"
    return "pinned, part copied" if "copied" in record else "pinned"


def machine_table(data="data") -> pd.DataFrame:
    """One row per committed table: where and when it was computed, with what
    numerics and torch, and how that is known (a record written by the run, or
    recovered from the project's history)."""
    rows = [
        {
            "table": table,
            "machine": cpu_name(record["cpu"]),
            "date": record["date"],
            "numerics": numerics_words(record),
            "torch": record["torch"],
            "known": record.get("confidence", "recorded"),
        }
        for table, record in read_machine_records(data).items()
    ]
    return pd.DataFrame(rows)


def rerun_table(data="data") -> pd.DataFrame:
    """Each of :data:`PINNED_RERUNS` beside its last unpinned run: the CPU of each,
    their rows (those the run trained) and the rows equal in all but times."""
    records = read_machine_records(data)
    rows = []
    for name in PINNED_RERUNS:
        pinned, before = (
            studies.trained_rows(read_table(data, folder + name), name)
            for folder in ("", f"{BEFORE}/")
        )
        common = studies.rows_in_common(pinned, before)
        rows.append(
            {
                "table": f"{name}.csv",
                "pinned on": cpu_name(records[f"{name}.csv"]["cpu"]),
                "rows": common["here"],
                "unpinned on": cpu_name(records[f"{BEFORE}/{name}.csv"]["cpu"]),
                "rows before": common["there"],
                "equal rows": common["equal"],
            }
        )
    return pd.DataFrame(rows)


def rerun_words(reruns: pd.DataFrame) -> str:
    """What a page may say of :func:`rerun_table`, after the sentence that gives the
    equal rows: which tables moved, and whether their CPU changed as well as its
    kernels (then the rows cannot say which of the two moved them)."""
    if (reruns["equal rows"] == reruns["rows"]).all():
        return "Every row came out the same, though the kernels changed."
    moved = reruns[reruns["equal rows"] < reruns["rows"]]
    some = "Every table" if len(moved) == len(reruns) else f"{len(moved)} of the tables"
    same_cpu = moved[moved["pinned on"] == moved["unpinned on"]]
    if same_cpu.empty:
        return (
            f"{some} moved. Both the CPU and its kernels changed between the two runs, "
            "so this shows how far such a table moves with the machine, not which of "
            "the two moved it."
        )
    names = ", ".join(t.removesuffix(".csv") for t in same_cpu["table"])
    return (
        f"{some} moved. Where the CPU changed too, the rows cannot say which of the "
        f"two moved them; {names} ran on the same kind of CPU both times, so the "
        "kernels alone moved those."
    )


def before_words(reruns: pd.DataFrame) -> str:
    """The CPUs of the reruns' last unpinned runs, for "on an ...": the most common
    one, and the tables run on another in brackets."""
    counts = reruns["unpinned on"].value_counts()
    words = counts.index[0]
    for cpu in counts.index[1:]:
        tables = reruns.loc[reruns["unpinned on"] == cpu, "table"]
        names = ", ".join(t.removesuffix(".csv") for t in tables)
        words += f" ({names} on an {cpu})"
    return words


def browser_words(records: list[dict]) -> str:
    """What a page may say of the page trainings' tables (``browser_*``): whether
    they ran before the trainers took ``exact_math.js`` (their records say)."""
    browser = [r for r in records if r.get("trained_in")]
    before = sum("before exact_math.js" in r["trained_in"] for r in browser)
    if not before:
        return "The page trainings in book/data ran with these functions."
    some = (
        "The page trainings in book/data"
        if before == len(browser)
        else f"Of the {len(browser)} tables of page trainings in book/data, {before}"
    )  # a sentence starts with a word, not a digit
    return (
        f"{some} ran before the trainers took these functions, as their records say. "
        "A seed's run in the page now may differ from its row."
    )


def machine_values(data="data") -> dict:
    """The section's glued values (``pins_``): the pins' words, the tables written
    before them, and the reruns' rows and equal rows in all."""
    by_table = read_machine_records(data)
    records = by_table.values()
    reruns = rerun_table(data)
    # as the table of records words them, so that its rows and these counts agree
    pinned = sum(numerics_words(r).startswith("pinned") for r in records)
    return prefixed(
        "pins",
        {
            "words": pins_words(),
            # records written after their run, from the project's history
            "recovered_tables": sum("evidence" in r for r in records),
            # page trainings' records, written by the page as they ran
            "browser_own_tables": sum(
                bool(r.get("trained_in")) and "evidence" not in r for r in records
            ),
            "rerun_rows": int(reruns["rows"].sum()),
            "rerun_equal": int(reruns["equal rows"].sum()),
            "rerun_tables": len(reruns),
            "rerun_words": rerun_words(reruns),
            "browser_words": browser_words(list(records)),
            "pinned_tables": pinned,
            "rerun_cpu": reruns["pinned on"].iloc[0],
            "before_cpu": before_words(reruns),
            "live_cpu": cpu_name(by_table[f"{BEFORE}/live_seeds.csv"]["cpu"]),
            "other_cpu": cpu_name(by_table["other_cpu/live_seeds.csv"]["cpu"]),
        },
    )


def pins_note(data, table: str, who: str) -> str:
    """A sentence for a table trained without the pinned numerics (its machine
    record says so), or nothing: what the page says of ``who``'s training."""
    record = json.loads(sidecar_path(Path(data) / f"{table}.csv").read_text())
    if record["pinned"]:
        return ""
    cpu = cpu_name(record["cpu"])
    return (
        f"{who} were trained on an {cpu} before the book fixed the CPU's rounding (its"
        " pinned numerics, in the methods appendix), so a rerun now may differ."
    )


def live_runs_table(data="data") -> pd.DataFrame:
    """The live trainings' twenty seeds as three runs computed them: without the pins
    on the CPU of ``unpinned/`` and on that of ``other_cpu/``, and pinned (the table
    the chapters read): per training, the seeds that met its chapter's bar."""
    records = read_machine_records(data)
    runs = {}
    for table in (f"{BEFORE}/live_seeds", "other_cpu/live_seeds", "live_seeds"):
        record = records[f"{table}.csv"]
        numerics = "pinned, read by the book" if record["pinned"] else "CPU's own"
        counts = read_table(data, table)
        runs[f"{cpu_name(record['cpu'])}, {numerics}"] = {
            training.name: "{met} of {n}".format(**lt.live_counts(counts, training))
            for training in lt.LIVE
        }
    return pd.DataFrame(runs).rename_axis("seeds that met the bar")
