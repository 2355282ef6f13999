"""More names MindSpore's tutorials and MindFlow use (issue 42), each composed of table ops:
``clip_by_norm``, ``HSwish``, ``relu6``, ``prelu``, ``inv``, ``block_diag``, ``TopK``,
``tensor_scatter_add``, ``Eps``, and the graph-mode helpers ``assign``/``Assign``, ``make_range``,
``partial``/``Partial`` (plain Python, as PyNative runs them).
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from symgrad import dtype as mstype
from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import clamp
from symgrad.ops.compositions import _constant_pad
from symgrad.ops.primitives import Primitive
from symgrad.ops.shaping import gather_d
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor


# ----- activations -----
def relu6(x) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return clamp(F.as_tensor(x, "ReLU6", "x"), 0.0, 6.0)


def hardswish(x) -> Tensor:
    """``x * relu6(x + 3) / 6`` (``ops.HSwish``, ``ops.hardswish``)."""
    t = F.as_tensor(x, "HSwish", "x")
    return t * relu6(t + 3.0) / 6.0


class HSwish(Primitive):
    """``HSwish()(x)``: ``x * relu6(x + 3) / 6``."""

    def __call__(self, x) -> Tensor:
        return hardswish(x)


def prelu(x, weight) -> Tensor:
    """``x`` where x > 0, else ``weight * x``, ``weight`` (1-D) along axis 1 (``ops.prelu``)."""
    t, w = F.as_tensor(x, "PReLU", "x"), F.as_tensor(weight, "PReLU", "weight")
    if w.ndim != 1 or (w.shape[0] != 1 and (t.ndim < 2 or t.shape[1] != w.shape[0])):
        raise ValueError(f"PReLU: weight {w.shape} must have 1 entry or one per channel of x {t.shape}")
    if t.ndim >= 2:
        w = w.reshape((1, w.shape[0]) + (1,) * (t.ndim - 2))
    return F.relu(t) - w * F.relu(-t)


def inv(x) -> Tensor:
    """``1 / x`` (``ops.inv``)."""
    return 1.0 / F.as_tensor(x, "inv", "x")


# ----- clipping -----
def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite: bool = False):
    """``x`` (a Tensor, or a tuple/list of them) times ``max_norm / (total_norm + 1e-6)`` where that
    is below 1: the ``norm_type``-norm of all entries together, as MindSpore 2.10's ``clip_by_norm``."""
    single = isinstance(x, Tensor)
    items = [x] if single else list(x) if isinstance(x, tuple | list) else None
    if not items:
        raise TypeError(
            f"clip_by_norm: x must be a Tensor or a non-empty tuple/list of them, got {type(x).__name__}"
        )
    for name, v in (("max_norm", max_norm), ("norm_type", norm_type)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"clip_by_norm: {name} must be a float or an int, got {type(v).__name__}")
    ts = [F.as_tensor(t, "clip_by_norm", "x") for t in items]
    p = float(norm_type)
    if p == float("inf"):
        total = F.reduce_max(F.stack([F.reduce_max(F.abs(t).astype(mstype.float32)) for t in ts]))
    else:
        parts = [(F.abs(t).astype(mstype.float32) ** p).sum() for t in ts]
        total = F.stack(parts).sum() ** (1.0 / p)
    value = float(total.asnumpy())
    if error_if_nonfinite and not np.isfinite(value):
        raise RuntimeError(f"For clip_by_norm, the total norm of order {norm_type} from input is non-finite.")
    coef = max_norm / (total + 1e-6)
    if not float(coef.asnumpy()) < 1:
        return x
    out = [(t * coef).astype(t.dtype) for t in ts]
    return out[0] if single else type(x)(out)


# ----- building and picking -----
def block_diag(*inputs) -> Tensor:
    """The matrices of ``inputs`` (0-, 1- or 2-D) on the diagonal of one matrix, zeros elsewhere."""
    if not inputs:
        raise TypeError("block_diag: needs at least one Tensor")
    mats = []
    for i, a in enumerate(inputs):
        t = F.as_tensor(a, "block_diag", f"inputs[{i}]")
        if t.ndim > 2:
            raise ValueError(f"block_diag: inputs[{i}] must have rank <= 2, got shape {t.shape}")
        mats.append(t.reshape((1, 1)) if t.ndim == 0 else t.reshape((1, -1)) if t.ndim == 1 else t)
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        rows.append(_constant_pad(m, [(0, 0), (left, width - left - m.shape[1])], 0))
        left += m.shape[1]
    return F.concat(rows, 0)


