"""Print the performance table, one JSON object per line: {"name", "value", "unit"},
and write it to ``book/data/bench.jsonl`` (first line: the machine) for the book's
Performance page; ``bench_attention`` also writes ``book/data/attention_costs.csv``.

Run with `make bench`. Timings are medians of repeated runs on this machine; the book
reads nothing from here by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import torch
from nbclient import NotebookClient

from last_run import recorded
from recur.chapters.ch2_shared_update import length_generalization, train_cell
from recur.chapters.ch7_costs import attention_costs
from recur.chapters.ch7_fixed_points import train_deq, training_memory
from recur.core.carry import longest_chains, parallel_add
from recur.core.device import cpu_threads
from recur.core.machine import machine_record, sidecar_path, write_machine_record
from recur.core.seeds import BENCH_CELL_SUMS, BENCH_SUMS, by_name
from recur.core.tasks import random_batch
from recur.models import attention
from recur.models.attention import UTBlock, sinusoid
from recur.models.ut import UniversalTransformer
from recur.studies.seed_study import seed_runs
from recur.training.cell_variants import train_variant
from recur.training.config import TrainConfig
from recur.training.evaluate import evaluate
from recur.training.loop import seconds_per_step
from recur.training.ut_recipe import BOOK_ACT, UT_SIZE, train_ut

BOOK = DEFAULT_BOOK = Path(__file__).resolve().parents[1] / "book"
RESULTS: list[dict] = []
RUNNING: list[str] = []  # the bench_* function running now, without "bench_"


def emit(name: str, value: float, unit: str) -> None:
    """One entry, marked with the bench_* function that wrote it (``by``)."""
    row = {"name": name, "value": round(value, 4), "unit": unit}
    row |= {"by": RUNNING[-1]} if RUNNING else {}
    RESULTS.append(row)
    print(json.dumps(row), flush=True)


def run_bench(name: str, *args, **kwargs) -> None:
    """Run ``bench_NAME(*args, **kwargs)``; its entries are marked ``"by": NAME``."""
    RUNNING.append(name)
    try:
        globals()[f"bench_{name}"](*args, **kwargs)
    finally:
        RUNNING.pop()


def machine() -> dict:
    """What the numbers were measured on: the CPU and its numerics
    (:func:`recur.core.machine.machine_record`) and the GPU, if any."""
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    record = machine_record()
    return {
        "machine": platform.machine(),
        "cpu cores": os.cpu_count(),
        "torch": torch.__version__,
        "gpu": gpu,
        "date": time.strftime("%Y-%m-%d"),
    } | {k: record[k] for k in ("cpu", "aten_capability", "mkl_cbwr", "pinned")}


def write_results(path: Path, keep: tuple[str, ...] = ()) -> None:
    """The machine and RESULTS to ``path``; entries of the old file whose names start
    with one of ``keep`` and that RESULTS has not measured stay, so that a run never
    leaves the book without a number it reads."""
    new = {row["name"] for row in RESULTS}
    old = [json.loads(line) for line in path.read_text().splitlines()[1:]] if (
        keep and path.exists()) else []  # fmt: skip
    kept = [r for r in old if r["name"].startswith(keep) and r["name"] not in new]
    lines = [json.dumps(machine())] + [json.dumps(row) for row in kept + RESULTS]
    path.write_text("\n".join(lines) + "\n")
    write_machine_record(path, written_by="make bench")


def median_seconds(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_carry() -> None:
    """Chapter 1's exact rule: one parallel-carry trace of two random 4,096-bit numbers,
    one of a chain across all 4,096 positions, and the longest chains of 10,000 random
    4,096-bit pairs; each the median of five runs."""
    rng = np.random.default_rng(0)
    a, b = ("".join(rng.choice(["0", "1"], 4096)) for _ in range(2))
    emit("carry_trace_4096bit_random", median_seconds(lambda: parallel_add(a, b)), "s")
    worst = ("1" * 4096, "1")  # the carry walks all 4096 positions
    emit("carry_trace_4096bit_worst", median_seconds(lambda: parallel_add(*worst)), "s")
    emit(
        "carry_chains_10000_pairs_4096bit",
        median_seconds(lambda: longest_chains(10_000, 4096, seed=0)),
        "s",
    )


def bench_shared() -> None:
    """Chapter 2's cell as the chapter trains it (``train_cell``: to 100% held-out and a
    passed check, a restart if none passes): seconds (median of three seeds, CPU, the
    library's thread choice), then exact match on wider sums with width + 1 rounds."""
    runs = [train_cell(seed, device="cpu", progress=False) for seed in range(3)]
    emit("shared_runs_not_passing", sum(not r.passed for r in runs), "of 3 seeds")
    emit("shared_restarted", sum(r.attempts > 1 for r in runs), "of 3 seeds")
    emit("shared_seconds_to_pass_8bit", statistics.median(r.seconds for r in runs), "s")
    sizes = {16: 2000, 64: 1000, 256: 300, 1024: 100}
    table = length_generalization(
        runs[0].model, sizes, {"width + 1": 1.0}, seed=BENCH_CELL_SUMS
    )
    for n_bits in sizes:
        exact = float(table.loc[n_bits, "exact: width + 1"])
        emit(
            f"shared_exact_match_{n_bits}bit",
            exact,
            f"fraction of {sizes[n_bits]} sums",
        )


def _seconds_to_exact(n_threads: int | None, busy: bool) -> float:
    """Chapter 2's training (seed 0) to 100% held-out, optionally beside one busy
    process (a Python loop that keeps one core fully used)."""
    neighbour = (
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    )
    try:
        _, run = train_variant(True, 1, seed=0, device="cpu", n_threads=n_threads)
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
    return run.seconds_to(1.0)


def bench_under_load(repeats: int = 2) -> None:
    """``shared_under_load_ratio``: seconds to exact 8-bit beside one busy process over
    seconds alone, with the library's thread choice, and the same for 2 threads
    (torch's default on 2 cores). One warm-up, then the four settings interleaved."""
    _seconds_to_exact(None, busy=False)  # warm-up
    settings = [(None, False), (None, True), (2, False), (2, True)]
    times = {key: [] for key in settings}
    for _ in range(repeats):
        for n_threads, busy in settings:
            times[n_threads, busy].append(_seconds_to_exact(n_threads, busy))
    for n_threads, label in ((None, ""), (2, "_2_threads")):
        alone = statistics.median(times[n_threads, False])
        loaded = statistics.median(times[n_threads, True])
        emit(f"shared_seconds_alone{label}", alone, "s")
        emit(f"shared_seconds_beside_busy{label}", loaded, "s")
        emit(f"shared_under_load_ratio{label}", loaded / alone, "ratio")


def _pins_run(pinned: bool) -> dict:
    """``pins_cost.py`` in a fresh process, pinned or not (one thread either way)."""
    levels = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")
    env = {k: v for k, v in os.environ.items() if pinned or k not in levels}
    env |= {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env |= {} if pinned else {"RECUR_UNPINNED": "1"}
    script = Path(__file__).with_name("pins_cost.py")
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, check=True
    )
    return json.loads(done.stdout.decode().splitlines()[-1])


def bench_pins(repeats: int = 4) -> None:
    """``pins_slowdown_*``: seconds of Chapter 2's and Chapter 6's trainings with the
    CPU's numerics pinned (``recur.core.numerics``) over the same with this CPU's own
    kernels, one thread each; fresh processes, interleaved, after one warm-up pair."""
    runs = {True: [], False: []}
    for i in range(repeats + 1):
        for pinned in (True, False):
            run = _pins_run(pinned)
            assert run["pinned"] == pinned, run
            if i:  # the first pair warms the disk cache and the CPU's clock
                runs[pinned].append(run)
    for name in ("cell", "act_ut"):
        pinned = statistics.median(r[f"{name}_seconds"] for r in runs[True])
        own = statistics.median(r[f"{name}_seconds"] for r in runs[False])
        emit(f"pins_{name}_seconds_pinned", pinned, "s")
        emit(f"pins_{name}_seconds_unpinned", own, "s")
        emit(f"pins_slowdown_{name}", pinned / own, "ratio")


def bench_ut_step(d_model: int = 256, n_heads: int = 8, d_ff: int = 1024) -> None:
    """Forward + backward of one UT round against torch's TransformerEncoderLayer of the
    same width, heads and feed-forward size (post-LN, ReLU, no dropout), same batch,
    2 threads, each timed with the other interleaved."""
    x = torch.randn(16, 64, d_model)
    block = UTBlock(d_model, n_heads, d_ff)
    signal = sinusoid(torch.arange(64), d_model)
    ref = torch.nn.TransformerEncoderLayer(
        d_model, n_heads, d_ff, dropout=0.0, batch_first=True
    )

    def ut_round():
        block(x + signal, None).sum().backward()

    def torch_layer():
        ref(x).sum().backward()

    with cpu_threads(2, torch.device("cpu")):
        ut_round(), torch_layer()  # warm-up
        pairs = [
            (median_seconds(ut_round, 1), median_seconds(torch_layer, 1))
            for _ in range(20)
        ]  # A B A B ...: interleaved against noise
    ut, base = (statistics.median(column) for column in zip(*pairs, strict=True))
    emit("ut_step_ratio_vs_torch_encoder_layer", ut / base, "ratio")


# No recipe was chosen on these seeds (100-109 were used to choose BOOK_ACT's pieces,
# 1,000 and up are train_book_act's restarts).
SEEDS_NEVER_CHOSEN_ON = tuple(by_name("benchmark").seeds)


def bench_act_ut(jobs: int = 1) -> None:
    """Chapter 6's model (``train_book_act``: BOOK_ACT with its check, 3 runs at most),
    trained on the CPU only on sums of at most 8 bits, for ten seeds (300-309) that no
    recipe was chosen on: ``act_ut_seeds_ok``, how many met Chapter 6's bar
    (``act_succeeded``: >= 99% random and >= 97% long-chain sums exact at 8 to 64 bits,
    cap 2 (n + 1), <= 0.5 steps beyond the carry at 8 bits) on 300 fresh random and
    100 fresh long-chain sums per width; the median and slowest training time (restart
    included); the worst exact match over the seeds at each width; and the largest
    mean steps beyond the carry at 8 bits."""
    runs = seed_runs(
        ("BOOK_ACT",),
        SEEDS_NEVER_CHOSEN_ON,
        sums_seed=BENCH_SUMS,
        jobs=jobs,
        device="cpu",
        progress=False,
    )
    per_seed = runs.groupby("seed")[["success", "train seconds", "runs"]].first()
    n = len(per_seed)
    first, last = SEEDS_NEVER_CHOSEN_ON[0], SEEDS_NEVER_CHOSEN_ON[-1]
    met = int(per_seed["success"].sum())
    emit("act_ut_seeds_ok", met, f"of {n} seeds ({first}-{last})")
    emit("act_ut_training_seconds", per_seed["train seconds"].median(), "s, median")
    emit("act_ut_training_seconds_slowest", per_seed["train seconds"].max(), "s")
    emit("act_ut_restarted", int((per_seed["runs"] > 1).sum()), f"of {n} seeds")
    worst = runs.groupby("bits")[["exact", "exact, long chains"]].min()
    for n_bits, row in worst.iterrows():
        emit(f"act_ut_exact_{n_bits}bit", row["exact"], f"fraction, worst of {n}")
        emit(f"act_ut_exact_{n_bits}bit_long_chains", row["exact, long chains"],
             f"fraction, worst of {n}")  # fmt: skip
    beyond = runs.loc[runs["bits"] == 8, "steps beyond the carry"].max()
    emit("act_ut_steps_beyond_carry", beyond, f"steps, 8-bit sums, worst of {n}")


def _first_steps(paths: str, n_steps: int = 100) -> tuple[float, bytes]:
    """Seconds for the first ``n_steps`` of Chapter 6's training (BOOK_ACT, seed 0,
    one thread) with banded attention's window of one computed by ``two_slots`` or,
    with ``paths="unfolded"``, by the general ``unfolded_slots``; and the trained
    weights' bytes."""
    fast = attention.two_slots
    if paths == "unfolded":
        attention.two_slots = (
            attention.unfolded_slots
        )  # banded_attention looks it up at each call
    try:
        with cpu_threads(1, torch.device("cpu")):
            start = time.perf_counter()
            model, _ = train_ut(_timed_book_act(n_steps))
            seconds = time.perf_counter() - start
    finally:
        attention.two_slots = fast
    return seconds, b"".join(v.numpy().tobytes() for v in model.state_dict().values())


def _timed_book_act(n_steps: int):
    """BOOK_ACT for a timing: ``n_steps`` steps on the CPU, quiet, no stop and no
    held-out check in between."""
    return BOOK_ACT.but(
        n_steps=n_steps,
        stop_at_exact=None,
        eval_every=1000,
        device="cpu",
        progress=False,
    )


def bench_two_slots(repeats: int = 4) -> None:
    """Chapter 6's training steps with the window-of-one attention (``two_slots``)
    against the general unfolded one, interleaved A B A B after a warm-up of each:
    seconds per 100 steps (median), their ratio, and whether the weights came out the
    same bit for bit."""
    _first_steps("two"), _first_steps("unfolded")  # warm-up
    times: dict[str, list] = {"two": [], "unfolded": []}
    weights = set()
    for _ in range(repeats):
        for paths in ("two", "unfolded"):
            seconds, state = _first_steps(paths)
            times[paths].append(seconds)
            weights.add(state)
    two, unfolded = (statistics.median(times[k]) for k in ("two", "unfolded"))
    emit("two_slots_seconds_per_100_steps", two, "s")
    emit("two_slots_seconds_per_100_steps_unfolded", unfolded, "s")
    emit("two_slots_over_unfolded", two / unfolded, "time ratio")
    emit("two_slots_same_weights", float(len(weights) == 1), "1 = bit for bit")


def bench_rows_only(repeats: int = 5, trained_steps: int = 600) -> None:
    """Chapter 6's training step after ``trained_steps`` steps (BOOK_ACT, seed 0, one
    thread, when its sums ponder many rounds) with every sum stepped every round
    against only the sums with a running position (``train_rows_only``), from copies
    of the same model, interleaved A B A B after a warm-up of each: seconds per step
    (median of ``repeats``, each the mean of 50 steps) and their ratio."""
    with cpu_threads(1, torch.device("cpu")):
        trained, run = train_ut(_timed_book_act(trained_steps))

        def per_step(rows_only: bool) -> float:
            rule = replace(trained.options.halting, train_rows_only=rows_only)
            options = replace(trained.options, halting=rule)
            model = UniversalTransformer(options)  # the same weights, the other path
            model.load_state_dict(trained.state_dict())
            return seconds_per_step(model, run.config, n_steps=50)

        per_step(False), per_step(True)  # warm-up
        pairs = [(per_step(False), per_step(True)) for _ in range(repeats)]
    every, running = (statistics.median(column) for column in zip(*pairs, strict=True))
    emit("rows_only_seconds_per_step_every_sum", every, "s")
    emit("rows_only_seconds_per_step_running_sums", running, "s")
    emit("rows_only_over_every_sum", running / every, "time ratio")


BATCH_SIZES = (64, 256, 1024, 4096)


def _step_models():
    """Chapter 2's cell and Chapter 6's model with their training settings."""
    from recur.models.cell import LocalCell
    from recur.models.ut import UniversalTransformer

    yield "shared", LocalCell, {"max_bits": 8, "lr": 1e-2}
    yield "act_ut", lambda: UniversalTransformer(BOOK_ACT.model), {
        "max_bits": 8, "n_rounds": BOOK_ACT.n_rounds, "lr": BOOK_ACT.lr,
        "chain_share": BOOK_ACT.chain_share}  # fmt: skip


def devices() -> list[str]:
    found = ["cpu"]
    if torch.cuda.is_available():
        found.append("cuda")
    return found


def bench_devices(
    batch_sizes=BATCH_SIZES, n_steps: int = 10, out: str | Path = "bench_devices.csv"
) -> pd.DataFrame:
    """Seconds per 100 training steps of Chapter 2's cell and Chapter 6's model on
    every device found (the CPU with the library's one thread, CUDA when present), at
    the book's batch size (64) and larger ones: where a GPU starts to pay. Devices
    interleaved per model and batch size (A B A B ...), each timed over ``n_steps``
    steps after a warm-up, the better of two rounds. The models are fresh: their
    positions halt after about two rounds, as at the start of training. Writes
    ``book/data/bench_devices.csv`` (``out``)."""
    rows = []
    for name, make, settings in _step_models():
        for batch in batch_sizes:
            times = {device: [] for device in devices()}
            for _ in range(2):
                for device in times:
                    torch.manual_seed(0)
                    cfg = TrainConfig(batch_size=batch, device=device, seed=0,
                                      progress=False, **settings)  # fmt: skip
                    times[device].append(seconds_per_step(make(), cfg, n_steps))
            for device, seconds in times.items():
                per_100 = 100 * min(seconds)
                rows.append({"model": name, "batch": batch, "device": device,
                             "seconds per 100 steps": per_100})  # fmt: skip
                emit(f"{name}_seconds_per_100_steps_b{batch}_{device}", per_100, "s")
    table = pd.DataFrame(rows)
    table.to_csv(BOOK / "data" / out, index=False)  # an absolute ``out`` stays as is
    write_machine_record(BOOK / "data" / out, written_by="make bench")
    return table


def bench_attention(out: Path = BOOK / "data" / "attention_costs.csv") -> None:
    """One UT round (the book's size, UT_SIZE) with full, masked-local and
    banded-local attention (window 1) for n = 64 ... 4,096 positions, one thread on the
    CPU (and on the GPU when there is one): the fastest of 5 interleaved runs and the
    bytes kept for backward. Writes ``book/data/attention_costs.csv``."""
    torch.manual_seed(0)
    block = UTBlock(UT_SIZE["d_model"], UT_SIZE["n_heads"], UT_SIZE["d_ff"])
    sizes = [64, 256, 1024, 2048, 4096]
    with cpu_threads(1, torch.device("cpu")):
        table = attention_costs(block, sizes, repeats=5)
    table["device"] = "cpu"
    if torch.cuda.is_available():
        gpu = attention_costs(block.to("cuda"), sizes, repeats=5)
        table = pd.concat([table, gpu.assign(device="cuda")], ignore_index=True)
    table.to_csv(out, index=False)
    write_machine_record(out, written_by="make bench")
    for device, rows in table.groupby("device"):
        at = rows.set_index(["n", "attention"])
        for n in (1024, 4096):
            ratio = (
                at.loc[(n, "masked local"), "seconds"]
                / at.loc[(n, "banded local"), "seconds"]
            )
            emit(f"attention_masked_over_banded_{n}_{device}", ratio, "time ratio")


def bench_deq() -> None:
    """Chapter 7's DEQ cell, three seeds trained with the chapter's procedure (its
    check and restart, ``train_deq``): seconds to a passed check, every run counted
    (median), exact match on 200 random 1,024-bit sums (worst seed), bytes kept
    for backward at 4x the iterations over 1x (implicit and unrolled), and the peak
    resident memory of one training step on 64 sums of 1,024 bits at 9 and 36 rounds or
    iterations, each in a fresh process (``peak_memory.py``)."""
    seconds, exact = [], []
    for seed in range(3):
        checked = train_deq(seed=seed, progress=False, device="cpu")
        deq = checked.model
        seconds.append(checked.seconds)
        batch = random_batch(200, 1024, seed=BENCH_SUMS + seed)
        exact.append(float(evaluate(deq, batch, 2050).exact[-1]))
    emit("deq_seconds_to_exact_8bit", statistics.median(seconds),
         "s to a passed check, median of 3")  # fmt: skip
    emit("deq_exact_1024bit", min(exact), "fraction of 200 sums, worst of 3 seeds")
    memory = training_memory(deq, 16, 64, [9, 36]).set_index(["method", "rounds"])
    for method in ("implicit", "unrolled backprop"):
        ratio = memory.loc[(method, 36), "bytes"] / memory.loc[(method, 9), "bytes"]
        emit(f"deq_memory_4x_over_1x_{method.split()[0]}", ratio, "ratio")
    script = Path(__file__).with_name("peak_memory.py")
    for method in ("implicit", "unrolled"):
        median = {}
        for n_rounds in (9, 36):  # a fresh process each: the peak is a high-water mark
            peaks = [_peak_mib(script, method, n_rounds) for _ in range(PEAK_REPEATS)]
            median[n_rounds] = statistics.median(peaks)
            unit = f"MiB above baseline, 64 x 1,024 bits, median of {PEAK_REPEATS}"
            emit(f"deq_peak_mib_{method}_{n_rounds}", median[n_rounds], unit)
            emit(f"deq_peak_mib_{method}_{n_rounds}_min", min(peaks), "MiB")
            emit(f"deq_peak_mib_{method}_{n_rounds}_max", max(peaks), "MiB")
        emit(f"deq_peak_4x_over_1x_{method}", median[36] / median[9], "ratio")


PEAK_REPEATS = 5  # fresh processes per peak: one read 0.94 and 1.29 on one commit


def _peak_mib(script: Path, method: str, n_rounds: int) -> float:
    """One fresh process's peak growth (``peak_memory.py``), in MiB."""
    out = subprocess.run(
        [sys.executable, str(script), method, str(n_rounds)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split()[-1])


def bench_chapters(names: list[str] = ()) -> None:
    """Each chapter's execution time on the CPU (``RECUR_DEVICE=cpu`` for its kernel),
    like the other CPU entries; ``names``: only these chapters (file stems), else all
    (``--only chapters``)."""
    os.environ["RECUR_DEVICE"] = "cpu"  # the kernels inherit it
    for path in sorted(BOOK.glob("*.ipynb")):
        if (names and path.stem not in names) or path.stem == "performance":
            continue  # the Performance page reads the file this run writes
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb, timeout=600, resources={"metadata": {"path": str(BOOK)}}
        )
        start = time.perf_counter()
        client.execute()
        emit(f"chapter_seconds_{path.stem}", time.perf_counter() - start, "s")


def gpu_bench() -> None:
    """``--gpu``: the entries a GPU changes (devices side by side, attention on every
    device), written to ``book/data/bench_gpu.jsonl`` beside ``bench.jsonl``."""
    run_bench("devices", out="bench_devices_gpu.csv")
    run_bench("attention", BOOK / "data" / "attention_costs_gpu.csv")
    write_results(BOOK / "data" / "bench_gpu.jsonl")


# make bench's bench_* functions, in order (bench_chapters runs after them)
CPU_BENCHES = ("carry", "shared", "under_load", "ut_step", "two_slots", "rows_only")
CPU_BENCHES += ("act_ut", "deq", "pins")
CPU_BENCHES += ("attention", "devices")


def update(names: list[str], path: Path = BOOK / "data" / "bench.jsonl") -> None:
    """``--only NAME ...``: rerun some entries (``act_ut``, ``devices``, ...: the
    ``bench_*`` functions) and replace theirs in ``path``: every old entry that one of
    them wrote (``by``) or that has a name written now. The first line, the machine,
    stays the last full run's; the machine record says which entries ran where.
    Entries of other functions stay, whatever their names (``act_ut`` must not drop
    ``act_ut_two_slots_*``)."""
    old = [json.loads(line) for line in path.read_text().splitlines()]
    for name in names:
        run_bench(name)
    new = {row["name"] for row in RESULTS}
    kept = [r for r in old[1:] if r["name"] not in new and r.get("by") not in names]
    RESULTS[:0] = kept
    sidecar = sidecar_path(path)
    earlier = json.loads(sidecar.read_text()) if sidecar.exists() else None
    write_results(path)
    lines = path.read_text().splitlines()  # the header stays the full run's machine
    path.write_text("\n".join([json.dumps(old[0]), *lines[1:]]) + "\n")
    # which entries this machine wrote; the run that wrote the others (``earlier``)
    written_by = f"make bench --only {' '.join(names)} (these entries)"
    write_machine_record(path, written_by=written_by, earlier=earlier)


def main() -> None:
    parser = argparse.ArgumentParser(description="make bench: the performance table.")
    parser.add_argument("chapters", nargs="*", help="only these chapters' times")
    parser.add_argument("--gpu", action="store_true", help="only the GPU entries")
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help=f"rerun these entries in place: {', '.join(CPU_BENCHES)}",
    )
    args = parser.parse_args()
    if args.gpu:
        return gpu_bench()
    if args.only:
        return update(args.only)
    path = BOOK / "data" / "bench.jsonl"
    with recorded("make bench", full=not args.chapters and BOOK == DEFAULT_BOOK):
        for name in CPU_BENCHES:
            run_bench(name)
        write_results(path, keep=("chapter_seconds_",))  # the chapters read old times
        run_bench("chapters", args.chapters)
        write_results(path)
        if torch.cuda.is_available():
            RESULTS.clear()
            gpu_bench()


if __name__ == "__main__":
    main()
