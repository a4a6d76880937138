"""The Performance page's glued values, from ``make bench``'s files and the other
measurement tables (``book/data``): one function per file, and :func:`page_values`
reading them all."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from recur.chapters.ch7_costs import band_ahead_from
from recur.core.machine import sidecar_path
from recur.core.seeds import by_name
from recur.pages.glue import plain, prefixed
from recur.pages.machines import cpu_name
from recur.training.config import TrainConfig
from recur.training.ut_recipe import BOOK_ACT, UT_SIZE
from recur.views.bench_view import (
    chapter_range,
    device_table,
    first_gpu_win,
    gpu_check_summary,
    page_title,
    read_bench,
)

# make bench's measurements the page quotes: the two threads, the two key slots, the
# pins, Chapter 6's worst seed, and the DEQ step's peak memory (median, least and most
# of five runs)
PEAK = [f"deq_peak_mib_{m}_{r}{e}" for m in ("implicit", "unrolled") for r in (9, 36)
        for e in ("", "_min", "_max")]  # fmt: skip
QUOTED = ["shared_under_load_ratio", "shared_under_load_ratio_2_threads",
          "two_slots_over_unfolded", "pins_slowdown_cell", "pins_slowdown_act_ut",
          "act_ut_seeds_ok", "act_ut_exact_64bit", "act_ut_exact_64bit_long_chains",
          "act_ut_exact_32bit_long_chains", "shared_seconds_to_pass_8bit",
          "shared_seconds_alone", "chapter_seconds_02_shared_update",
          *PEAK]  # fmt: skip
GPU_MODELS = {"shared": "shared", "act": "act_ut"}  # glue key: the devices' model
# the kinds of attention, by glue key
ATTENTION = {"masked": "masked local", "banded": "banded local", "full": "full"}
LONGEST = 4096  # the most positions the attention costs were measured at


def bench_values(machine: dict, bench: pd.DataFrame) -> dict:
    """From ``make bench``'s file (:func:`read_bench`): the GPU it ran on, if any, the
    seeds its Chapter 6 rows train (the registry's "benchmark") and the measurements
    the page quotes (``perf_``)."""
    values = {"bench_gpu": machine["gpu"] or "none",
              "bench_seeds_n": len(by_name("benchmark").seeds)}  # fmt: skip
    quoted = bench.set_index("name")["value"]
    values["perf_act_ut_words"] = act_ut_words(quoted, values["bench_seeds_n"])
    return values | prefixed("perf", {key: float(quoted[key]) for key in QUOTED})


def act_ut_words(quoted: pd.Series, n_seeds: int) -> str:
    """The page's sentence on Chapter 6's procedure in ``make bench``, from its
    entries: how many seeds met the bar, and each measure's worst seed (which need not
    be one seed)."""
    met = int(quoted["act_ut_seeds_ok"])
    chains = {b: quoted[f"act_ut_exact_{b}bit_long_chains"] for b in (32, 64)}
    random = quoted["act_ut_exact_64bit"]
    shares = (f"on random 64-bit sums {random:.0%}, on long-chain ones "
              f"{chains[64]:.0%} (at 32 bits, {chains[32]:.0%})")  # fmt: skip
    if met == n_seeds:
        return (f"All {n_seeds} seeds of Chapter 6's procedure that make bench "
                "trains met the chapter's bar (the Chapter 6 rows give each "
                "measure's worst seed).")  # fmt: skip
    return (f"Of the {n_seeds} seeds of Chapter 6's procedure that make bench "
            f"trains, {met} met the chapter's bar. Each measure gives its worst seed, "
            f"not always the same one: {shares}, the failure the bar's long chains "
            "catch.")  # fmt: skip


def gpu_values(gpu_machine: dict, devices: pd.DataFrame) -> dict:
    """From the last GPU run (``bench_gpu.jsonl``'s machine, a :func:`device_table`
    of ``bench_devices_gpu.csv``): its GPU, the smallest batch measured and Chapter 2's
    batch, and per model the GPU's time over the CPU's at that batch and the smallest
    batch at which the GPU took at most half the CPU's time."""
    smallest = int(devices.index.get_level_values("batch").min())
    values = {
        "gpu_name": gpu_machine["gpu"],
        "gpu_smallest_batch": smallest,
        "cell_batch": TrainConfig().batch_size,
        "gpu_bench_date": gpu_machine.get("date", "an unrecorded date"),
    }
    for key, name in GPU_MODELS.items():
        ratio = float(devices.loc[(name, smallest), "GPU time / CPU time"])
        values[f"{key}_gpu_over_cpu_64"] = ratio
        values[f"{key}_gpu_win"] = first_gpu_win(devices, name)
    return values


