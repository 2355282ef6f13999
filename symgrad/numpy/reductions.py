"""Reductions of ``mindspore.numpy``: sum, mean, amax/amin (max/min), std, var, ptp, cumsum, argmax, argmin.

Each is the ``symgrad.ops`` reduction with NumPy's arguments (``axis=None`` is every axis). As in
MindSpore, ``sum`` of ints is int64 and ``mean`` of ints keeps the input's int dtype.
"""

from __future__ import annotations

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.numpy.creation import asarray
from symgrad.numpy.elementwise import cast_to
from symgrad.tensor import Tensor


def _whole(where) -> None:
    if where is not True:
        raise ValueError("the where= mask is not supported by symgrad.numpy")


def sum(a, axis=None, dtype=None, keepdims: bool = False, initial=None) -> Tensor:  # noqa: A001
    """The sum over ``axis`` (int64 for integer and bool input), plus ``initial`` when given."""
    t = asarray(a)
    if dtype is None and t.dtype.np.kind in "biu":
        dtype = mstype.int64
    total = ops.sum(t if dtype is None else t.astype(dtype), axis, keepdims)
    return total if initial is None else total + initial


def mean(a, axis=None, keepdims: bool = False, dtype=None) -> Tensor:
    """The mean over ``axis`` (integer input: truncated to its dtype, as MindSpore's)."""
    t = asarray(a)
    result = ops.mean(t, axis, keepdims)
    return cast_to(result, dtype if dtype is not None or t.dtype.np.kind == "f" else t.dtype)


def amax(a, axis=None, keepdims: bool = False, initial=None, where=True) -> Tensor:
    """The maximum over ``axis`` (``ops.amax``)."""
    _whole(where)
    return ops.amax(asarray(a), axis, keepdims, initial=initial)


def amin(a, axis=None, keepdims: bool = False, initial=None, where=True) -> Tensor:
    """The minimum over ``axis`` (``ops.amin``)."""
    _whole(where)
    return ops.amin(asarray(a), axis, keepdims, initial=initial)


max = amax  # noqa: A001 - NumPy's alias
min = amin  # noqa: A001 - NumPy's alias


def var(x, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """The variance over ``axis`` (``ops.var``)."""
    return ops.var(asarray(x), axis, ddof, keepdims)


def std(x, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """The standard deviation over ``axis`` (``ops.std``)."""
    return ops.std(asarray(x), axis, ddof, keepdims)


def ptp(x, axis=None, keepdims: bool = False) -> Tensor:
    """The range, ``amax - amin``, over ``axis``."""
    t = asarray(x)
    return ops.amax(t, axis, keepdims) - ops.amin(t, axis, keepdims)


def cumsum(a, axis=None, dtype=None) -> Tensor:
    """Running sums along ``axis`` (of the flattened tensor when None)."""
    t = asarray(a)
    return ops.cumsum(t.reshape((-1,)) if axis is None else t, 0 if axis is None else axis, dtype)


def argmax(a, axis=None) -> Tensor:
    """The (int64) index of the maximum along ``axis`` (of the flattened tensor when None)."""
    return ops.argmax(asarray(a), axis)


def argmin(a, axis=None) -> Tensor:
    """The (int32) index of the minimum along ``axis`` (of the flattened tensor when None)."""
    return ops.argmin(asarray(a), axis)


__all__ = sorted(
    ["amax", "amin", "argmax", "argmin", "cumsum", "max", "mean", "min", "ptp", "std", "sum", "var"]
)
