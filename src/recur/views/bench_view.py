"""The Performance page's tables: ``make bench``'s measurements (:func:`read_bench`)
with a label a reader understands, grouped by the chapter they belong to, two or three
significant figures and the unit in the header; and the chapter times a page quotes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from recur.views.text import percent_text


def read_bench(path) -> tuple[dict, pd.DataFrame]:
    """``make bench``'s file: the machine (first line) and one row per measurement."""
    lines = Path(path).read_text().splitlines()
    if not lines:
        raise ValueError(f"{path} is empty: run make bench")
    rows = [json.loads(line) for line in lines[1:] if line.strip()]
    return json.loads(lines[0]), pd.DataFrame(rows, columns=["name", "value", "unit"])


def device_table(table: pd.DataFrame) -> pd.DataFrame:
    """``make bench``'s device file (one row per model, batch and device): seconds per
    100 training steps with one column per device, and, when CUDA was measured, the
    GPU's time over the CPU's (below 1: the GPU is faster)."""
    wide = table.pivot_table(
        index=["model", "batch"], columns="device", values="seconds per 100 steps"
    )
    if "cuda" in wide.columns and "cpu" in wide.columns:
        wide["GPU time / CPU time"] = wide["cuda"] / wide["cpu"]
    return wide


def first_gpu_win(
    wide: pd.DataFrame, model_name: str, factor: float = 2.0
) -> int | None:
    """The smallest batch size at which the GPU took at most ``1 / factor`` of the
    CPU's time for ``model_name`` in a :func:`device_table`; ``None`` if it never
    did."""
    ratio = wide.loc[model_name, "GPU time / CPU time"]
    wins = ratio[ratio <= 1 / factor]
    return int(wins.index.min()) if len(wins) else None


def chapter_range(bench: pd.DataFrame) -> dict:
    """From :func:`read_bench`'s rows, the quickest and slowest chapter to execute:
    ``fastest`` and ``slowest`` seconds and ``slowest_name`` ("Chapter 6"). The
    numbered chapters and the closing page count; the introduction, which trains
    nothing, does not."""
    chapter = r"chapter_seconds_(\d\d_\w+|ending)"
    rows = bench[bench["name"].str.fullmatch(chapter)]
    if rows.empty:
        raise ValueError("no chapter_seconds_* rows: run make bench")
    seconds = rows.set_index(rows["name"].str.removeprefix("chapter_seconds_"))["value"]
    slowest = seconds.idxmax()  # e.g. "06_act_ut"
    number = slowest.split("_")[0]
    name = f"Chapter {int(number)}" if number.isdigit() else f"the {slowest} page"
    return {"fastest": seconds.min(), "slowest": seconds.max(), "slowest_name": name}


def chapter_time(stem: str, path="data/bench.jsonl") -> str:
    """How long ``make bench`` measured the chapter ``stem`` (``"02_shared_update"``)
    to execute, in words for the top of the chapter (``"about 26 seconds"``). A file
    without the chapter's row gives words that say so: a chapter builds whatever the
    benchmark file holds."""
    _, bench = read_bench(path)
    row = bench[bench["name"] == f"chapter_seconds_{stem}"]
    if row.empty:
        return "a time not yet measured (make bench measures it)"
    return f"about {float(row['value'].iloc[0]):.0f} seconds"


