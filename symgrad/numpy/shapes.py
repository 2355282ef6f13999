"""Shape functions of ``mindspore.numpy``: reshape, transpose, expand_dims, concatenate, stack,
split, tile, flip, where, meshgrid, tril/triu, ...: each the ``symgrad.ops`` op of that meaning."""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.numpy.creation import asarray
from symgrad.numpy.elementwise import operand
from symgrad.ops.shaping import grid_axes
from symgrad.tensor import Tensor


def _all(arrays) -> list[Tensor]:
    return [asarray(a) for a in arrays]


def reshape(x, new_shape) -> Tensor:
    """``x`` with ``new_shape`` (one -1 allowed)."""
    return ops.reshape(asarray(x), new_shape)


def roll(a, shift, axis=None) -> Tensor:
    """Entries shifted by ``shift`` along ``axis`` (the flattened array when None), wrapping round."""
    return ops.roll(asarray(a), shift, axis)


def ravel(x) -> Tensor:
    """``x`` as a 1-D tensor."""
    return ops.ravel(asarray(x))


def transpose(a, axes=None) -> Tensor:
    """``a`` with its axes permuted (reversed when ``axes`` is None)."""
    t = asarray(a)
    return ops.transpose(t, tuple(reversed(range(t.ndim))) if axes is None else axes)


def swapaxes(x, axis1: int, axis2: int) -> Tensor:
    """``x`` with two axes exchanged."""
    return ops.swapaxes(asarray(x), axis1, axis2)


def moveaxis(a, source, destination) -> Tensor:
    """``a`` with axes moved from ``source`` to ``destination``."""
    return ops.moveaxis(asarray(a), source, destination)


def expand_dims(a, axis) -> Tensor:
    """``a`` with size-1 axes inserted at ``axis`` (an int or a sequence of positions in the result)."""
    t = asarray(a)
    axes = tuple(axis) if isinstance(axis, tuple | list) else (axis,)
    for position in sorted(p % (t.ndim + len(axes)) for p in axes):
        t = ops.expand_dims(t, position)
    return t


def squeeze(a, axis=None) -> Tensor:
    """``a`` without its size-1 axes (those in ``axis`` when given)."""
    return ops.squeeze(asarray(a), axis)


def concatenate(arrays, axis=0) -> Tensor:
    """Tensors joined along ``axis`` (flattened first when ``axis`` is None)."""
    ts = _all(arrays) if isinstance(arrays, tuple | list) else [asarray(arrays)]
    if axis is None:
        return ops.concat([t.reshape((-1,)) for t in ts], 0)
    return ops.concat(ts, axis)


def stack(arrays, axis: int = 0) -> Tensor:
    """Tensors of one shape stacked along a new ``axis``."""
    return ops.stack(_all(arrays), axis)


def hstack(tup) -> Tensor:
    """Tensors joined along axis 1 (axis 0 for 1-D ones)."""
    return ops.hstack(_all(tup))


def vstack(tup) -> Tensor:
    """Tensors joined along axis 0, 1-D ones as rows."""
    return ops.vstack(_all(tup))


def column_stack(tup) -> Tensor:
    """1-D tensors as columns (2-D ones as they are), joined along axis 1."""
    return ops.concat([t.reshape((-1, 1)) if t.ndim < 2 else t for t in _all(tup)], 1)


def _pieces(x, indices_or_sections, axis: int, equal: bool, op: str):
    """Pieces of ``x`` along ``axis``: ``n`` (near-)equal ones for an int (a tuple), or cut at the
    given indices (a list), as MindSpore returns them."""
    t = asarray(x)
    length = t.shape[axis]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0 or (equal and length % n):
            raise ValueError(f"{op}: axis {axis} of length {length} does not split into {n} equal pieces")
        base, extra = divmod(length, n)
        return tuple(ops.split(t, [base + 1] * extra + [base] * (n - extra), axis))
    cuts = [0, *(min(max(int(i), 0), length) for i in indices_or_sections), length]
    bounds = [(a, max(a, b)) for a, b in zip(cuts, cuts[1:])]
    index = (slice(None),) * (axis % t.ndim)
    return [t[index + (slice(a, b),)] for a, b in bounds]


def split(x, indices_or_sections, axis: int = 0):
    """``x`` in equal pieces (an int) or cut at indices (a list) along ``axis``."""
    return _pieces(x, indices_or_sections, axis, True, "split")


