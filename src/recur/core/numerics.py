"""The CPU's numerics, pinned: the kernels a training runs on do not depend on the CPU.

A CPU's float32 results depend on the kernels the libraries under torch choose for it:
ATen's vector width, oneDNN's instruction set and MKL's code path each change the
order of a sum's roundings, and so what a training learns. Each library reads its
choice from an environment variable once, at its first operation, so the pins are set
when ``recur`` is imported (``recur/__init__.py``), before the caller's first tensor
operation. This module imports nothing that computes: torch must not start first.

PyTorch promises nothing across platforms (its notes on reproducibility); the pins
hold the libraries to one level, AVX2, that Intel's Core CPUs have had since Haswell
(2013) and AMD's since Excavator (2015); some Pentium, Celeron and Atom chips lack it,
and there nothing is pinned (:func:`recur.core.machine.numerics_in_effect` says so):

- ``ATEN_CPU_CAPABILITY=avx2``: ATen's vectorised kernels (AVX-512 ones are absent on
  many CPUs).
- ``ONEDNN_MAX_CPU_ISA=AVX2``: oneDNN's kernels, at most AVX2.
- ``MKL_CBWR=COMPATIBLE``: MKL's one code path documented to give the same results on
  Intel and Intel-compatible CPUs (an SSE2 path); its ``AVX2`` branch holds on Intel
  CPUs only (Intel, oneMKL Developer Guide, "Getting Started with Conditional Numerical
  Reproducibility", which also asks for a fixed thread count).
- ``OMP_NUM_THREADS=1``, ``MKL_NUM_THREADS=1``: one thread per training, since how a
  sum is split between threads changes its rounding (and the book's models are small).

Bit-identical float32 outputs of one network on Intel and AMD CPUs needed the first
three together (Deep-MI/FastSurfer, cited in the methods appendix). Set
``RECUR_UNPINNED=1`` to leave the environment as it is (to compare); more than one
thread also takes ``TrainConfig(n_threads=...)`` or ``OMP_NUM_THREADS``.
"""

from __future__ import annotations

import os
import sys
import warnings

PINS = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_CBWR": "COMPATIBLE",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
UNPINNED = "RECUR_UNPINNED"  # "1": leave the CPU's numerics to the environment
PINNED_CAPABILITY = "AVX2"  # what torch.backends.cpu.get_cpu_capability() reports
ABOVE_THE_PIN = "AVX512"  # the one level ATen reports above it on x86-64


def pins_wanted() -> bool:
    """Whether the pins apply: unless ``RECUR_UNPINNED=1``."""
    return os.environ.get(UNPINNED, "") != "1"


def pin_cpu_numerics() -> dict[str, str]:
    """Set :data:`PINS` in this process's environment, overriding whatever was there
    (and so in every process it starts: notebook kernels, pool and Dask workers), and
    return what was set ({} under ``RECUR_UNPINNED=1``). A torch imported before gets
    its threads set here: it counted them at its import. Warns when torch has already
    chosen ATen's AVX-512 kernels, which the pins can no longer change (oneDNN's and
    MKL's choice cannot be read back, so a late pin there goes unnoticed)."""
    if not pins_wanted():
        return {}
    os.environ.update(PINS)
    torch = sys.modules.get("torch")  # imported by the caller first: is it too late?
    if torch is not None and hasattr(torch, "set_num_threads"):
        torch.set_num_threads(int(PINS["OMP_NUM_THREADS"]))
    capability = getattr(getattr(torch, "backends", None), "cpu", None)
    if capability is not None and capability.get_cpu_capability() == ABOVE_THE_PIN:
        warnings.warn(
            "torch ran before recur was imported, so its CPU kernels are not pinned "
            f"(ATen uses {capability.get_cpu_capability()}): import recur before "
            "torch to get the book's numbers exactly",
            stacklevel=2,
        )
    return dict(PINS)
