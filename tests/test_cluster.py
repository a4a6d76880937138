"""The studies on a Dask cluster (recur.studies.cluster): the same rows as a serial
run, each result kept as it comes (a study resumes), a killed worker's job run again."""

import json
import os
import signal
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from distributed import Client

from recur.core.device import jobs_run_by
from recur.models.halting import ActHalting
from recur.studies import cluster
from recur.studies.sweeps import act_runs
from recur.training.ut_recipe import FIRST_ACT

pytestmark = pytest.mark.real_devices  # the workers train on the real CPU

VARIANTS = {
    "plain": FIRST_ACT,
    "tau 0.1": FIRST_ACT.but(halting=ActHalting(ponder_weight=0.1)),
}
TINY = {"widths": (4,), "n_sums": 10, "n_steps": 30, "eval_every": 10,
        "eval_size": 50, "max_bits": 4, "device": "cpu"}  # fmt: skip
SEEDS = [0, 1, 2]


def _without_seconds(table: pd.DataFrame) -> pd.DataFrame:
    return table[[c for c in table.columns if "seconds" not in c]]


@pytest.fixture(scope="module")
def serial() -> pd.DataFrame:
    return act_runs(VARIANTS, SEEDS, **TINY)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as local, Client(local) as c:  # fmt: skip
        yield c


def _study(client, folder) -> tuple[pd.DataFrame, object]:
    runner = cluster.ClusterJobs(client, cluster.ResultStore(folder))
    with jobs_run_by(runner):
        return act_runs(VARIANTS, SEEDS, **TINY), runner


def test_a_study_on_the_cluster_has_the_serial_rows(client, serial, tmp_path):
    table, _ = _study(client, tmp_path)
    pd.testing.assert_frame_equal(_without_seconds(table), _without_seconds(serial))
    assert len(list(tmp_path.glob("*.pkl"))) == len(VARIANTS) * len(SEEDS)


def test_a_stopped_study_resumes_from_what_it_kept(client, serial, tmp_path):
    _study(client, tmp_path)
    kept = sorted(tmp_path.glob("*.pkl"))
    kept[0].unlink()  # a job the stopped run had not finished
    store = cluster.ResultStore(tmp_path)
    marked = store.load(kept[1].stem)
    marked[0]["exact"] = -1.0  # a kept result is read, not recomputed
    store.save(kept[1].stem, marked)
    before = {p.name: p.stat().st_mtime_ns for p in kept[2:]}
    table, _ = _study(client, tmp_path)
    assert (table["exact"] == -1.0).sum() == 1
    assert kept[0].exists()  # the missing one was run and kept
    assert {p.name: p.stat().st_mtime_ns for p in kept[2:]} == before
    table.loc[table["exact"] == -1.0, "exact"] = serial.loc[
        table["exact"] == -1.0, "exact"
    ]
    pd.testing.assert_frame_equal(_without_seconds(table), _without_seconds(serial))


