"""Padding and sliding windows, the pieces convolutions and pooling are built from: each tap of a
window is a strided slice of the (padded) input, so their derivatives are the slices' own."""

from __future__ import annotations

import numpy as np

from symgrad.core.families.structural.builders import getitem, index_to_python, normalize_index
from symgrad.core.graph import Node, const
from symgrad.core.registry import apply, make_node
from symgrad.errors import OpError


def padded(x: Node, pads, value: float = 0.0) -> Node:
    """``x`` with ``pads[a] = (before, after)`` elements of ``value`` added on each axis ``a``: a
    scatter into the larger shape, plus a constant border of ``value`` (such as -inf) if not 0."""
    shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, pads))
    if shape == x.shape:
        return x
    at = normalize_index(shape, tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, pads)))
    out = make_node("scatter", (x,), (at, shape))
    if value == 0:
        return out
    border = np.full(shape, value, dtype=x.dtype or np.float64)
    border[index_to_python(at)] = 0
    return apply("add", out, const(border))


def windows(x: Node, kernel, stride, dilation, out) -> list[tuple[tuple[int, ...], Node]]:
    """Each tap of a window sliding over the trailing ``len(kernel)`` axes of ``x`` (in row-major
    order), with the elements it meets at the ``out`` window positions: ``x[..., t*d :: s]``."""
    lead = (slice(None),) * (x.ndim - len(kernel))
    taps = []
    for tap in np.ndindex(*kernel):
        strided = (slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, o, s in zip(tap, dilation, out, stride))
        taps.append((tap, getitem(x, lead + tuple(strided))))
    return taps


def per_axis(value, dims: int) -> tuple[int, ...]:
    """PyTorch's int-or-list argument of a ``dims``-d op as one int per axis."""
    values = (value,) if isinstance(value, int) else tuple(value)
    return values * dims if len(values) == 1 else values


def pool_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """The number of windows PyTorch's pooling fits on an axis of ``n`` (its ``pooling_output_shape``)."""
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= n + p else out


def pooling_windows(x: Node, dims: int, kernel, stride, padding, dilation, ceil_mode: bool, fill: float):
    """PyTorch's pooling windows over the last ``dims`` axes of ``x``: their taps (see ``windows``) on
    ``x`` padded with ``fill`` (wider on the right where ``ceil_mode`` keeps a window that runs past
    the end), and their number on each axis."""
    k, p, d = per_axis(kernel, dims), per_axis(padding, dims), per_axis(dilation, dims)
    s = per_axis(stride, dims) if stride else k
    spatial = x.shape[x.ndim - dims :]
    out = tuple(pool_size(*args, ceil_mode) for args in zip(spatial, k, s, p, d))
    if min(out, default=1) < 1:
        raise OpError(f"pooling: a {k} window (padding {p}, dilation {d}) does not fit the input {spatial}")
    right = [
        max(p_, (o - 1) * s_ + d_ * (k_ - 1) + 1 - n - p_)
        for n, k_, s_, p_, d_, o in zip(spatial, k, s, p, d, out)
    ]
    pads = [(0, 0)] * (x.ndim - dims) + list(zip(p, right))
    return windows(padded(x, pads, fill), k, s, d, out), out, (k, s, p)


def adaptive_windows(n: int, o: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive pooling windows of an axis of ``n`` into ``o``: [floor(i n / o), ceil((i + 1) n / o))."""
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]
