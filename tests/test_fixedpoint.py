"""recur.models.fixedpoint: the solvers find z* = f(x, z*), and the implicit gradient
equals backpropagation through a long unrolled solve (the oracle), in float64."""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from recur.models.fixedpoint import NotConverged, fixed_point


class Contraction(nn.Module):
    """f(x, z) = tanh(W z + U x + b), the spectral norm of W set to ``rate`` < 1: a
    contraction in z (tanh is 1-Lipschitz), so the fixed point exists and is unique.
    ``scale`` shrinks U and b: near 0 tanh is almost linear and the rate is nearly
    ``rate``, which makes plain iteration slow."""

    def __init__(self, d: int, rate: float, seed: int, scale: float = 1.0):
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        w = torch.randn(d, d, generator=gen, dtype=torch.float64)
        self.w = nn.Parameter(rate * w / torch.linalg.matrix_norm(w, ord=2))
        u = torch.randn(d, d, generator=gen, dtype=torch.float64)
        self.u = nn.Parameter(scale * u)
        self.b = nn.Parameter(
            scale * torch.randn(d, generator=gen, dtype=torch.float64)
        )

    def forward(self, x, z):
        return torch.tanh(z @ self.w.T + x @ self.u.T + self.b)


def _unrolled(f, x, z0, n: int):
    z = z0
    for _ in range(n):
        z = f(x, z)
    return z


def _grads(f, x, z):
    loss = (z * torch.linspace(-1, 1, z.shape[-1], dtype=z.dtype)).sum()
    return torch.autograd.grad(loss, [x, *f.parameters()])


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    rate=st.floats(0.3, 0.9),
    method=st.sampled_from(["iteration", "anderson"]),
)
def test_implicit_gradient_equals_backprop_through_a_long_unrolled_solve(
    seed, rate, method
):
    f = Contraction(6, rate, seed)
    x = torch.randn(
        3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(seed)
    )
    x.requires_grad_()
    z0 = torch.zeros(3, 6, dtype=torch.float64)
    z, info = fixed_point(f, x, z0, tol=1e-12, max_iter=500, method=method)
    assert info.converged
    assert torch.allclose(f(x, z), z, atol=1e-10)  # it is a fixed point
    oracle = _unrolled(f, x, z0, 600)  # 0.9 ** 600 < 1e-27: converged too
    assert torch.allclose(z, oracle, atol=1e-10)
    for mine, want in zip(_grads(f, x, z), _grads(f, x, oracle), strict=True):
        assert torch.allclose(mine, want, atol=1e-8, rtol=1e-6)


def test_anderson_needs_fewer_iterations_than_plain_iteration():
    """W symmetric with eigenvalues spread over [-0.95, 0.95]: plain iteration shrinks
    the slowest error by about 0.95 per step (hundreds of steps to 1e-8)."""
    f = Contraction(16, 0.95, seed=1, scale=0.05)
    gen = torch.Generator().manual_seed(0)
    q, _ = torch.linalg.qr(torch.randn(16, 16, dtype=torch.float64, generator=gen))
    eigenvalues = torch.linspace(-0.95, 0.95, 16, dtype=torch.float64)
    f.w.data = q @ torch.diag(eigenvalues) @ q.T
    x = torch.randn(4, 16, dtype=torch.float64, generator=gen)
    z0 = torch.zeros(4, 16, dtype=torch.float64)
    with torch.no_grad():
        _, plain = fixed_point(f, x, z0, tol=1e-8, max_iter=1000, method="iteration")
        _, anderson = fixed_point(f, x, z0, tol=1e-8, max_iter=1000, method="anderson")
    assert plain.converged and anderson.converged
    assert plain.n_iter > 100
    assert anderson.n_iter < plain.n_iter / 3


