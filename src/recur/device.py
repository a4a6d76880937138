"""Pick the device once; seed everything from one argument."""

from __future__ import annotations

import os
import random

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