# Each section's (pattern of a benchmark's name, label); the label may use the
# pattern's groups. The first pattern that matches a name wins.
LABELS = {
    "Chapter 1": [
        (r"carry_trace_(\d+)bit_random", "one parallel-carry trace, {0} random bits"),
        (r"carry_trace_(\d+)bit_worst", "one trace, {0} bits, a chain across all"),
        (
            r"carry_chains_(\d+)_pairs_(\d+)bit",
            "longest chains of {0} random {1}-bit pairs",
        ),
    ],
    "Chapter 2": [
        (
            r"shared_seconds_to_pass_8bit",
            "the chapter's training, to a passed check (median of 3 seeds)",
        ),
        (r"shared_runs_not_passing", "seeds whose training never passed its check"),
        (r"shared_restarted", "seeds whose training restarted"),
        (r"shared_exact_match_(\d+)bit", "the cell, exact on random {0}-bit sums"),
        (
            r"shared_seconds_alone$",
            "seed 0 until 100% held-out, no check, 1 thread, idle",
        ),
        (
            r"shared_seconds_beside_busy$",
            "seed 0 until 100% held-out, no check, 1 thread, beside a busy process",
        ),
        (r"shared_under_load_ratio$", "slowdown beside a busy process, 1 thread"),
        (
            r"shared_seconds_alone_2_threads",
            "seed 0 until 100% held-out, no check, 2 threads, idle",
        ),
        (
            r"shared_seconds_beside_busy_2_threads",
            "seed 0 until 100% held-out, no check, 2 threads, beside a busy process",
        ),
        (
            r"shared_under_load_ratio_2_threads",
            "slowdown beside a busy process, 2 threads",
        ),
    ],
    "CPU numerics": [
        (
            r"pins_cell_seconds_pinned",
            "Chapter 2's cell, a 300-step training after a 5-step warm-up, pinned",
        ),
        (r"pins_cell_seconds_unpinned", "the same, the CPU's own kernels"),
        (r"pins_slowdown_cell", "Chapter 2's cell: pinned time / the CPU's own"),
        (
            r"pins_act_ut_seconds_pinned",
            "Chapter 6's model, a 100-step training after a 5-step warm-up, pinned",
        ),
        (r"pins_act_ut_seconds_unpinned", "the same, the CPU's own kernels"),
        (r"pins_slowdown_act_ut", "Chapter 6's model: pinned time / the CPU's own"),
    ],
    "Chapter 4": [
        (
            r"ut_step_ratio_vs_torch_encoder_layer",
            "one UT round / PyTorch's encoder layer, same size (forward + backward)",
        ),
    ],
    "Chapter 6": [
        (r"act_ut_seeds_ok", "runs that met the chapter's bar"),
        (
            r"two_slots_seconds_per_100_steps$",
            "first 100 training steps with set-up, window-of-one attention",
        ),
        (
            r"two_slots_seconds_per_100_steps_unfolded",
            "first 100 training steps with set-up, general (unfolded) attention",
        ),
        (r"two_slots_over_unfolded", "time ratio, window of one / general"),
        (r"two_slots_same_weights", "same weights bit for bit (1 = yes)"),
        (
            r"rows_only_seconds_per_step_every_sum",
            "one training step after 600 steps, ACT's shared layer run on every sum",
        ),
        (
            r"rows_only_seconds_per_step_running_sums",
            "the same, the layer run only on sums still running (the chapter's way)",
        ),
        (r"rows_only_over_every_sum", "time ratio, sums still running / every sum"),
        (r"act_ut_training_seconds$", "training time, median"),
        (r"act_ut_training_seconds_slowest", "training time, slowest seed"),
        (r"act_ut_restarted", "runs that restarted"),
        (
            r"act_ut_exact_(\d+)bit_long_chains",
            "exact on {0}-bit long chains, worst seed",
        ),
        (r"act_ut_exact_(\d+)bit$", "exact on random {0}-bit sums, worst seed"),
        (r"act_ut_steps_beyond_carry", "rounds past the carry, 8 bits, worst seed"),
    ],
    "Chapter 7": [
        (
            r"deq_seconds_to_exact_8bit",
            "training the DEQ cell until it passes its check",
        ),
        (r"deq_exact_(\d+)bit", "the DEQ cell, exact on random {0}-bit sums"),
        (r"deq_memory_4x_over_1x_(\w+)", "bytes kept, 4x the iterations / 1x, {0}"),
        (
            r"deq_peak_mib_(\w+)_(\d+)_(min|max)",
            "peak memory, {0}, {1} iterations, {2}",
        ),
        (r"deq_peak_mib_(\w+)_(\d+)$", "peak memory, {0}, {1} iterations"),
        (r"deq_peak_4x_over_1x_(\w+)", "peak memory, 4x the iterations / 1x, {0}"),
    ],
    # the section "One round of attention" shows these, from attention_costs.csv
    "One round of attention": [
        (
            r"attention_masked_over_banded_(\d+)_(\w+)",
            "masked / banded attention time, n = {0}, {1}",
        ),
    ],
    "Training steps by batch size": [
        (
            r"shared_seconds_per_100_steps_b(\d+)_(\w+)",
            "Chapter 2's cell, fresh, per 100 steps (10 timed), batch {0}, {1}",
        ),
        (
            r"act_ut_seconds_per_100_steps_b(\d+)_(\w+)",
            "Chapter 6's model, fresh, per 100 steps (10 timed), batch {0}, {1}",
        ),
    ],
    "Executing the book": [
        (r"chapter_seconds_(\d\d)_\w+", "Chapter {0}"),
        (r"chapter_seconds_ending", "the closing page"),
        (r"chapter_seconds_intro", "the introduction"),
        (r"chapter_seconds_methods", "the methods appendix"),
        (r"chapter_seconds_(\w+)", "{0}"),
    ],
}


