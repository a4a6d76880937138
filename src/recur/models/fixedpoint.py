r"""Fixed points of a shared update, and their gradients by implicit differentiation
(Deep Equilibrium Models, Bai, Kolter and Koltun 2019, arXiv 1909.01377, Section 3).

A weight-tied, input-injected loop ``z_{r+1} = f(x, z_r)`` that settles has an output
that does not depend on how many rounds ran: the fixed point

    z* = f(x, z*)                                                       (DEQ Eq. 2)

The forward pass finds it with any root finder, here plain iteration or Anderson
acceleration (Anderson 1965; the form of Walker and Ni 2011, as in the DEQ code). The
backward pass does not go through the solver's iterations. Differentiating z* = f(x, z*)
gives, for a loss L with incoming gradient g = dL/dz*,

    dL/d(x, theta) = u^T d f(x, z*)/d(x, theta),  where  u = J^T u + g,  J = df/dz*
                                                                     (DEQ Thm. 1)

so the backward pass solves a second, linear fixed point for the adjoint u with the
same solver, using vector-Jacobian products of *one* application of f. The memory that
training keeps is one step of f, however many iterations either solve takes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch

METHODS = ("iteration", "anderson")


class NotConverged(RuntimeError):
    """A solve stopped at ``max_iter`` with its residual above ``tol``."""


@dataclass
class Solve:
    """What a solve did: ``residual`` is the largest ``|f(z) - z| / |f(z)|`` of any
    example of the batch at the returned z."""

    n_iter: int
    residual: float
    converged: bool


def _relative_residual(fz: torch.Tensor, z: torch.Tensor) -> float:
    """The largest over the batch of |f(z) - z| / |f(z)| per example: one example
    still moving keeps the solve going, however many others have settled."""
    step = (fz - z).reshape(z.shape[0], -1).norm(dim=1)  # (B,)
    size = fz.reshape(z.shape[0], -1).norm(dim=1)  # (B,)
    return float((step / (size + 1e-12)).max())


def _iterate(g, z: torch.Tensor, tol: float, max_iter: int):
    """Plain iteration z <- g(z): the loop of every earlier chapter."""
    residual = float("inf")
    for k in range(1, max_iter + 1):
        gz = g(z)
        residual = _relative_residual(gz, z)
        z = gz
        if residual < tol:
            return z, Solve(k, residual, True)
    return z, Solve(max_iter, residual, False)


def _anderson(g, z: torch.Tensor, tol: float, max_iter: int, m: int = 5, lam=1e-4):
    r"""Anderson acceleration of z <- g(z), per example of the leading (batch) axis.

    Keeps the last ``m`` iterates X_k and images G_k = g(X_k); the next iterate is the
    combination sum_k alpha_k G_k whose residuals G_k - X_k have the least norm, subject
    to sum_k alpha_k = 1 (solved with a bordered system; the ridge is ``lam`` times the
    mean squared residual, so it stays small next to the residuals as they shrink)."""
    shape, batch = z.shape, z.shape[0]
    x = z.reshape(batch, -1)  # (B, D)
    xs = x.new_zeros(batch, m, x.shape[1])  # (B, m, D): iterates
    gs = torch.zeros_like(xs)  # (B, m, D): their images
    xs[:, 0], gs[:, 0] = x, g(x.view(shape)).reshape(batch, -1)
    xs[:, 1], gs[:, 1] = gs[:, 0], g(gs[:, 0].view(shape)).reshape(batch, -1)
    bordered = x.new_zeros(batch, m + 1, m + 1)  # (B, m+1, m+1)
    bordered[:, 0, 1:] = bordered[:, 1:, 0] = 1
    rhs = x.new_zeros(batch, m + 1, 1)  # (B, m+1, 1)
    rhs[:, 0] = 1
    residual = _relative_residual(gs[:, 1], xs[:, 1])
    k = 1
    while residual >= tol and k + 1 < max_iter:  # a NaN residual stops: not converged
        k += 1
        n = min(k, m)
        diff = gs[:, :n] - xs[:, :n]  # (B, n, D): residuals of the kept iterates
        gram = diff @ diff.transpose(1, 2)  # (B, n, n)
        scale = gram.diagonal(dim1=1, dim2=2).mean(dim=1)  # (B,)
        ridge = torch.where(scale > 0, lam * scale, 1.0)  # 1.0: this one has converged
        eye = torch.eye(n, dtype=x.dtype, device=x.device)  # (n, n)
        bordered[:, 1 : n + 1, 1 : n + 1] = gram + ridge[:, None, None] * eye
        alpha = torch.linalg.solve(bordered[:, : n + 1, : n + 1], rhs[:, : n + 1])
        alpha = alpha[:, 1 : n + 1, 0]  # (B, n), summing to 1
        xs[:, k % m] = (alpha[:, None] @ gs[:, :n])[:, 0]  # (B, D)
        gs[:, k % m] = g(xs[:, k % m].view(shape)).reshape(batch, -1)
        residual = _relative_residual(gs[:, k % m], xs[:, k % m])
    return gs[:, k % m].view(shape), Solve(k + 1, residual, residual < tol)


def solve(g, z0: torch.Tensor, *, tol: float, max_iter: int, method: str):
    """A fixed point of ``g`` from ``z0`` without gradients: ``(z, Solve)``.
    ``n_iter`` counts the applications of ``g``."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    with torch.no_grad():
        if method == "iteration":
            return _iterate(g, z0, tol, max_iter)
        return _anderson(g, z0, tol, max_iter)


