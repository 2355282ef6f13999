"""Reductions built from table ops: amax/amin, max/min with their indices, argmax/argmin,
ArgMaxWithValue, var/std, L2Normalize and trace.

``amax``/``amin`` are ReduceMax/ReduceMin. Along an axis, ``max``, ``min`` and ``ArgMaxWithValue``
pick the entry at the index (read when the call is traced) as MindSpore does, so on a tie the whole
gradient goes to the first one; indices are integers and carry no gradient.
"""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import reduce_min, select
from symgrad.ops.primitives import Primitive
from symgrad.ops.shaping import gather_d
from symgrad.tensor import Tensor

_sqrt, _maximum, _minimum = F.GENERATED["sqrt"], F.GENERATED["maximum"], F.GENERATED["minimum"]


def _no_mask(where, op: str) -> None:
    if where is not None:
        raise ValueError(f"{op}: the where= mask is not supported by symgrad")


def amax(input, axis=None, keepdims: bool = False, *, initial=None, where=None) -> Tensor:  # noqa: A002
    """The maximum over ``axis`` (all axes when None), at least ``initial`` when given."""
    _no_mask(where, "amax")
    result = F.reduce_max(input, () if axis is None else axis, keepdims)
    return result if initial is None else _maximum(result, initial)


def amin(input, axis=None, keepdims: bool = False, *, initial=None, where=None) -> Tensor:  # noqa: A002
    """The minimum over ``axis`` (all axes when None), at most ``initial`` when given."""
    _no_mask(where, "amin")
    result = reduce_min(input, () if axis is None else axis, keepdims)
    return result if initial is None else _minimum(result, initial)


def _indices(t: Tensor, axis, keepdims: bool, largest: bool) -> np.ndarray:
    """int64 indices of the largest or smallest entries along ``axis`` (of the flattened tensor when None)."""
    find, values = (np.argmax if largest else np.argmin), t.asnumpy()
    if axis is None:
        return np.reshape(find(values), (1,) * t.ndim if keepdims else ()).astype(np.int64)
    return find(values, axis=axis, keepdims=keepdims).astype(np.int64)


def extreme(input, axis, keepdims: bool, largest: bool, op: str) -> tuple[Tensor, Tensor]:  # noqa: A002
    """(the largest or smallest entries along ``axis``, their int64 indices). Along an axis the entry at
    the index is picked (a tie's gradient goes to the first); over all axes (None) it is ReduceMax's or
    ReduceMin's (ties share it), as MindSpore 2.10 computes them."""
    t = F.as_tensor(input, op, "input")
    if axis is None or t.ndim == 0:
        return (amax if largest else amin)(t, None, keepdims), Tensor(_indices(t, None, keepdims, largest))
    axis = int(axis) % t.ndim
    values = gather_d(t, axis, _indices(t, axis, True, largest))
    return (values if keepdims else values.squeeze(axis)), Tensor(_indices(t, axis, keepdims, largest))


def max(input, axis=None, keepdims: bool = False, *, initial=None, where=None) -> tuple:  # noqa: A001, A002
    """(the maximum over ``axis`` (all axes when None), its int64 index), as MindSpore 2.10's ``ops.max``."""
    _no_mask(where, "max")
    values, index = extreme(input, axis, keepdims, True, "max")
    return (values if initial is None else _maximum(values, initial)), index


def min(input, axis=None, keepdims: bool = False, *, initial=None, where=None) -> tuple:  # noqa: A001, A002
    """(the minimum over ``axis`` (all axes when None), its int64 index), as MindSpore 2.10's ``ops.min``."""
    _no_mask(where, "min")
    values, index = extreme(input, axis, keepdims, False, "min")
    return (values if initial is None else _minimum(values, initial)), index


def argmax(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A002 - MindSpore's name
    """The int64 index of the maximum along ``dim`` (of the flattened tensor when None)."""
    t = F.as_tensor(input, "argmax", "input")
    return Tensor(_indices(t, None if dim is None else int(dim) % (t.ndim or 1), keepdim, True))


def argmin(input, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A002 - MindSpore's name
    """The index of the minimum along ``axis`` (of the flattened tensor when None): int32, as in MindSpore 2.10."""
    t = F.as_tensor(input, "argmin", "input")
    return Tensor(
        _indices(t, None if axis is None else int(axis) % (t.ndim or 1), keepdims, False).astype(np.int32)
    )


def var(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:  # noqa: A002
    """The variance over ``axis`` (all when None), dividing by ``count - ddof``; float32 for integers."""
    t = F.as_tensor(input, "var", "input")
    t = t if t.dtype.np.kind == "f" else t.astype(mstype.float32)
    axes = tuple(F.reduction_axes(t, axis, "var"))
    count = int(np.prod([t.shape[a] for a in axes]))
    centred = t - F.mean(t, axes, keep_dims=True)
    return F.reduce_sum(F.square(centred), axes, keepdims) / (count - ddof)


def std(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:  # noqa: A002
    """The standard deviation over ``axis``: ``sqrt(var)``."""
    return _sqrt(var(input, axis, ddof, keepdims))


def l2_normalize(x, axis=0, epsilon: float = 1e-4) -> Tensor:
    """``x / sqrt(max(sum(x^2 over axis), epsilon))``, MindSpore's L2Normalize."""
    t = F.as_tensor(x, "L2Normalize", "input_x")
    axes = tuple(axis) if isinstance(axis, list) else axis
    return t / _sqrt(_maximum(F.reduce_sum(F.square(t), axes, keep_dims=True), epsilon))


def diagonal_sum(input, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:  # noqa: A002
    """The sum of the ``offset`` diagonal of axes ``axis1`` and ``axis2`` (those axes removed)."""
    t = F.as_tensor(input, "trace", "input")
    a, b = axis1 % t.ndim, axis2 % t.ndim
    on = np.eye(t.shape[a], t.shape[b], int(offset), dtype=bool)
    mask = on.reshape(tuple(t.shape[a] if i == a else t.shape[b] if i == b else 1 for i in range(t.ndim)))
    return F.reduce_sum(select(Tensor(mask), t, 0), (a, b))


def trace(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """The sum of the main diagonal of a matrix."""
    return diagonal_sum(input)


class ArgMaxWithValue(Primitive):
    """``ArgMaxWithValue(axis=0, keep_dims=False)(input)``: (int64 index, value) of the maximum."""

    largest = True

    def __init__(self, axis: int = 0, keep_dims: bool = False):
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, input):  # noqa: A002 - MindSpore's name
        values, index = extreme(input, self.axis, self.keep_dims, self.largest, type(self).__name__)
        return index, values


class ArgMinWithValue(ArgMaxWithValue):
    """``ArgMinWithValue(axis=0, keep_dims=False)(input)``: (int64 index, value) of the minimum."""

    largest = False


class L2Normalize(Primitive):
    """``L2Normalize(axis=0, epsilon=1e-4)(input_x)``."""

    def __init__(self, axis=0, epsilon: float = 1e-4):
        self.axis, self.epsilon = axis, epsilon

    def __call__(self, input_x):
        return l2_normalize(input_x, self.axis, self.epsilon)


__all__ = sorted(
    ["amax", "amin", "argmax", "argmin", "max", "min", "std", "trace", "var"]
    + ["ArgMaxWithValue", "ArgMinWithValue", "L2Normalize"]
)