# sections the Performance page shows elsewhere: as a figure, or with their own table
SHOWN_ELSEWHERE = ("One round of attention", "Executing the book")


def label_of(name: str) -> tuple[str, str]:
    """``(section, label)`` of a benchmark's name; an unknown name keeps its own
    name under "Other", so that a new benchmark still shows."""
    for section, pattern, label in _patterns():
        found = re.match(pattern, name)
        if found:
            return section, label.format(*map(_thousands, found.groups()))
    return "Other", name


def _patterns():
    for section, rules in LABELS.items():
        for pattern, label in rules:
            yield section, pattern, label


def _thousands(part: str) -> str:
    return f"{int(part):,}" if part.isdigit() else part.replace("_", " ")


def value_text(value: float, unit: str) -> tuple[str, str]:
    """``(value, unit)`` for a reader: shares as per cent (the book's rule), seconds
    under 0.1 as milliseconds, everything else to two or three significant figures.
    A seed range in the unit ("of 10 seeds (300-309)") is left out: the page names
    the registry's study instead (:mod:`recur.core.seeds`)."""
    unit = re.sub(r"\s*\(\d+\s*[-–]\s*\d+\)", "", unit)
    unit = re.sub(r"\b\d{4,}\b", lambda n: f"{int(n.group()):,}", unit)  # 2000 -> 2,000
    if unit.startswith("fraction"):
        return percent_text(value), unit.removeprefix("fraction").strip(", ") or "share"
    if unit == "s" and abs(value) < 0.1:
        return f"{value * 1e3:.3g}", "ms"
    if float(value).is_integer():
        return f"{int(value):,}", unit
    return _figures(value), unit


def _figures(value: float) -> str:
    """Two or three significant figures, never in e-notation: 1,024; 45.7; 1.00;
    0.44; 0.70 (two decimals down to 0.1); 0.043."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 0.1:
        return f"{value:.2f}"
    return f"{value:.2g}"


SPREAD = ("min", "max")  # entries NAME_min and NAME_max beside a median NAME


def _spread_of(name: str, values: dict) -> bool:
    """Whether ``name`` is the least or the most of the runs behind another entry."""
    base, _, end = name.rpartition("_")
    return end in SPREAD and base in values


def bench_sections(bench: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One table per section (chapters in order, then any other), each with the
    measurement's label, its value (a median with the least and the most of its runs
    beside it, from the entries ``NAME_min`` and ``NAME_max``), its unit and its entry's
    name in ``bench.jsonl`` (which names its function in ``benchmarks/run.py``); the
    sections of :data:`SHOWN_ELSEWHERE` are left out."""
    rows = []
    values = dict(zip(bench["name"], bench["value"], strict=True))
    for name, value, unit in bench[["name", "value", "unit"]].itertuples(index=False):
        if _spread_of(name, values):
            continue  # shown beside its median
        section, label = label_of(name)
        shown, shown_unit = value_text(float(value), str(unit))
        if f"{name}_min" in values and f"{name}_max" in values:
            low, high = (value_text(values[f"{name}_{end}"], "")[0] for end in SPREAD)
            shown = f"{shown} ({low} to {high})"
        if "median" in label:  # said once, in the label
            shown_unit = shown_unit.removesuffix(", median")
        rows.append((section, label, shown, shown_unit, name))
    columns = ["section", "measurement", "value", "unit", "bench.jsonl entry"]
    table = pd.DataFrame(rows, columns=columns)
    order = [
        section for section in [*LABELS, "Other"] if section not in SHOWN_ELSEWHERE
    ]
    return {
        section: part.drop(columns="section").set_index("measurement")
        for section in order
        if len(part := table[table["section"] == section])
    }


