"""Ways to compute a derivative block, each independent of the others where it can be.

- ``high_precision``: the closed form evaluated with 50-digit numbers (SymPy Floats),
  node by node over the shared graph, so nothing is flattened.
- ``kernel``: the compiled float kernel, in the inputs' dtype.
- ``finite_differences``: central differences of the next-lower order (the function
  itself for order 1) in float64, with one Richardson extrapolation step.
- ``torch_autograd``: the forward pass lowered to PyTorch and differentiated by torch.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

import numpy as np
import sympy

import lowering
from symgrad.closed_form import to_sympy
from symgrad.core.graph import Node, Var

DIGITS = 50


def high_precision(
    nodes: Sequence[Node], args: Sequence[Var], values: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """``nodes`` at the exact binary values of the inputs and constants, with 50 significant digits.

    A float32 constant 0.1 is read as 0.100000001490116..., the number the kernel uses.
    """
    table = {}
    for var, value in zip(args, values):
        arr = np.empty(var.shape, dtype=object)
        for idx in np.ndindex(var.shape):
            arr[idx] = sympy.Float(float(np.asarray(value)[idx]), DIGITS)
        table[var] = arr
    exact = to_sympy(list(nodes), table, constant=lambda v: sympy.Float(float(v), DIGITS))
    with np.errstate(invalid="ignore"):  # NaN where the derivative is undefined is a value here
        return [np.vectorize(_to_float, otypes=[np.float64])(e) if e.size else e.astype(float) for e in exact]


def _to_float(value) -> float:
    """A 50-digit SymPy value as a float; NaN where it is undefined (nan, zoo)."""
    number = sympy.N(value, DIGITS)
    try:
        return float(number)
    except TypeError:  # zoo (complex infinity) and other non-real values
        return float("nan")


def compiled_values(
    nodes: Sequence[Node], args: Sequence[Var], values: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """The compiled NumPy kernel at the inputs, in their own dtype."""
    return [np.asarray(r) for r in lowering.compile_kernel(nodes, args)(*values)]


FD_BASE_STEP = np.finfo(np.float64).eps ** 0.2  # optimal for central differences with one Richardson step


def fd_steps(value: np.ndarray) -> list[np.ndarray]:
    """Candidate per-element steps: relative to the argument (right for log, sqrt, x**k at large
    |x|) and absolute (right for periodic functions such as sin at x = 1000); each at least
    1024 ulps of the argument, so x + h differs from x."""
    floor = 1024 * np.spacing(np.abs(value))
    return [
        np.maximum(FD_BASE_STEP * s, floor) for s in (np.maximum(1.0, np.abs(value)), np.ones_like(value))
    ]


def finite_differences(
    lower: Node, args: Sequence[Var], values: Sequence[np.ndarray], wrt: int
) -> tuple[np.ndarray, np.ndarray]:
    """d lower / d args[wrt] by central differences, and the estimate's own error.

    For every element both candidate steps are tried (all perturbed points in one batched
    call) and the one whose h and h/2 estimates agree best is kept; that disagreement is
    the returned error estimate (NaN where the function is not finite near the point).
    """
    compiled = lowering.compile_kernel([lower], args)
    base = [np.asarray(v, dtype=np.float64) for v in values]
    x = base[wrt]
    n = x.size
    eye = np.eye(n).reshape((n,) + x.shape)
    best: np.ndarray | None = None
    best_error: np.ndarray | None = None
    with np.errstate(all="ignore"):  # inf/NaN inputs are reported, not warned about
        for h in (step.ravel() for step in fd_steps(x)):
            steps = []  # for each of h and h/2: +h, -h along every element
            for scale in (1.0, 0.5):
                delta = eye * (scale * h).reshape((n,) + (1,) * x.ndim)
                steps += [x + delta, x - delta]
            moved = [np.asarray(v) for v in base]
            moved[wrt] = np.stack(steps)  # (4, n) + x.shape
            (f,) = compiled(*moved)
            f = np.broadcast_to(f, (4, n) + lower.shape)
            hs = h.reshape((n,) + (1,) * lower.ndim)
            d_h = (f[0] - f[1]) / (2 * hs)
            d_half = (f[2] - f[3]) / hs
            estimate = (4 * d_half - d_h) / 3  # (n,) + lower.shape
            error = np.abs(d_half - d_h)
            error = np.where(np.isfinite(estimate), error, np.nan)
            if best is None or best_error is None:
                best, best_error = estimate, error
            else:
                better = np.nan_to_num(error, nan=np.inf) < np.nan_to_num(best_error, nan=np.inf)
                best, best_error = np.where(better, estimate, best), np.where(better, error, best_error)
    assert best is not None and best_error is not None  # fd_steps gives at least one step
    shape = lower.shape + x.shape
    return np.moveaxis(best, 0, -1).reshape(shape), np.moveaxis(best_error, 0, -1).reshape(shape)


def frameworks() -> list[str]:
    """Independent autodiff frameworks installed here."""
    return [name for name in ("torch",) if importlib.util.find_spec(name) is not None]


def torch_autograd(
    output: Node, args: Sequence[Var], values: Sequence[np.ndarray], path: Sequence[int]
) -> np.ndarray:
    """The block ``path`` of ``output``, by PyTorch differentiating the lowered forward pass."""
    import torch
    from torch.autograd.functional import jacobian

    forward = lowering.compile_kernel([output], args, backend="torch")
    xs = tuple(torch.as_tensor(np.asarray(v, dtype=np.float64)) for v in values)

    def fn(*inputs):
        return forward(*inputs)[0]

    for i in path:
        fn = _differentiated(fn, i, jacobian)
    return fn(*xs).detach().numpy()


def _differentiated(fn, i: int, jacobian):
    def derivative(*xs):
        def along(xi):
            return fn(*xs[:i], xi, *xs[i + 1 :])

        return jacobian(along, xs[i], create_graph=True)

    return derivative
