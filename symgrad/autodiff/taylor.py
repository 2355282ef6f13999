"""Taylor mode as MindSpore spells it: ``jet``, ``derivative`` and ``linearize``.

``jet(fn, primals, series)`` follows the path ``x(t) = x + sum_k series[k] t^(k+1) / (k+1)!``
(``series[k]`` is the path's (k+1)-th derivative at t = 0) and returns ``fn(x)`` and the
derivatives ``d^(k+1)/dt^(k+1) fn(x(t))`` at t = 0, one per row of ``series``. They are
computed by forward sweeps over the traced graph, one per order, in a scalar ``t``;
the returned series are values (not differentiated again).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from symgrad.autodiff.api import as_tuple, jvp
from symgrad.autodiff.tracing import named_like
from symgrad.errors import GradError, GradTypeError
from symgrad.tensor import Tensor


def _check(primals: tuple, series: tuple, who: str) -> int:
    if len(primals) != len(series):
        raise GradError(f"{who}: got {len(series)} series for {len(primals)} primal(s)")
    orders = set()
    for i, (x, s) in enumerate(zip(primals, series)):
        if not isinstance(x, Tensor) or not isinstance(s, Tensor):
            raise GradTypeError(f"{who}: primals[{i}] and series[{i}] must be Tensors")
        if s.shape[1:] != x.shape or s.ndim != x.ndim + 1:
            raise GradError(
                f"{who}: series[{i}] must have shape (order,) + {x.shape}, the primal's shape; got {s.shape}"
            )
        orders.add(s.shape[0])
    if len(orders) != 1:
        raise GradError(f"{who}: every series must have the same order (rows), got {sorted(orders)}")
    return orders.pop()


def jet(fn: Callable, primals, series):
    """``(fn(primals), out_series)``: the derivatives of ``fn`` along the path given by ``series``."""
    xs, ss = as_tuple(primals), as_tuple(series)
    order = _check(xs, ss, "jet")
    dtype = xs[0].dtype

    def along_path(t):
        points = [
            x + sum((s[k] * (t ** (k + 1) / math.factorial(k + 1)) for k in range(order)), start=t * 0)
            for x, s in zip(xs, ss)
        ]
        return fn(*points)

    derivatives = []
    current: Callable = along_path
    for _ in range(order):
        current = _derivative_in_t(current)
        derivatives.append(current)
    t0 = Tensor(np.zeros((), dtype.np))
    out = fn(*xs)
    rows = [d(t0) for d in derivatives]
    if isinstance(out, tuple):
        return out, tuple(_stack([r[i] for r in rows]) for i in range(len(out)))
    return out, _stack(rows)


def _stack(rows: list[Tensor]) -> Tensor:
    """The rows' values stacked (jet's series are numbers: they are not differentiated again)."""
    return Tensor(np.stack([r.asnumpy() for r in rows]))


def _derivative_in_t(g: Callable) -> Callable:
    def dg(t):
        return jvp(g, t, Tensor(np.ones((), t.dtype.np)))[1]

    return dg


def derivative(fn: Callable, primals, order: int):
    """``(fn(primals), d^order/dt^order fn(primals + t))``: the order-th derivative along all-ones directions."""
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise GradError(f"derivative: order must be a positive int, got {order!r}")
    xs = as_tuple(primals)
    series = tuple(
        Tensor(np.concatenate([np.ones((1, *x.shape)), np.zeros((order - 1, *x.shape))]).astype(x.dtype.np))
        for x in xs
    )
    out, out_series = jet(fn, xs if len(xs) > 1 else xs[0], series if len(xs) > 1 else series[0])
    if isinstance(out, tuple):
        return out, tuple(s[order - 1] for s in out_series)
    return out, out_series[order - 1]


def linearize(fn: Callable, inputs):
    """``(fn(inputs), jvp_fn)`` where ``jvp_fn(v)`` is the Jacobian of ``fn`` at ``inputs`` times ``v``."""
    xs = as_tuple(inputs)
    out = fn(*xs)

    def jvp_fn(*v):
        tangents = v[0] if len(v) == 1 else v
        return jvp(fn, xs if len(xs) > 1 else xs[0], tangents)[1]

    return out, named_like(fn, jvp_fn)
