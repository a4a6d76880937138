"""Pick the device once; seed everything from one argument; choose CPU threads."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import random
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import torch


def pick_device(device: str | torch.device = "auto") -> torch.device:
    """``"auto"``: CUDA when present, then Apple's MPS, else the CPU.

    The environment variable ``RECUR_DEVICE`` (e.g. ``cpu``) overrides ``"auto"``;
    an explicit device name is taken as given.
    """
    if isinstance(device, torch.device):
        return device
    if device == "auto":
        device = os.environ.get("RECUR_DEVICE", "auto")
    if device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        return torch.device("mps" if mps and mps.is_available() else "cpu")
    try:
        return torch.device(device)
    except RuntimeError as err:
        raise ValueError(f"unknown device {device!r}: {err}") from None


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch; return a CPU generator seeded the same way."""
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 (seeds code that uses the legacy API)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


# torch's own thread count when recur was imported: a different count later means the
# user called torch.set_num_threads, and their choice is kept.
_TORCH_DEFAULT_THREADS = torch.get_num_threads()
BOOK_THREADS = 1  # the book's models are small: one thread, see cpu_threads


def auto_threads() -> int | None:
    """The CPU thread count the library uses when none is given: ``None`` (leave torch
    as it is) if ``OMP_NUM_THREADS`` is set or the user called
    ``torch.set_num_threads``; else :data:`BOOK_THREADS`.

    Why one: the book's models are tiny (a few thousand parameters), so a second
    thread saves little, while two threads beside another busy process on two cores
    wait for each other at every operation. Measured on 2 cores, interleaved, two runs
    each (seconds, alone / beside one busy process): Chapter 2's cell, 400 steps: one
    thread 5.4-5.7 / 5.0-5.4, two threads 4.6-5.2 / 21.6-23.2; Chapter 6's ACT UT, 300
    steps: one thread 13.5-14.5 / 14.7-17.7, two threads 14.5-14.9 / 49.5-59.3.
    ``benchmarks/run.py`` reports the ratio as ``shared_under_load_ratio``."""
    if os.environ.get("OMP_NUM_THREADS"):
        return None
    if torch.get_num_threads() != _TORCH_DEFAULT_THREADS:
        return None
    return BOOK_THREADS


@contextmanager
def cpu_threads(n_threads: int | None, device: torch.device) -> Iterator[None]:
    """Run the block with ``n_threads`` torch CPU threads (``None``:
    :func:`auto_threads`), restoring the count afterwards. Nothing changes on a GPU."""
    if n_threads is not None and n_threads < 1:
        raise ValueError(f"n_threads must be >= 1 or None, got {n_threads}")
    wanted = n_threads if n_threads is not None else auto_threads()
    if torch.device(device).type != "cpu" or wanted is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(wanted)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def synchronize(device: torch.device | str) -> None:
    """Wait until ``device`` has finished its queued work (CUDA and Apple's MPS run
    asynchronously: without this a timer measures only the launches)."""
    kind = torch.device(device).type
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "mps":
        torch.mps.synchronize()


def limit_heap_growth(threshold: int = 4 * 1024 * 1024) -> bool:
    """Ask the C library to serve every allocation above ``threshold`` bytes by
    ``mmap`` (and to stop moving that threshold itself), so that large freed tensors go
    back to the system: a long ACT run (one kept h_r per round between freed (B, n, d)
    states) otherwise fragments the heap. 4 MiB keeps the peak low without slowing
    training, which a threshold below a training step's tensors (80 KiB at batch 64)
    would, one system call each (``benchmarks/heap_threshold.py`` measures both).
    Returns False where the C library has no ``mallopt``."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_mmap_threshold = -3  # mallopt's M_MMAP_THRESHOLD: fixes the threshold
    return bool(libc.mallopt(m_mmap_threshold, threshold))


def _fresh_processes(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` fresh ("spawn") processes, each with its own torch and
    its heap kept from fragmenting (:func:`limit_heap_growth`)."""
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        workers, mp_context=context, initializer=limit_heap_growth
    )


@contextmanager
def beside(fn: Callable, *args, **kwargs) -> Iterator[Future]:
    """Run ``fn(*args, **kwargs)`` in a fresh process while the caller's block runs in
    this one: the block gets its :class:`~concurrent.futures.Future` and may wait for
    it with ``.result()``. ``fn`` must be importable, as for :func:`run_jobs`."""
    with _fresh_processes(1) as pool:
        yield pool.submit(fn, *args, **kwargs)


# a study script's cluster, when one runs the jobs (:func:`jobs_run_by`)
_JOB_RUNNER: ContextVar[Callable | None] = ContextVar("job_runner", default=None)


@contextmanager
def jobs_run_by(runner: Callable[[Callable, list, int], list]) -> Iterator[None]:
    """Inside, every :func:`run_jobs` call is handed to ``runner(fn, tasks, jobs)``,
    which must return what ``[fn(t) for t in tasks]`` would (a study script's Dask
    cluster, which keeps each result as it comes)."""
    token = _JOB_RUNNER.set(runner)
    try:
        yield
    finally:
        _JOB_RUNNER.reset(token)


# set while a job of a study runs: its training shows no bar of its own (the study's
# one bar counts the jobs)
_IN_A_JOB: ContextVar[bool] = ContextVar("in_a_job", default=False)


def in_a_job() -> bool:
    """Whether this code runs as one job of a study (:func:`one_thread_job`)."""
    return _IN_A_JOB.get()


def one_thread_job(fn: Callable, task):
    """``fn(task)`` on one torch thread with the heap kept from fragmenting and no
    training bar of its own: a job run by a worker of a cluster, as :func:`run_jobs`
    runs its own."""
    torch.set_num_threads(1)
    limit_heap_growth()
    token = _IN_A_JOB.set(True)
    try:
        return fn(task)
    finally:
        _IN_A_JOB.reset(token)


def run_jobs(fn: Callable, tasks: list, jobs: int = 1) -> list:
    """``[fn(t) for t in tasks]``, or with ``jobs`` > 1 that many at once, each in a
    fresh ("spawn") process, so that each gets its own torch and the library's one
    thread; ``fn`` must be importable (a module-level function). Either way the heap
    is kept from fragmenting (:func:`limit_heap_growth`). Inside :func:`jobs_run_by`,
    the runner given there runs them."""
    runner = _JOB_RUNNER.get()
    if runner is not None:
        return runner(fn, tasks, jobs)
    if jobs == 1:
        limit_heap_growth()
        return [fn(task) for task in tasks]
    with _fresh_processes(jobs) as pool:
        return list(pool.map(fn, tasks))
