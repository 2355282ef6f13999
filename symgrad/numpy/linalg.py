"""Products and norms of ``mindspore.numpy``: matmul, dot, outer, inner, tensordot, trace, norm."""

from __future__ import annotations

import math

from symgrad import ops
from symgrad.numpy.creation import asarray
from symgrad.numpy.elementwise import cast_to
from symgrad.ops.reductions import diagonal_sum
from symgrad.tensor import Tensor


def matmul(x1, x2, dtype=None) -> Tensor:
    """The matrix product, batched over leading axes (``ops.matmul``)."""
    return cast_to(ops.matmul(asarray(x1), asarray(x2)), dtype)


def dot(a, b) -> Tensor:
    """NumPy's dot (``ops.dot``)."""
    return ops.dot(asarray(a), asarray(b))


def outer(a, b) -> Tensor:
    """Every product ``a[i] * b[j]`` of the flattened inputs."""
    return ops.outer(asarray(a), asarray(b))


def inner(a, b) -> Tensor:
    """The last axes summed together."""
    return ops.inner(asarray(a), asarray(b))


def tensordot(a, b, axes=2) -> Tensor:
    """Sums over axis pairs (``ops.tensor_dot``)."""
    return ops.tensor_dot(asarray(a), asarray(b), axes)


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None) -> Tensor:
    """The sum of the ``offset`` diagonal of axes ``axis1`` and ``axis2``."""
    return cast_to(diagonal_sum(asarray(a), offset, axis1, axis2), dtype)


def _vector_norm(t: Tensor, ord, axis: int, keepdims: bool) -> Tensor:  # noqa: A002 - NumPy's name
    magnitude = ops.abs(t)
    if ord == math.inf:
        return ops.amax(magnitude, axis, keepdims)
    if ord == -math.inf:
        return ops.amin(magnitude, axis, keepdims)
    if ord == 0:
        return ops.sum(ops.not_equal(t, 0).astype(t.dtype), axis, keepdims)
    if ord == 1:
        return ops.sum(magnitude, axis, keepdims)
    return ops.norm(t, ord, axis, keepdims)


def _matrix_norm(t: Tensor, ord, axes: tuple[int, int], keepdims: bool) -> Tensor:  # noqa: A002
    rows, cols = (a % t.ndim for a in axes)
    if ord in (None, "fro"):
        return ops.norm(t, None, (rows, cols), keepdims)
    if ord not in (1, -1, math.inf, -math.inf):
        raise ValueError(
            f"norm: matrix norm ord={ord!r} is not supported (only None, 'fro', 1, -1, inf, -inf)"
        )
    summed, other = (rows, cols) if ord in (1, -1) else (cols, rows)  # column sums for 1, row sums for inf
    sums = ops.sum(ops.abs(t), summed, True)
    pick = ops.amax if ord in (1, math.inf) else ops.amin
    result = pick(sums, other, True)
    return result if keepdims else result.squeeze((rows, cols))


def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A002 - NumPy's name
    """A vector norm (one axis; the flattened tensor for ``ord=None, axis=None``) or a matrix norm
    (two axes; a 2-D tensor with ``axis=None``), as NumPy defines them."""
    t = asarray(x)
    if axis is None:
        if ord is None:
            return ops.norm(t, None, None, keepdims)
        if t.ndim not in (1, 2):
            raise ValueError(f"norm: with axis=None the input must be 1-D or 2-D, got shape {t.shape}")
        axis = tuple(range(t.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(axes) == 1:
        return _vector_norm(t, 2 if ord is None else ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(t, ord, axes, keepdims)
    raise ValueError(f"norm: axis must name one or two axes, got {axis!r}")


__all__ = ["dot", "inner", "matmul", "norm", "outer", "tensordot", "trace"]
