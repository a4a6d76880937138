"""The CPU's numerics are pinned wherever the book computes (recur.core.numerics): a
short training gives the same weights whatever kernel levels the outside environment
asks for, and every entry point (a test process, a notebook kernel, a Dask worker)
reports the pins. The Dask worker's check is in tests/test_cluster.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

from recur.core import machine, numerics

# levels a machine might ask for, each other than the pins
OUTSIDE = [
    {},
    {"ATEN_CPU_CAPABILITY": "default"},
    {"ATEN_CPU_CAPABILITY": "avx512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
    {"MKL_CBWR": "AUTO"},
    {"MKL_CBWR": "AVX2", "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"},
]
LEVELS = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR", "OMP_NUM_THREADS")

TRAIN = """
import hashlib, json
import recur
from recur.chapters.ch2_shared_update import train_cell
from recur.core.machine import numerics_in_effect
run = train_cell(seed=3, max_attempts=1, n_steps=60, stop_at_exact=None,
                 eval_every=10_000, progress=False)
digest = hashlib.sha256()
for name, value in sorted(run.model.state_dict().items()):
    digest.update(name.encode() + value.numpy().tobytes())
print(json.dumps(numerics_in_effect() | {"weights": digest.hexdigest()}))
"""


def _run(code: str, outside: dict, unpinned: bool = False) -> dict:
    """``code`` in a fresh Python whose environment asks for ``outside``'s levels
    (and for none of the pins), its last line read as JSON."""
    env = {k: v for k, v in os.environ.items() if k not in LEVELS}
    env |= outside | ({numerics.UNPINNED: "1"} if unpinned else {})
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.real_devices
def test_a_training_gives_the_same_weights_whatever_the_environment_asks():
    runs = [_run(TRAIN, outside) for outside in OUTSIDE]
    assert all(run["pinned"] for run in runs), runs
    assert {run["aten_capability"] for run in runs} <= {"AVX2", "DEFAULT"}
    assert len({run["weights"] for run in runs}) == 1, runs


@pytest.mark.real_devices
def test_without_the_pins_the_same_training_learns_other_weights():
    """The control: what the pins guard against happens on this CPU (MKL's own code
    path against its compatible one), so the test above can fail."""
    own, compatible = (
        _run(TRAIN, {"MKL_CBWR": level}, unpinned=True)
        for level in ("AUTO", "COMPATIBLE")
    )
    assert not own["pinned"] and not compatible["pinned"]
    assert own["weights"] != compatible["weights"]


def test_this_test_process_computes_with_the_pins():
    record = machine.numerics_in_effect()
    assert record["pinned"], record
    assert record["mkl_cbwr"] == "COMPATIBLE"
    assert record["onednn_max_cpu_isa"] == "AVX2"
    assert record["torch_threads"] == 1


def test_a_notebook_kernel_computes_with_the_pins():
    """A kernel started as nbval and the book's build start theirs, from an
    environment that asks for other levels; the chapters' first import pins it."""
    asked = os.environ | {"ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": "AUTO"}
    manager, client = start_new_kernel(kernel_name="python3", env=asked)
    try:
        code = (
            "import json, recur\n"
            "from recur.core.machine import numerics_in_effect\n"
            "print(json.dumps(numerics_in_effect()))"
        )
        printed = []
        client.execute_interactive(
            code,
            timeout=120,
            output_hook=lambda m: printed.append(m["content"].get("text", "")),
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    record = json.loads("".join(printed))
    assert record["pinned"], record
    assert record["aten_capability"] in ("AVX2", "DEFAULT")


def test_torch_run_before_recur_is_reported():
    code = (
        "import warnings, json, torch\n"
        "torch.ones(2) + 1\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    import recur\n"
        "print(json.dumps([str(w.message) for w in seen]))"
    )
    seen = _run(code, {"ATEN_CPU_CAPABILITY": "avx512"})
    if not seen:
        pytest.skip("this CPU has no AVX-512: torch's own choice is the pinned one")
    assert "import recur before torch" in seen[0]


@pytest.mark.real_devices
def test_torch_imported_first_still_trains_the_pinned_weights():
    """Importing torch (without computing) before recur: the pins still hold, the
    threads that torch counted at its import included."""
    pinned = _run(TRAIN.replace("import recur\n", "import torch, recur\n"), OUTSIDE[4])
    assert pinned["pinned"] and pinned["torch_threads"] == 1, pinned
    assert pinned["weights"] == _run(TRAIN, {})["weights"]


def test_unpinned_leaves_the_environment_alone(monkeypatch):
    monkeypatch.setenv(numerics.UNPINNED, "1")
    monkeypatch.setenv("MKL_CBWR", "AUTO")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numerics.pin_cpu_numerics() == {}
    assert os.environ["MKL_CBWR"] == "AUTO"
    assert not machine.numerics_in_effect()["pinned"]


def test_a_tables_record_sits_beside_it_and_reads_back(tmp_path):
    table = tmp_path / "act_tau.csv"
    table.write_text("a\n1\n")
    path = machine.write_machine_record(table, cores=2, written_by="a study")
    assert path == tmp_path / "act_tau.machine.json"
    record = machine.read_machine_records(tmp_path)["act_tau.csv"]
    assert record["cores"] == 2 and record["written_by"] == "a study"
    assert record["pinned"] and record["aten_capability"] in ("AVX2", "DEFAULT")
    assert record["cpu"] and record["torch"].startswith("2.")


def _tables() -> list:
    data = Path(__file__).parents[1] / "book" / "data"
    found = [*data.glob("*.csv"), *data.glob("*.json*"), *data.glob("*/*.csv")]
    return sorted(p for p in found if not p.name.endswith(machine.SIDECAR))


@pytest.mark.parametrize("table", _tables(), ids=lambda p: p.name)
def test_every_committed_table_says_where_it_ran(table):
    record = json.loads(machine.sidecar_path(table).read_text())
    assert record["table"] == table.name
    assert record["cpu"] and record["date"] and record["torch"]
    assert isinstance(record["pinned"], bool)
