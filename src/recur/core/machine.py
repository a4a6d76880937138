"""Where a number came from: the CPU, its pinned numerics, torch, threads and date.

Every committed table has a sidecar, ``<table>.machine.json`` beside it, which the
methods appendix prints (:func:`read_machine_records`). A study writes it with its table
(:func:`write_machine_record`); those of tables written before the pins were recovered
from the project's history and say how sure that is (``confidence``)."""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path

import torch

from recur.core.numerics import PINNED_CAPABILITY, PINS, pins_wanted

SIDECAR = ".machine.json"


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (``lscpu``'s "Model name")."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def numerics_in_effect() -> dict:
    """The CPU numerics this process computes with: ATen's level as torch reports it,
    oneDNN's and MKL's as the environment asks them (neither can be read back), the
    torch threads, and whether they are the book's pins (``pinned``: not on a CPU
    without AVX2, nor with more than one thread)."""
    aten = torch.backends.cpu.get_cpu_capability()
    env = {name: os.environ.get(name) for name in PINS}
    threads = torch.get_num_threads()
    pinned = (
        pins_wanted()
        and aten == PINNED_CAPABILITY  # a CPU without AVX2 runs other kernels
        and env == PINS
        and threads == int(PINS["OMP_NUM_THREADS"])
    )
    return {
        "aten_capability": aten,
        "onednn_max_cpu_isa": env["ONEDNN_MAX_CPU_ISA"],
        "mkl_cbwr": env["MKL_CBWR"],
        "torch_threads": threads,
        "pinned": pinned,
    }


def machine_record(cores: int | None = None) -> dict:
    """The record a table keeps of the machine that computed it. ``cores``: how many
    it used at once (workers), when not every core of this machine."""
    return {
        "cpu": cpu_model(),
        "arch": platform.machine(),
        "cores": cores if cores is not None else os.cpu_count(),
        "torch": torch.__version__,
        **numerics_in_effect(),
        "date": datetime.date.today().isoformat(),
    }


def sidecar_path(table: str | Path) -> Path:
    """``book/data/act_tau.csv`` -> ``book/data/act_tau.machine.json``."""
    table = Path(table)
    return table.with_name(table.name.split(".")[0] + SIDECAR)


def write_machine_record(table: str | Path, cores: int | None = None, **extra) -> Path:
    """Write this machine's record beside ``table`` (``extra``: what else a reader
    needs, e.g. ``written_by``); returns the sidecar's path."""
    path = sidecar_path(table)
    record = {"table": Path(table).name} | machine_record(cores) | extra
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path


def read_machine_records(folder: str | Path) -> dict[str, dict]:
    """Every sidecar under ``folder``, keyed by its table's file name."""
    folder = Path(folder)
    records = {}
    for path in sorted(folder.rglob(f"*{SIDECAR}")):
        record = json.loads(path.read_text())
        records[str(path.parent.relative_to(folder) / record["table"])] = record
    return records