def _check_args(z0, tol, max_iter, method) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not tol > 0:
        raise ValueError(f"tol must be > 0, got {tol}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 2:
        raise ValueError(f"max_iter must be a whole number >= 2, got {max_iter!r}")
    if z0.dim() < 1 or z0.shape[0] == 0:
        raise ValueError(f"z0 needs a non-empty batch axis, got {tuple(z0.shape)}")


def _shape_checked(g, z0: torch.Tensor):
    """``g`` whose first call, the solver's first iterate, must map z0's shape to
    itself; a failure there is a ValueError about the arguments. No extra call of f."""
    first = True

    def checked(z: torch.Tensor) -> torch.Tensor:
        nonlocal first
        if not first:
            return g(z)
        first = False
        try:
            out = g(z)
        except RuntimeError as err:
            shape = tuple(z0.shape)
            raise ValueError(f"f(x, z0) failed for z0 of shape {shape}: {err}") from err
        if out.shape != z0.shape:
            shapes = f"{tuple(out.shape)}, z0 {tuple(z0.shape)}"
            raise ValueError(f"f(x, z0) has shape {shapes}")
        return out

    return checked


ON_FAIL = ("warn", "raise", "report")


def _report(what: str, info: Solve, tol: float, on_fail) -> None:
    """Act on a solve that did not converge (a NaN residual never converges): warn,
    raise, leave it to the caller ("report"), or call ``on_fail(what, info)``."""
    if info.converged or on_fail == "report":
        return
    if callable(on_fail):
        on_fail(what, info)
        return
    text = (
        f"{what} did not converge: residual {info.residual:.2e} > tol {tol:g} "
        f"after {info.n_iter} iterations"
    )
    if on_fail == "raise":
        raise NotConverged(text)
    warnings.warn(text, RuntimeWarning, stacklevel=3)


def fixed_point(
    f,
    x: torch.Tensor,
    z0: torch.Tensor,
    *,
    tol: float = 1e-6,
    max_iter: int = 100,
    method: str = "anderson",
    on_fail: str = "warn",
) -> tuple[torch.Tensor, Solve]:
    r"""z* with z* = f(x, z*), and how the forward solve went.

    Gradients reach ``x`` and the parameters of ``f`` by implicit differentiation
    (DEQ Thm. 1): the backward pass solves the adjoint fixed point u = J^T u + g with
    the same method and ``tol``, from vector-Jacobian products of one application of
    ``f``.
    A solve that stops at ``max_iter`` with its residual above ``tol`` is reported in
    ``Solve.converged`` and, by ``on_fail``, also warns (``"warn"``, a
    ``RuntimeWarning``) or raises :class:`NotConverged` (``"raise"``), forward or
    backward; ``"report"`` leaves it to the caller to read ``Solve.converged``; a
    callable is called as ``on_fail(what, info)`` for each failed solve, forward or
    backward (a training loop that counts them). A NaN residual is never converged.
    """
    _check_args(z0, tol, max_iter, method)
    if not callable(on_fail) and on_fail not in ON_FAIL:
        raise ValueError(f"on_fail must be one of {ON_FAIL}, got {on_fail!r}")
    settings = {"tol": tol, "max_iter": max_iter, "method": method}
    z_star, info = solve(_shape_checked(lambda z: f(x, z), z0), z0, **settings)
    _report("the forward solve", info, tol, on_fail)
    if not torch.is_grad_enabled():
        return z_star, info
    z_star = z_star.detach().requires_grad_()
    # two applications of f at z* (f_star, z_out): the only graphs training keeps,
    # however many iterations the solve ran
    f_star = f(x, z_star)
    if not f_star.requires_grad:
        return f_star.detach(), info
    z_out = f(x, z_star.detach())  # = z* at convergence; its graph reaches x, theta
    if z_out.requires_grad:
        z_out.register_hook(_adjoint(f_star, z_star, settings, on_fail))
    return z_out, info


def _adjoint(f_star, z_star, settings: dict, on_fail):
    """The backward hook: the incoming gradient g becomes u with u = J^T u + g (DEQ
    Thm. 1), solved with the forward's settings from vector-Jacobian products of the
    one application ``f_star = f(x, z_star)``."""

    def hook(grad: torch.Tensor) -> torch.Tensor:
        def vjp(u):
            return torch.autograd.grad(f_star, z_star, u, retain_graph=True)[0] + grad

        u, back = solve(vjp, grad, **settings)
        _report("the backward (adjoint) solve", back, settings["tol"], on_fail)
        return u

    return hook
