"""Run a study's trainings on a Dask cluster, keep each result as it comes, show
progress.

Every study script of ``benchmarks/`` (``act_studies.py``, ``ch7_studies.py``,
``live_studies.py``, ``skeptic_studies.py``) runs inside :func:`study_cluster`: the
library's :func:`recur.core.device.run_jobs` then hands its trainings to the cluster
instead of a local process pool. By default the script starts a local cluster of
``--jobs`` worker processes, one torch thread each; ``--scheduler ADDRESS`` (or
``RECUR_SCHEDULER``) uses a running one anywhere (``dask scheduler``, then ``dask
worker ADDRESS`` on each machine, from this repository with its ``.venv``).

Each finished training's result is written at once to ``OUT/.partial/NAME/KEY.pkl``,
the key a hash of the job (its function and all its arguments) and of the code it runs
(every Python file of ``src/recur`` and ``benchmarks``): a study that is stopped
(Ctrl-C, a killed worker, a lost machine) and started again recomputes only what it
does not have, and results of other code are dropped, not reused. A job whose worker
dies is run again on another (Dask's own rescheduling); one that raises is retried
:data:`RETRIES` times. Once the study's
table is written the partial results go (:meth:`ClusterJobs.finish`).

One progress bar over the trainings (tqdm, on stderr) shows how many are done and
running and the time left; the same lines go to ``OUT/NAME.log``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import os
import pickle
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cloudpickle
from distributed import Client, LocalCluster, as_completed
from tqdm import tqdm

from recur.core.device import jobs_run_by, one_thread_job
from recur.core.machine import machine_record, write_machine_record
from recur.core.numerics import pins_wanted

ROOT = Path(__file__).resolve().parents[3]  # the repository
DATA = ROOT / "book" / "data"
CODE = (ROOT / "src" / "recur", ROOT / "benchmarks")  # what a study's jobs run
RETRIES = 2  # a job that raises is tried this many more times before the study fails
SCHEDULER_VARIABLE = "RECUR_SCHEDULER"  # make studies passes it on


def seed_range(text: str) -> list[int]:
    """``"40-41"`` -> ``[40, 41]``, ``"7"`` -> ``[7]``: the ``--seeds`` argument."""
    first, _, last = text.partition("-")
    try:
        seeds = list(range(int(first), int(last or first) + 1))
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(
            f"--seeds takes A-B with 0 <= A <= B (or one seed), got {text!r}"
        )
    return seeds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every study script takes."""
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="workers of the local cluster, one torch thread each",
    )
    parser.add_argument(
        "--scheduler",
        default=os.environ.get(SCHEDULER_VARIABLE),
        help="a running Dask scheduler's address (tcp://HOST:PORT) "
        f"instead of a local cluster; default ${SCHEDULER_VARIABLE}",
    )
    parser.add_argument(
        "--seeds",
        type=seed_range,
        metavar="A-B",
        help="only these training seeds (default: the study's)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DATA,
        metavar="DIR",
        help="where the tables go (default: book/data)",
    )


def writes_the_books_tables(out: Path) -> bool:
    """Whether a study run into ``out`` replaces the tables the book reads: only such a
    run counts as the study's last full run (``last_run.py``)."""
    return Path(out).resolve() == DATA.resolve()


def json_key(record: dict) -> str:
    """A worker's record without its date, as a key: equal for the same machine."""
    return repr(sorted((k, v) for k, v in record.items() if k != "date"))


@functools.cache
def code_fingerprint(folders: tuple[Path, ...] = CODE) -> str:
    """A hash of every Python file under ``folders``, names and contents: it changes
    with any change to the code a study's jobs run."""
    digest = hashlib.sha1()
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def task_key(fn: Callable, task) -> str:
    """A name for the job ``fn(task)`` that is the same in every run of the study with
    the same code: the function's name, the code's fingerprint
    (:func:`code_fingerprint`) and a hash of the whole of what ``fn`` is called with."""
    job = (fn.__module__, fn.__qualname__, task)
    try:
        data = pickle.dumps(job, protocol=4)
    except (pickle.PicklingError, AttributeError, TypeError):
        data = cloudpickle.dumps(job, protocol=4)
    digest = hashlib.sha1(data).hexdigest()[:16]
    return f"{fn.__name__.strip('_')}-{code_fingerprint()}-{digest}"


def code_of(key: str) -> str:
    """The code fingerprint in a key written by :func:`task_key`."""
    return key.rsplit("-", 2)[-2]


