"""A pretend accelerator for CPU-only machines, so that device mistakes fail tests here.

Inside ``FakeAccelerator()``, tensors moved to ``FAKE`` (``torch.device("meta")`` as a
name; the data stay on the CPU) report that device and are kept apart from CPU tensors
as a GPU's would be: an operation that mixes the two raises, and ``.numpy()`` on one
raises until ``.cpu()`` brings it back. ``to_fake(model)`` puts a model's parameters
there. Results are computed on the CPU, so they can be compared with a CPU run.
"""

from __future__ import annotations

from contextlib import contextmanager

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten, tree_map

FAKE = torch.device("meta")


class OnFake(torch.Tensor):
    """The mark of a tensor that lives on the pretend accelerator."""


def _on_fake(t) -> bool:
    return isinstance(t, OnFake)


def _plain(t):
    return t.as_subclass(torch.Tensor) if isinstance(t, OnFake) else t


def _mark(t):
    return t.as_subclass(OnFake) if type(t) is torch.Tensor else t


def _device_arg(args, kwargs) -> torch.device | None:
    for a in [*args[1:], *kwargs.values()]:
        if isinstance(a, torch.device | str):
            return torch.device(a)
    return None


def _move(func, args, kwargs):
    """``tensor.to(...)``: the data stay on the CPU; the mark follows the target."""
    target = _device_arg(args, kwargs)
    cpu = torch.device("cpu")

    def swap(a):
        return cpu if isinstance(a, torch.device | str) else a

    out = func(_plain(args[0]), *map(swap, args[1:]), **tree_map(swap, kwargs))
    if target is None:
        return _mark(out) if _on_fake(args[0]) else out
    return _mark(out) if target == FAKE else _plain(out)


class FakeAccelerator(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func == torch.Tensor.device.__get__:
            return FAKE if _on_fake(args[0]) else torch.device("cpu")
        if getattr(func, "__name__", "") in ("__get__", "__set__"):  # .grad, .shape
            out = func(*args, **kwargs)
            return _mark(out) if _on_fake(args[0]) else out
        if func is torch.Tensor.numpy and _on_fake(args[0]):
            raise TypeError(
                "can't convert a tensor on the accelerator to numpy: .cpu()"
            )
        if func is torch.Tensor.cpu:
            return _plain(args[0])
        if func is torch.Tensor.register_hook:  # on the tensor itself: an unmarked
            return func(*args, **kwargs)  # alias is not in the graph, it never fires
        if func is torch.Tensor.to:
            return _move(func, args, kwargs)
        tensors = [t for t in tree_flatten((args, kwargs))[0] if torch.is_tensor(t)]
        on_fake = any(map(_on_fake, tensors))
        if on_fake and any(not _on_fake(t) and t.ndim > 0 for t in tensors):
            name = getattr(func, "__name__", func)
            raise RuntimeError(f"{name}: tensors on the accelerator and the CPU mixed")
        made_there = kwargs.get("device") is not None and (
            torch.device(kwargs["device"]) == FAKE
        )
        if made_there:
            kwargs = kwargs | {"device": "cpu"}
        out = func(*tree_map(_plain, args), **tree_map(_plain, kwargs))
        return tree_map(_mark, out) if on_fake or made_there else out


@contextmanager
def _outside_the_mode():
    """Run the block as if no FakeAccelerator were active (a Parameter of OnFake can
    only be made where OnFake's own detach runs)."""
    modes = []
    while torch.overrides._get_current_function_mode() is not None:
        modes.append(torch._C._pop_torch_function_stack())
    try:
        yield
    finally:
        for mode in reversed(modes):
            torch._C._push_on_torch_function_stack(mode)


def to_fake(model: torch.nn.Module) -> torch.nn.Module:
    """Move ``model``'s parameters and buffers to the pretend accelerator."""
    with torch.no_grad(), _outside_the_mode():
        for module in model.modules():
            for name, p in module._parameters.items():
                if p is not None:
                    fake = p.detach().as_subclass(OnFake)
                    module._parameters[name] = torch.nn.Parameter(fake, p.requires_grad)
            for name, b in module._buffers.items():
                if b is not None:
                    module._buffers[name] = b.as_subclass(OnFake)
    return model


def to_plain(model: torch.nn.Module) -> torch.nn.Module:
    """Bring ``model``'s parameters and buffers back from the pretend accelerator."""
    with torch.no_grad(), _outside_the_mode():
        for module in model.modules():
            for name, p in module._parameters.items():
                if p is not None and _on_fake(p):
                    plain = p.detach().as_subclass(torch.Tensor)
                    module._parameters[name] = torch.nn.Parameter(
                        plain, p.requires_grad
                    )
            for name, b in module._buffers.items():
                if b is not None:
                    module._buffers[name] = _plain(b)
    return model


_module_to = torch.nn.Module.to


def _fake_aware_to(self, *args, **kwargs):
    """``Module.to`` that knows the pretend accelerator: ``model.to(FAKE)`` marks the
    parameters (a plain ``.to`` would keep the data and drop the mark), a move to the
    CPU unmarks them."""
    device, dtype, *_ = torch._C._nn._parse_to(*args, **kwargs)
    if dtype is not None:
        self = _module_to(self, dtype=dtype)
    if device is None:
        return self
    if torch.device(device) == FAKE:
        return to_fake(self)
    return to_plain(self)


class PretendDevice:
    """The pretend accelerator as the default device: ``pick_device("auto")`` gives
    ``FAKE`` (through ``RECUR_DEVICE``), ``Module.to(FAKE)`` puts a model there, and
    :class:`FakeAccelerator` keeps it apart from the CPU. For the test session."""

    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch
        self.mode = FakeAccelerator()

    def __enter__(self):
        self.monkeypatch.setenv("RECUR_DEVICE", str(FAKE))
        self.monkeypatch.setattr(torch.nn.Module, "to", _fake_aware_to)
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)