def test_a_killed_worker_loses_nothing(client, serial, tmp_path):
    """A worker process is killed while the study runs; its job runs again elsewhere
    and the table comes out whole, equal to the serial one."""
    pids = list(client.run(os.getpid).values())
    killed = []

    def kill_one_when_a_result_is_kept():
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("*.pkl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(pids[0], signal.SIGKILL)
        killed.append(pids[0])

    killer = threading.Thread(target=kill_one_when_a_result_is_kept)
    killer.start()
    table, _ = _study(client, tmp_path)
    killer.join()
    assert killed
    assert pids[0] not in client.run(os.getpid).values()  # a new worker took its place
    pd.testing.assert_frame_equal(_without_seconds(table), _without_seconds(serial))


def test_the_same_job_has_the_same_key_in_every_run():
    from recur.studies.sweeps import SweepJob, _length_rows, _sweep_rows

    job = SweepJob("plain", 3, FIRST_ACT.but(n_steps=2), _length_rows)
    same = SweepJob("plain", 3, FIRST_ACT.but(n_steps=2), _length_rows)
    other = SweepJob("plain", 4, FIRST_ACT.but(n_steps=2), _length_rows)
    assert cluster.task_key(_sweep_rows, job) == cluster.task_key(_sweep_rows, same)
    assert cluster.task_key(_sweep_rows, job) != cluster.task_key(_sweep_rows, other)


def test_jobs_that_differ_only_in_a_late_setting_have_different_keys():
    """The key hashes the whole job: two jobs alike in every setting but the last
    (far past the first 40 characters of the job's text) are two jobs."""
    from recur.studies.sweeps import SweepJob, _length_rows, _sweep_rows

    job = SweepJob("plain", 3, FIRST_ACT.but(n_threads=1), _length_rows)
    late = SweepJob("plain", 3, FIRST_ACT.but(n_threads=2), _length_rows)
    assert repr(job).index("n_threads=") > 400  # the recipe's last field
    assert cluster.task_key(_sweep_rows, job) != cluster.task_key(_sweep_rows, late)


def test_a_changed_function_changes_the_code_fingerprint(tmp_path):
    """The key holds a fingerprint of the code: one changed line of one function, or a
    file added, gives another."""
    module = tmp_path / "pkg" / "steps.py"
    module.parent.mkdir()
    module.write_text("def n_steps():\n    return 100\n")
    before = cluster.code_fingerprint.__wrapped__((tmp_path,))
    assert cluster.code_fingerprint.__wrapped__((tmp_path,)) == before  # stable
    module.write_text("def n_steps():\n    return 101\n")
    changed = cluster.code_fingerprint.__wrapped__((tmp_path,))
    assert changed != before
    (tmp_path / "pkg" / "more.py").write_text("")
    assert cluster.code_fingerprint.__wrapped__((tmp_path,)) not in (before, changed)


def test_a_study_resumed_after_a_code_change_reuses_nothing(client, serial, tmp_path):
    """Results kept by a run of other code (their keys carry another fingerprint) are
    dropped, not read: the table is the serial one, not the marked old results."""
    _study(client, tmp_path)
    store = cluster.ResultStore(tmp_path)
    for path in tmp_path.glob("*.pkl"):
        name, code, digest = path.stem.rsplit("-", 2)
        old = f"{name}-{'0' * len(code)}-{digest}"  # the same job, other code
        marked = store.load(path.stem)
        marked[0]["exact"] = -1.0
        store.save(old, marked)
        path.unlink()
    table, _ = _study(client, tmp_path)
    assert (table["exact"] != -1.0).all()
    assert not list(tmp_path.glob("*-000000000000-*.pkl"))  # dropped
    pd.testing.assert_frame_equal(_without_seconds(table), _without_seconds(serial))


def test_seed_ranges_on_the_command_line():
    assert cluster.seed_range("40-41") == [40, 41]
    assert cluster.seed_range("7") == [7]
    for bad in ("41-40", "a-b", "-3", ""):
        with pytest.raises(Exception, match="--seeds takes A-B"):
            cluster.seed_range(bad)


def test_only_a_run_into_book_data_is_a_full_run(tmp_path):
    assert cluster.writes_the_books_tables(cluster.DATA)
    assert not cluster.writes_the_books_tables(tmp_path)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def scheduler_by_hand():
    """A scheduler and two workers started as the README starts them on other
    machines (``dask scheduler``, ``dask worker ADDRESS``): their address."""
    import subprocess
    import sys

    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    # levels other than the pins: a worker's first task pins them (recur's import)
    env = os.environ | {"ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": "AUTO"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    scheduler = [dask, "scheduler", "--host", "127.0.0.1", "--port", port]
    started = [subprocess.Popen([*scheduler, "--dashboard-address", ":0"], **quiet)]
    started += [
        subprocess.Popen([dask, "worker", address, "--nthreads", "1"], **quiet)
        for _ in range(2)
    ]
    try:
        with Client(address, timeout=60) as c:
            c.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=30)


def test_a_study_against_a_scheduler_by_address_has_the_serial_rows(
    scheduler_by_hand, serial, tmp_path
):
    """What ``--scheduler tcp://HOST:PORT`` does: the study's jobs go to the workers of
    that scheduler, each result is kept, the log written, and the rows are the serial
    run's."""
    with cluster.study_cluster(
        "tiny", scheduler=scheduler_by_hand, out=tmp_path
    ) as jobs:
        table = act_runs(VARIANTS, SEEDS, **TINY)
        assert jobs.client.scheduler.address == scheduler_by_hand
        kept = list((tmp_path / ".partial" / "tiny").glob("*.pkl"))
        jobs.finish()
    pd.testing.assert_frame_equal(_without_seconds(table), _without_seconds(serial))
    assert len(kept) == len(VARIANTS) * len(SEEDS)
    assert not (tmp_path / ".partial" / "tiny").exists()
    log = (tmp_path / "tiny.log").read_text()
    assert f"{len(kept)}/{len(kept)} done" in log


def test_the_workers_started_by_hand_compute_with_the_pins(scheduler_by_hand):
    """``dask worker ADDRESS`` started from an environment that asks for other
    levels: the first task imports recur there, which pins them before torch."""
    with Client(scheduler_by_hand, timeout=60) as client:
        jobs = cluster.ClusterJobs(client, cluster.ResultStore(Path("unused")))
        records = jobs.check_pins()
    assert len(records) == 2
    assert all(r["pinned"] and r["torch_threads"] == 1 for r in records), records


def test_a_studys_table_records_its_workers_machine(tmp_path):
    with cluster.study_cluster("tiny", jobs=1, out=tmp_path) as jobs:
        table = tmp_path / "tiny.csv"
        table.write_text("seed\n0\n")
        jobs.record(table)
    record = json.loads((tmp_path / "tiny.machine.json").read_text())
    assert record["pinned"] and record["cores"] == 1 and record["table"] == "tiny.csv"
