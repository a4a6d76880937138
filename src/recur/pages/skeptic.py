"""The skeptic's study in the pages' words (``skeptic_choose.csv``,
``skeptic_report.csv``, ``skeptic_wide.csv``): Chapter 2's section, the width
sentences of Chapters 3, 6 and 7, the intro and the ending glue these values."""

from __future__ import annotations

from functools import partial

import pandas as pd

from recur.core.hardest import skeptic_sums
from recur.core.intervals import interval_range, interval_text, wilson
from recur.pages.glue import read_table
from recur.studies.skeptic_study import (
    ROUNDS_PER_POSITION,
    SEARCH_BITS,
    SEARCH_DRAWS,
    all_passed,
    found_families,
)
from recur.training.holds import HOLD_ROUNDS
from recur.views.text import listed

# glue key of each model of the study
KEYS = {
    "Chapter 2's cell": "c2",
    "holding cell": "hold",
    "Chapter 3's injected cell": "c3",
    "Chapter 6's Transformer": "ut",
    "Chapter 7's DEQ cell": "deq",
    "holding DEQ cell": "hdeq",
    "holding cell without snapping": "nosnap",
    "holding cell without the hold cost": "nohold",
    "holding cell without chain sums": "nochains",
    "holding DEQ cell without the saturation cost": "nosat",
}
KEYS_C2 = ("c2", "hold")  # Chapter 2's cell and its holding cell, compared
CHOOSE_BITS = 256  # the choosing study's widest sums: its with/without counts
NAMED_BITS = 64  # the width at which the named sums are counted (any width >= 16)


def _counts(table: pd.DataFrame, prefix: str, widths) -> dict:
    """For each model of ``table`` and width: seeds that passed every sum, seeds
    tried and the interval, under ``{prefix}{key}_{n}_met`` and so on."""
    values = {}
    for model, key in KEYS.items():
        for n_bits in widths:
            met, n = all_passed(table, model, n_bits)
            if not n:
                continue
            name = f"{prefix}{key}_{n_bits}"
            values |= {
                f"{name}_met": met,
                f"{name}_n": n,
                f"{name}_interval": interval_text(met, n),
                f"{name}_range": interval_range(met, n),
            }
    return values


def most_failed(table: pd.DataFrame, model_name: str, n_bits: int) -> str:
    """The sums the model ``model_name`` got wrong for the most seeds at ``n_bits``
    (all of those tied for the most), in words."""
    rows = table[(table["model"] == model_name) & (table["n_bits"] == n_bits)]
    names = rows["failed"].dropna().str.split("; ").explode()
    counts = names[names != ""].value_counts()
    if counts.empty:
        return "none"
    most = int(counts.iloc[0])
    top = sorted(counts[counts == most].index)
    count = f"{most} seeds" if most > 1 else "one seed"
    count += " each" if len(top) > 1 else ""
    listed = top[0] if len(top) == 1 else ", ".join(top[:-1]) + " and " + top[-1]
    return f"{listed} ({count})"


def late_and_faded(table: pd.DataFrame, model_name: str, n_bits: int) -> dict:
    """Seeds whose model missed some sum when it was read (``late``), and seeds whose
    model had some sum right when read and wrong in a later round (``faded``)."""
    rows = table[(table["model"] == model_name) & (table["n_bits"] == n_bits)]
    return {
        "late": int((rows["right when read"] < rows["sums"]).sum()),
        "faded": int((rows["held"] < rows["right when read"]).sum()),
    }


def ablation_words(table: pd.DataFrame, model_names, n_bits: int) -> str:
    """How the seeds of ``model_names`` that missed some sum at ``n_bits`` missed it,
    in words: late when read, or right when read and then drifted."""
    missed = late = faded = 0
    for name in model_names:
        met, n = all_passed(table, name, n_bits)
        ways = late_and_faded(table, name, n_bits)
        missed, late, faded = (
            missed + n - met,
            late + ways["late"],
            faded + ways["faded"],
        )
    if missed and late == missed and not faded:
        return (
            f"each of the {missed} cells that missed a sum was late, and none drifted"
        )
    return (
        f"of the {missed} cells that missed a sum, {late} were late and {faded} drifted"
    )


def told_apart_words(table: pd.DataFrame, base: str, others: dict, n_bits: int) -> str:
    """Which of ``others`` (model -> words for it) can be told apart from ``base`` at
    ``n_bits`` by their 95% intervals (:func:`apart_words`), in words."""
    ref = all_passed(table, base, n_bits)
    apart = {
        words: apart_words(all_passed(table, name, n_bits), ref).startswith(
            "their intervals do not"
        )
        for name, words in others.items()
    }
    told = [w for w, a in apart.items() if a]
    not_told = [w for w, a in apart.items() if not a]
    if not told:
        return f"by their 95% intervals, no count {listed(not_told)} is told apart"
    if not not_told:
        return f"by their 95% intervals, every count {listed(told)} is told apart"
    return (
        f"by their 95% intervals, only the count {listed(told)} is told apart; "
        f"those {listed(not_told)} are not"
    )


def wrong_or_late(table: pd.DataFrame, model_name: str, n_bits: int) -> dict:
    """Of an ACT model's seeds: those that got some sum wrong (``wrong``), and those
    that got every one right but halted some position late (``late``)."""
    rows = table[(table["model"] == model_name) & (table["n_bits"] == n_bits)]
    all_right = rows["right when read"] == rows["sums"]
    return {
        "wrong": int((~all_right).sum()),
        "late": int((all_right & (rows["settled"] < rows["sums"])).sum()),
    }