def test_the_backward_pass_keeps_one_step_not_the_iterations():
    """Bytes saved for backward do not grow with the forward iterations."""
    f = Contraction(8, 0.9, seed=2, scale=0.05)
    x = torch.randn(2, 8, dtype=torch.float64, requires_grad=True)
    z0 = torch.zeros(2, 8, dtype=torch.float64)
    saved = []
    for tol in (1e-2, 1e-12):  # few iterations, then many
        total = []

        def pack(t, total=total):
            total.append(t.numel() * t.element_size())
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            _, info = fixed_point(f, x, z0, tol=tol, max_iter=500, method="iteration")
        saved.append((info.n_iter, sum(total)))
    (few, bytes_few), (many, bytes_many) = saved
    assert many > 4 * few
    assert bytes_many == bytes_few


def test_non_convergence_warns_raises_or_is_reported_as_asked():
    f = Contraction(6, 0.99, seed=3)
    x, z0 = (
        torch.randn(2, 6, dtype=torch.float64),
        torch.zeros(2, 6, dtype=torch.float64),
    )
    with pytest.warns(RuntimeWarning, match="did not converge"):
        _, info = fixed_point(f, x, z0, tol=1e-14, max_iter=3, method="iteration")
    assert not info.converged and info.n_iter == 3
    with pytest.raises(NotConverged, match="residual"):
        fixed_point(f, x, z0, tol=1e-14, max_iter=3, on_fail="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "report": no warning, the flag says it
        _, info = fixed_point(f, x, z0, tol=1e-14, max_iter=3, on_fail="report")
    assert not info.converged


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "newton"}, "method"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 1}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"on_fail": "ignore"}, "on_fail"),
        ({"z0": torch.zeros(0, 6, dtype=torch.float64)}, "batch"),
        ({"z0": torch.zeros(2, 5, dtype=torch.float64)}, "shape"),
    ],
)
def test_bad_arguments_are_value_errors(kwargs, match):
    f = Contraction(6, 0.5, seed=0)
    args = {"x": torch.zeros(2, 6, dtype=torch.float64)}
    args["z0"] = kwargs.pop("z0", torch.zeros(2, 6, dtype=torch.float64))
    with pytest.raises(ValueError, match=match):
        fixed_point(f, args["x"], args["z0"], **kwargs)


@pytest.mark.parametrize("method", ["iteration", "anderson"])
def test_one_slow_example_keeps_the_solve_going(method):
    """99 examples settle at once, one contracts by 0.9 per step. The stopping test is
    per example, so the slow one is solved to the tolerance too (a residual over the
    whole batch would be diluted by the 99 settled ones and stop early)."""
    rates = torch.zeros(100, 1, dtype=torch.float64)
    rates[0] = 0.9

    def f(x, z):
        return rates * z + x

    x = torch.ones(100, 10, dtype=torch.float64)
    z0 = torch.zeros_like(x)
    z, info = fixed_point(f, x, z0, tol=1e-6, max_iter=500, method=method)
    exact = x / (1 - rates)  # z* = x / (1 - rate)
    assert info.converged
    assert torch.allclose(z[0], exact[0], rtol=1e-5)


def test_solve_refuses_an_unknown_method():
    """``solve`` itself, not only ``fixed_point``: no silent fall-back to Anderson."""
    from recur.models.fixedpoint import solve

    with pytest.raises(ValueError, match="method"):
        solve(lambda z: z / 2, torch.ones(2, 3), tol=1e-6, max_iter=5, method="newton")


@pytest.mark.parametrize("method", ["iteration", "anderson"])
def test_a_nan_never_passes_as_converged(method):
    def f(x, z):
        return z * float("nan") + x

    x = torch.ones(2, 3, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, info = fixed_point(f, x, torch.zeros_like(x), max_iter=6, method=method)
    assert not info.converged


def test_a_callable_on_fail_is_told_of_each_failed_solve_forward_and_backward():
    f = Contraction(6, 0.99, seed=3)
    x = torch.randn(2, 6, dtype=torch.float64, requires_grad=True)
    z0 = torch.zeros(2, 6, dtype=torch.float64)
    told = []
    z, info = fixed_point(
        f, x, z0, tol=1e-14, max_iter=3, method="iteration",
        on_fail=lambda what, info: told.append((what, info.converged)),
    )  # fmt: skip
    z.sum().backward()
    assert [what for what, _ in told] == [
        "the forward solve",
        "the backward (adjoint) solve",
    ]
    assert told[0][1] is False and not info.converged