class ResultStore:
    """Finished results, one file per job key, written whole or not at all."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.pkl"

    def has(self, key: str) -> bool:
        return self._path(key).exists()

    def load(self, key: str):
        return pickle.loads(self._path(key).read_bytes())

    def save(self, key: str, value) -> None:
        partial = self._path(key).with_suffix(".tmp")
        partial.write_bytes(cloudpickle.dumps(value))
        os.replace(partial, self._path(key))  # a crash leaves the old state or the new

    def drop_other_code(self, code: str) -> int:
        """Delete the results computed by code other than ``code`` (a fingerprint);
        return how many there were."""
        other = [p for p in self.folder.glob("*.pkl") if code_of(p.stem) != code]
        for path in other:
            path.unlink()
        return len(other)


class ClusterJobs:
    """The runner :func:`recur.core.device.run_jobs` hands a study's jobs to: each job
    not in ``store`` goes to the cluster of ``client``; each result is saved as it
    comes; the results come back in the order of the jobs."""

    def __init__(self, client: Client, store: ResultStore, log: Path | None = None):
        self.client, self.store, self.log = client, store, log

    def __call__(self, fn: Callable, tasks: list, jobs: int = 1) -> list:
        dropped = self.store.drop_other_code(code_fingerprint())
        if dropped:
            print(
                f"{dropped} results kept from a run of other code are not reused: "
                "they were dropped",
                file=sys.stderr,
            )
        keys = [task_key(fn, task) for task in tasks]
        results = {k: self.store.load(k) for k in set(keys) if self.store.has(k)}
        todo = {k: t for k, t in zip(keys, tasks, strict=True) if k not in results}
        futures = {
            self.client.submit(
                one_thread_job, fn, task, key=key, pure=False, retries=RETRIES
            ): key
            for key, task in todo.items()
        }
        with Progress(len(set(keys)), len(results), self.log) as progress:
            for future in as_completed(futures):
                key = futures[future]
                results[key] = future.result()
                self.store.save(key, results[key])
                progress.finished(key, self._running())
        return [results[key] for key in keys]

    def _running(self) -> int:
        return sum(1 for keys in self.client.processing().values() if keys)  # busy

    def finish(self) -> None:
        """The study's table is written: its partial results are no longer needed."""
        shutil.rmtree(self.store.folder, ignore_errors=True)

    def worker_records(self) -> list[dict]:
        """Each worker's machine record, taken on the worker: its CPU and the numerics
        its trainings compute with."""
        return list(self.client.run(machine_record, 1).values())

    def check_pins(self) -> list[dict]:
        """The workers' records; a ``RuntimeError`` naming the first worker whose CPU
        numerics are not the book's pins (unless ``RECUR_UNPINNED=1`` here)."""
        records = self.worker_records()
        for record in records:
            if pins_wanted() and not record["pinned"]:
                raise RuntimeError(
                    f"a Dask worker computes with unpinned CPU numerics: {record}; "
                    "start it from this repository (its recur pins them on import) "
                    "and do not import torch in its preload"
                )
        return records

    def record(self, table: Path, **extra) -> Path:
        """Write ``table``'s machine record: the workers' CPU (every distinct one when
        they differ), numerics and count; ``extra``: what else a reader needs."""
        records = self.worker_records()
        workers = [dict(r) for r in {json_key(r): r for r in records}.values()]
        extra |= {k: v for k, v in workers[0].items() if k not in ("cores", "date")}
        extra |= {"workers": workers} if len(workers) > 1 else {}
        return write_machine_record(table, cores=len(records), **extra)


class Progress:
    """One bar over a study's jobs: done (those kept from an earlier run counted from
    the start), running, and the time left at the rate of this run; each finished job
    is also a line of the log."""

    def __init__(self, total: int, kept: int, log: Path | None):
        self.total, self.kept, self.done = total, kept, kept
        self.start = time.perf_counter()
        self.bar = tqdm(total=total, initial=kept, desc="trainings", unit="job")
        self.log = log.open("a") if log else None
        self._write(f"{total} jobs, {kept} kept from an earlier run")

    def finished(self, key: str, running: int) -> None:
        self.done += 1
        self.bar.update(1)
        self.bar.set_postfix(running=running)
        self._write(
            f"{self.done}/{self.total} done ({key}), {running} running, "
            f"{self.seconds_left():.0f} s left"
        )

    def seconds_left(self) -> float:
        """The time left at this run's rate (jobs kept from before cost nothing)."""
        new = self.done - self.kept
        elapsed = time.perf_counter() - self.start
        return elapsed / new * (self.total - self.done) if new else float("nan")

    def _write(self, line: str) -> None:
        if self.log:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            print(f"{stamp} {line}", file=self.log, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()
        if self.log:
            self.log.close()


@contextlib.contextmanager
def study_cluster(
    name: str, jobs: int = 2, scheduler: str | None = None, out: Path = DATA
) -> Iterator[ClusterJobs]:
    """Inside, the library's jobs run on a Dask cluster (:class:`ClusterJobs`): the one
    at ``scheduler``, or a local one of ``jobs`` worker processes with one torch thread
    each. Results are kept under ``out/.partial/name``; the log is ``out/name.log``."""
    with contextlib.ExitStack() as stack:
        if scheduler:
            client = stack.enter_context(Client(scheduler))
        else:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                )
            )
            client = stack.enter_context(Client(cluster))
        out.mkdir(parents=True, exist_ok=True)
        runner = ClusterJobs(
            client, ResultStore(out / ".partial" / name), out / f"{name}.log"
        )
        runner.check_pins()
        stack.enter_context(jobs_run_by(runner))
        yield runner