def unchecked(table: pd.DataFrame, model_name: str) -> int:
    """Seeds whose training of ``model_name`` never passed its check."""
    rows = table[table["model"] == model_name].drop_duplicates("seed")
    return int((~rows["check passed"].astype(bool)).sum())


# the holding cell's study without one of its pieces, on the choosing seeds
WITHOUT = [name for name in KEYS if name.startswith("holding cell without")]


def skeptic_values(data="data") -> dict:
    """Every number the pages state of the skeptic's study."""
    read = partial(read_table, data)
    choose, report = read("skeptic_choose"), read("skeptic_report")
    values = {
        "sk_named": len(skeptic_sums(NAMED_BITS).names),
        "sk_found": len(found_families(choose)),
        "sk_draws": SEARCH_DRAWS,
        "sk_search_bits": SEARCH_BITS,
        "sk_sums": int(report["sums"].iloc[0]),
        "sk_hold_rounds": HOLD_ROUNDS,
    }
    values |= _report_values(report) | _choose_values(choose)
    return values | _counts(read("skeptic_wide"), "sk_", (4096,))


def _report_values(report: pd.DataFrame) -> dict:
    """The report seeds' counts (``skeptic_report.csv``): per model and width, how
    the models missed, and the two comparisons the pages draw."""
    values = _counts(report, "sk_", (64, 256, 1024))
    for model, key in (
        ("Chapter 2's cell", "c2"),
        ("Chapter 7's DEQ cell", "deq"),
        ("Chapter 6's Transformer", "ut"),
    ):
        values[f"sk_{key}_failed"] = most_failed(report, model, 1024)
    for model, key in (
        ("Chapter 2's cell", "c2"),
        ("holding cell", "hold"),
        ("Chapter 7's DEQ cell", "deq"),
    ):
        ways = late_and_faded(report, model, 1024)
        values |= {f"sk_{key}_late": ways["late"], f"sk_{key}_faded": ways["faded"]}
    for n_bits in (256, 1024):
        ways = wrong_or_late(report, "Chapter 6's Transformer", n_bits)
        values |= {f"sk_ut_{n_bits}_{k}": v for k, v in ways.items()}
    values["sk_hdeq_unchecked"] = unchecked(report, "holding DEQ cell")
    counts = [(values[f"sk_{k}_1024_met"], values[f"sk_{k}_1024_n"]) for k in KEYS_C2]
    values["sk_hold_apart"] = apart_words(*counts)
    better = values["sk_hdeq_1024_met"] > values["sk_deq_1024_met"]
    values["sk_hdeq_better"] = "did better" if better else "did no better"
    return values


def _choose_values(choose: pd.DataFrame) -> dict:
    """The choosing seeds' counts (``skeptic_choose.csv``) at :data:`CHOOSE_BITS`:
    each model's, the sums each holding cell without a piece missed most, and how the
    cells without a piece missed and compare with the whole recipe."""
    values = _counts(choose, "sk_choose_", (CHOOSE_BITS,))
    for name in WITHOUT:
        values[f"sk_{KEYS[name]}_failed"] = most_failed(choose, name, CHOOSE_BITS)
    values["sk_choose_ablation_words"] = ablation_words(choose, WITHOUT, CHOOSE_BITS)
    pieces = {name: name.removeprefix("holding cell ") for name in WITHOUT}
    values["sk_choose_apart_words"] = told_apart_words(
        choose, "holding cell", pieces, CHOOSE_BITS
    )
    return values


def apart_words(a: tuple[int, int], b: tuple[int, int]) -> str:
    """Whether two counts (met, n) can be told apart by their 95% intervals, in words
    that follow the two counts in a sentence."""
    (low_a, high_a), (low_b, high_b) = wilson(*a), wilson(*b)
    if high_a < low_b or high_b < low_a:
        return "their intervals do not overlap, so the seeds tell them apart"
    return "their intervals overlap, so these seeds cannot tell the two apart"


def read_after(name: str) -> str:
    """When the skeptic's study reads the answer of the model called ``name``, as its
    chapter reads it."""
    if "DEQ" in name:
        return "where its solver settles"
    if "Transformer" in name:
        return "on time, within 2(n + 1) rounds"
    per_position = ROUNDS_PER_POSITION.get(name, 1)
    return "n + 1 rounds" if per_position == 1 else f"{per_position}(n + 1) rounds"


def skeptic_table(data="data", names=tuple(KEYS)) -> pd.DataFrame:
    """Seeds whose model got every skeptic's sum right, by model (those called
    ``names``) and width, with when each is read: the report study and the 4,096-bit
    one."""
    read = partial(read_table, data)
    table = pd.concat([read("skeptic_report"), read("skeptic_wide")])
    rows = []
    for model in names:
        cells = {}
        for n_bits in sorted(table["n_bits"].unique()):
            met, n = all_passed(table, model, int(n_bits))
            cells[f"{n_bits:,} bits"] = f"{met} of {n}" if n else "-"
        if any(v != "-" for v in cells.values()):
            rows.append({"model": model, "read after": read_after(model)} | cells)
    return pd.DataFrame(rows).set_index("model")