class TopK(Primitive):
    """``TopK(sorted=True)(input_x, k)``: the ``k`` largest entries along the last axis and their
    int32 indices (ties: the lower index first); the values' gradient reaches the entries picked."""

    def __init__(self, sorted: bool = True):  # noqa: A002 - MindSpore's name
        if not isinstance(sorted, bool):
            raise TypeError(f"TopK: sorted must be a bool, got {type(sorted).__name__}")
        self.sorted = sorted

    def __call__(self, input_x, k: int) -> tuple[Tensor, Tensor]:
        x = F.as_tensor(input_x, "TopK", "input_x")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= (x.shape[-1] if x.ndim else 1):
            raise ValueError(f"TopK: k must be an int in [0, {x.shape[-1] if x.ndim else 1}], got {k!r}")
        order = np.argsort(-x.asnumpy(), axis=-1, kind="stable")[..., :k].astype(np.int32)
        indices = Tensor(order)
        return gather_d(x, x.ndim - 1, indices), indices


def tensor_scatter_add(input_x, indices, updates) -> Tensor:
    """``input_x`` with ``updates`` added at ``indices`` (each row of the last axis indexes the leading
    axes; repeated indices add up), as MindSpore's ``tensor_scatter_add``."""
    x = F.as_tensor(input_x, "tensor_scatter_add", "input_x")
    u = F.as_tensor(updates, "tensor_scatter_add", "updates")
    if not isinstance(indices, Tensor) or indices.dtype.np.kind not in "iu" or indices.ndim < 1:
        raise TypeError(
            f"tensor_scatter_add: indices must be an integer Tensor of rank >= 1, got {indices!r:.60}"
        )
    idx = indices.asnumpy()
    depth = idx.shape[-1]
    lead, rest = x.shape[:depth], x.shape[depth:]
    if depth > x.ndim or u.shape != idx.shape[:-1] + rest:
        raise OpError(
            f"tensor_scatter_add: updates {u.shape} must have shape indices.shape[:-1] + input_x.shape[{depth}:] "
            f"= {idx.shape[:-1] + rest}"
        )
    rows = idx.reshape(-1, depth)
    if np.any(rows < 0) or np.any(rows >= np.array(lead)):
        raise IndexError(f"tensor_scatter_add: an index of {indices.shape} is outside input_x's axes {lead}")
    flat = np.ravel_multi_index(tuple(rows.T), lead) if depth else np.zeros(len(rows), int)
    placing = np.zeros((int(np.prod(lead)), len(rows)), x.dtype.np)
    np.add.at(placing, (flat, np.arange(len(rows))), 1)
    added = F.matmul(Tensor(placing), u.reshape((len(rows), -1)).astype(x.dtype))
    return x + added.reshape(x.shape)


class Eps(Primitive):
    """``Eps()(x)``: a Tensor like ``x`` filled with its dtype's machine epsilon."""

    def __call__(self, x) -> Tensor:
        t = F.as_tensor(x, "Eps", "x")
        if t.dtype.np.kind != "f":
            raise TypeError(f"Eps: x must be a float Tensor, got {t.dtype}")
        return Tensor(np.full(t.shape, np.finfo(t.dtype.np).eps, t.dtype.np))


# ----- graph-mode helpers -----
def assign(variable, value) -> Tensor:
    """``variable`` (a Parameter) set to ``value`` (cast to its dtype, broadcast to its shape); returns it."""
    if not isinstance(variable, Parameter):
        raise TypeError(f"assign: variable must be a Parameter, got {type(variable).__name__}")
    data = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
    variable.set_data(Tensor(np.broadcast_to(data, variable.shape).astype(variable.dtype.np)))
    return variable


class Assign(Primitive):
    """``Assign()(variable, value)``: ``assign``."""

    def __call__(self, variable, value) -> Tensor:
        return assign(variable, value)


def make_range(*args) -> tuple:
    """``tuple(range(*args))`` for ints (``ops.make_range(limit)``, ``(start, limit[, delta])``)."""
    if not 1 <= len(args) <= 3 or not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise TypeError(f"make_range: takes 1 to 3 ints, got {args!r}")
    if len(args) == 3 and args[2] == 0:
        raise ValueError("make_range: delta must not be 0")
    return tuple(range(*args))


def partial(func, *args):
    """``func`` with its first arguments fixed (``functools.partial``)."""
    if not callable(func):
        raise TypeError(f"partial: func must be callable, got {type(func).__name__}")
    return functools.partial(func, *args)


class Partial(Primitive):
    """``Partial()(func, *args)``: ``partial``."""

    def __call__(self, func, *args):
        return partial(func, *args)


__all__ = [
    "Assign",
    "Eps",
    "HSwish",
    "Partial",
    "TopK",
    "assign",
    "block_diag",
    "clip_by_norm",
    "hardswish",
    "inv",
    "make_range",
    "partial",
    "prelu",
    "relu6",
    "tensor_scatter_add",
]
