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
    """``nodes`` at the exact binary values of the inputs, with 50 significant digits."""
    table = {}
    for var, value in zip(args, values):
        arr = np.empty(var.shape, dtype=object)
        for idx in np.ndindex(var.shape):
            arr[idx] = sympy.Float(float(np.asarray(value)[idx]), DIGITS)
        table[var] = arr
    exact = to_sympy(list(nodes), table)
    return [
        np.vectorize(lambda v: float(sympy.N(v, DIGITS)), otypes=[np.float64])(e)
        if e.size
        else e.astype(float)
        for e in exact
    ]


def compiled_values(
    nodes: Sequence[Node], args: Sequence[Var], values: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """The compiled NumPy kernel at the inputs, in their own dtype."""
    return [np.asarray(r) for r in lowering.compile_kernel(nodes, args)(*values)]


def fd_step(value: np.ndarray) -> np.ndarray:
    """Per-element step for float64 central differences with Richardson: eps^(1/5) * scale."""
    return np.finfo(np.float64).eps ** 0.2 * np.maximum(1.0, np.abs(value))


def finite_differences(
    lower: Node, args: Sequence[Var], values: Sequence[np.ndarray], wrt: int
) -> np.ndarray:
    """d lower / d args[wrt] by central differences, all perturbed points in one batched call."""
    compiled = lowering.compile_kernel([lower], args)
    base = [np.asarray(v, dtype=np.float64) for v in values]
    x = base[wrt]
    n = x.size
    h = fd_step(x).ravel()
    eye = np.eye(n).reshape((n,) + x.shape)
    steps = []  # for each of h and h/2: +h, -h along every element
    for scale in (1.0, 0.5):
        delta = eye * (scale * h).reshape((n,) + (1,) * x.ndim)
        steps += [x + delta, x - delta]
    batch = np.stack(steps)  # (4, n) + x.shape
    moved = [np.asarray(v) for v in base]
    moved[wrt] = batch
    (f,) = compiled(*moved)
    f = np.broadcast_to(f, (4, n) + lower.shape)
    hs = h.reshape((n,) + (1,) * lower.ndim)
    d_h = (f[0] - f[1]) / (2 * hs)
    d_half = (f[2] - f[3]) / hs
    richardson = (4 * d_half - d_h) / 3  # (n,) + lower.shape
    return np.moveaxis(richardson, 0, -1).reshape(lower.shape + x.shape)


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