def page_title(stem: str, book=".") -> str:
    """The book's page ``stem`` as a reader knows it, for a table that would otherwise
    show file names: "Chapter 7" for ``07_fixed_points``, whose title is numbered,
    else its notebook's first heading ("Why each piece is there" for ``06_pieces``)."""
    number, path = stem.split("_")[0], Path(book) / f"{stem}.ipynb"
    title = _title(path) if path.exists() else None
    if number.isdigit() and (title is None or title[:1].isdigit()):
        return f"Chapter {int(number)}"
    if title is None:
        raise ValueError(f"no notebook {path}")
    return title


def _title(path) -> str:
    """A notebook's first heading (a markdown line starting '# ')."""
    for cell in json.loads(path.read_text())["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("# "):
                return line.removeprefix("# ").strip()
    raise ValueError(f"{path.name} has no title (a line starting '# ')")


def _same(gpu, cpu) -> bool:
    """Two glued values as ``make gpu-check`` records them (their repr): equal, or
    numbers equal to nine significant figures."""
    try:
        return abs(float(gpu) - float(cpu)) <= 1e-9 * max(abs(float(cpu)), 1.0)
    except ValueError:
        return gpu == cpu


# whose training a glued verdict (``deq_ok``) reports, by its prefix
VERDICT_OWNERS = {
    "deq": "the DEQ cell's",
    "act": "the ACT model's",
    "cell": "the cell's",
}


OLD_RUN_WORDS = re.compile(
    r"did not reach the target in ([\d,]+) steps: it adds ([\d.]+%) of the ([\d,]+) "
    r"held-out pairs checked last"
)


def run_words_now(said: str) -> str:
    """A training's words as ``gpu_check.jsonl`` records them, in the wording of
    ``TrainResult.words``; other words unchanged."""
    new = (
        r"did not reach its target in \1 steps; at its last check it added \2 of \3 "
        r"held-out pairs"
    )
    return OLD_RUN_WORDS.sub(new, said)


def _verdict_words(page: str, both: dict, glued: dict, name: str) -> str:
    """A page whose verdict ``name`` (``deq_ok``) differs, in words: whose training
    passed its check on which machine, and what the training said on the machine
    where the check failed when the page glued that too (``deq_words``: "did not
    reach the target in 1,500 steps: ...")."""
    prefix = name.removesuffix("_ok")
    whose = VERDICT_OWNERS.get(prefix, f"the {prefix}")
    on_cpu = both["cpu"] == "True"
    held = "the CPU and not on the GPU" if on_cpu else "the GPU and not on the CPU"
    words = f"{page}, where {whose} training passed its check on {held}"
    said = (glued.get(prefix + "_words") or {}).get("gpu" if on_cpu else "cpu")
    if said:
        failed = "GPU" if on_cpu else "CPU"
        words += f" (on the {failed} it {run_words_now(said.strip(chr(39)))})"
    return words


def gpu_check_summary(checks: list[dict], titles: dict | None = None) -> dict:
    """From ``gpu_check.jsonl``'s records: how many glued values both machines glued
    (``compared``), how many of them differ (``differ``), and, in words, each page
    whose stated verdict (a glued name ending in ``_ok``) differs (``verdicts``;
    ``"no page"`` when none does). ``titles`` maps a page's stem to its title."""
    titles = titles or {}
    compared = differ = 0
    verdicts = []
    for check in (c for c in checks if "chapter" in c):
        page = titles.get(check["chapter"], check["chapter"])
        for name, both in (check.get("glued") or {}).items():
            if both.get("cpu") is None or both.get("gpu") is None:
                continue  # a value only one run glued
            compared += 1
            if _same(both["gpu"], both["cpu"]):
                continue
            differ += 1
            if name.endswith("_ok"):
                verdicts.append(_verdict_words(page, both, check["glued"], name))
    return {
        "compared": compared,
        "differ": differ,
        "verdicts": "; ".join(verdicts) or "no page",
    }