def array_split(x, indices_or_sections, axis: int = 0):
    """As ``split``, but an int need not divide the axis: the first pieces are one longer."""
    return _pieces(x, indices_or_sections, axis, False, "array_split")


def hsplit(x, indices_or_sections):
    """``split`` along axis 1."""
    return split(x, indices_or_sections, 1)


def vsplit(x, indices_or_sections):
    """``split`` along axis 0."""
    return split(x, indices_or_sections, 0)


def tile(a, reps) -> Tensor:
    """``a`` repeated ``reps`` times (an int or one count per axis)."""
    return ops.tile(asarray(a), (reps,) if isinstance(reps, int) else tuple(reps))


def broadcast_to(array, shape) -> Tensor:
    """``array`` broadcast to ``shape``."""
    return ops.broadcast_to(asarray(array), shape)


def broadcast_arrays(*args) -> list[Tensor]:
    """The arguments broadcast to their common shape."""
    ts = _all(args)
    shape = np.broadcast_shapes(*(t.shape for t in ts))
    return [ops.broadcast_to(t, shape) for t in ts]


def flip(m, axis=None) -> Tensor:
    """``m`` reversed along ``axis`` (an int, a sequence, or every axis when None)."""
    t = asarray(m)
    axes = range(t.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return ops.flip(t, tuple(axes))


def fliplr(m) -> Tensor:
    """``m`` reversed along axis 1."""
    return ops.fliplr(asarray(m))


def flipud(m) -> Tensor:
    """``m`` reversed along axis 0."""
    return ops.flipud(asarray(m))


def _at_least(rank: int, arys):
    ts = [t.reshape((1,) * (rank - t.ndim) + t.shape) if t.ndim < rank else t for t in _all(arys)]
    return ts[0] if len(ts) == 1 else ts


def atleast_1d(*arys):
    """Each argument with at least one axis."""
    return _at_least(1, arys)


def atleast_2d(*arys):
    """Each argument with at least two axes."""
    return _at_least(2, arys)


def atleast_3d(*arys):
    """Each argument with at least three axes (1-D: (1, n, 1); 2-D: (m, n, 1))."""
    ts = [
        t.reshape((1, -1, 1)) if t.ndim == 1 else t.expand_dims(2) if t.ndim == 2 else t for t in _all(arys)
    ]
    ts = [t.reshape((1, 1, 1)) if t.ndim == 0 else t for t in ts]
    return ts[0] if len(ts) == 1 else ts


def where(condition, x=None, y=None) -> Tensor:
    """``x`` where ``condition`` holds, else ``y`` (``ops.where``; bool ``x`` and ``y`` give float32)."""
    if x is None or y is None:
        raise TypeError("where: x and y must both be given (symgrad has no data-dependent shapes)")
    a, b = operand(x), operand(y)
    if all(isinstance(v, bool) or (isinstance(v, Tensor) and v.dtype == mstype.bool_) for v in (a, b)):
        a, b = asarray(a).astype(mstype.float32), asarray(b).astype(mstype.float32)
    return ops.where(asarray(condition).astype(mstype.bool_), a, b)


def meshgrid(*xi, sparse: bool = False, indexing: str = "xy") -> list[Tensor]:
    """Coordinate grids of 1-D tensors (``sparse``: each kept at size 1 on the other axes)."""
    return list(grid_axes(_all(xi), indexing) if sparse else ops.meshgrid(*_all(xi), indexing=indexing))


def tril(m, k: int = 0) -> Tensor:
    """The lower triangle, on and below diagonal ``k``."""
    return ops.tril(asarray(m), k)


def triu(m, k: int = 0) -> Tensor:
    """The upper triangle, on and above diagonal ``k``."""
    return ops.triu(asarray(m), k)


def size(a, axis=None) -> int:
    """The number of elements (along ``axis`` when given)."""
    t = asarray(a)
    return ops.size(t) if axis is None else t.shape[axis]


__all__ = sorted(
    [
        "roll",
        "array_split",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "broadcast_arrays",
        "broadcast_to",
        "column_stack",
    ]
    + ["concatenate", "expand_dims", "flip", "fliplr", "flipud", "hsplit", "hstack", "meshgrid", "moveaxis"]
    + [
        "ravel",
        "reshape",
        "size",
        "split",
        "squeeze",
        "stack",
        "swapaxes",
        "tile",
        "transpose",
        "tril",
        "triu",
    ]
    + ["vsplit", "vstack", "where"]
)