def gpu_check_values(checks: list[dict], book=".") -> dict:
    """From ``gpu_check.jsonl``'s records: the unit tests' counts (``gpu_tests``), the
    pages that stopped with an error (``gpu_errors_words``) and
    :func:`gpu_check_summary` (``gpu_``), naming the pages by their titles (the
    notebooks in ``book``)."""
    stems = [check["chapter"] for check in checks if "chapter" in check]
    titles = {stem: page_title(stem, book) for stem in stems}
    tests = next((c for c in checks if "tests" in c), {"tests": "not run"})
    counts = tests["tests"].split(" in ")[0]  # "1 failed, 269 passed", no time
    header = checks[0] if checks and "gpu" in checks[0] else {}
    values = {
        "gpu_tests": counts,
        "gpu_tests_failed": failed_words(tests),
        "gpu_check_date": header.get("date", "an unrecorded date"),
        "gpu_check_torch": header.get("torch", "an unrecorded torch"),
        "gpu_errors_words": error_words(checks, titles),
    }
    return values | prefixed("gpu", gpu_check_summary(checks, titles))


def error_words(checks: list[dict], titles: dict) -> str:
    """Whether every page of a GPU check ran without an error, or which did not."""
    failed = [titles[c["chapter"]] for c in checks if "chapter" in c and c.get("error")]
    if not failed:
        return "every page ran without an error"
    return f"{', '.join(failed)} stopped with an error"


def failed_words(tests: dict) -> str:
    """The tests that failed in a GPU check, by name (file and function), for the
    page: "none" when none did."""
    names = [
        re.sub(r"^FAILED |\s+-.*$", "", line).replace("tests/", "")
        for line in tests.get("failed", [])
    ]
    if not names:
        return "none"
    return ", ".join(names)


def cost_values(cpu_costs: pd.DataFrame) -> dict:
    """From the attention costs on one CPU thread (``attention_costs.csv``): the size
    timed (``ut_``), the positions from which the band is ahead, the masked window's
    and full attention's time over the band's, and the MiB each kept for backward at
    4,096 positions."""
    values = prefixed("ut", UT_SIZE) | {"cost_band_from": band_ahead_from(cpu_costs)}
    at = cpu_costs.set_index(["n", "attention"])
    seconds, kept_mib = at["seconds"], at["bytes"] / 2**20
    band = {n: seconds[n, ATTENTION["banded"]] for n in (1024, LONGEST)}
    for n, time in band.items():
        values[f"cost_time_{n}"] = seconds[n, ATTENTION["masked"]] / time
    values["cost_full_4096"] = seconds[LONGEST, ATTENTION["full"]] / band[LONGEST]
    kept = {key: kept_mib[LONGEST, name] for key, name in ATTENTION.items()}
    values["cost_mem_words"] = (
        "full attention even keeps less than the band"
        if kept["full"] < kept["banded"]
        else "the band keeps less than full attention too"
    )
    return values | prefixed("cost_mem", kept)


def page_values(data="data", book=".") -> dict:
    """Every value the page glues, from the files in ``data`` (``book/data``)."""
    data = Path(data)
    machine, bench = read_bench(data / "bench.jsonl")
    values = bench_values(machine, bench)
    values |= prefixed("range", chapter_range(bench))  # the opening's sentence
    devices = device_table(pd.read_csv(data / "bench_devices_gpu.csv"))
    values |= gpu_values(read_bench(data / "bench_gpu.jsonl")[0], devices)
    lines = (data / "gpu_check.jsonl").read_text().splitlines()
    values |= gpu_check_values([json.loads(line) for line in lines], book)
    costs = pd.read_csv(data / "attention_costs.csv").query("device == 'cpu'")
    values |= cost_values(costs)
    record = json.loads(sidecar_path(data / "bench.jsonl").read_text())
    values["pins_bench_cpu"] = cpu_name(record["cpu"])  # the pins entries' machine
    values["perf_act_batch"] = BOOK_ACT.batch_size  # the two-slot timings' batch
    return {key: plain(value) for key, value in values.items()}
