"""Array creation as in ``mindspore.numpy``: array/asarray, zeros, ones, full, eye, arange, linspace, ...

mindspore.numpy's conversions: a Python (or list) int becomes int32, a float float32, a bool bool;
zeros, ones, eye and identity are float32 by default, arange is int32 for ints and float32
otherwise. The values come from ``symgrad.ops.creation`` (computed in float32 as MindSpore does).
"""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad.ops import creation as C
from symgrad.tensor import Tensor

_KIND_DTYPES = {"b": mstype.bool_, "i": mstype.int32, "u": mstype.int32, "f": mstype.float32}


def asarray(a, dtype=None) -> Tensor:
    """``a`` as a Tensor (itself when it is one and ``dtype`` agrees): Python ints int32, floats float32."""
    if isinstance(a, Tensor):
        return a if dtype is None or mstype.to_dtype(dtype) == a.dtype else a.astype(dtype)
    if isinstance(a, np.ndarray | np.generic):
        return Tensor(a, dtype)
    value = np.asarray(a)
    if value.dtype.kind not in _KIND_DTYPES:
        raise TypeError(
            f"asarray: input must be a number, bool, list, tuple or Tensor, got {type(a).__name__}"
        )
    return Tensor(value, C.dtype_or(dtype, _KIND_DTYPES[value.dtype.kind]))


def array(obj, dtype=None, copy: bool = True, ndmin: int = 0) -> Tensor:
    """``obj`` as a new Tensor (see ``asarray``) with at least ``ndmin`` axes."""
    t = asarray(obj, dtype)
    if copy and t is obj:  # a new Tensor of the same node: writing into one leaves the other
        t = Tensor._wrap(t._node, t._env)
    return t.reshape((1,) * (ndmin - t.ndim) + t.shape) if t.ndim < ndmin else t


def _dtype(a, dtype) -> mstype.DType:
    """``dtype``, or the dtype ``a`` converts to."""
    return C.dtype_or(dtype, asarray(a).dtype)


def zeros(shape, dtype=mstype.float32) -> Tensor:
    """Zeros of ``shape``."""
    return C.zeros(shape, dtype)


def ones(shape, dtype=mstype.float32) -> Tensor:
    """Ones of ``shape``."""
    return C.ones(shape, dtype)


def empty(shape, dtype=mstype.float32) -> Tensor:
    """A tensor of ``shape`` (zeros)."""
    return C.zeros(shape, dtype)


def full(shape, fill_value, dtype=None) -> Tensor:
    """``fill_value`` (a number, array or Tensor, broadcast) over ``shape``, in its dtype by default."""
    value = asarray(fill_value)
    return Tensor(np.broadcast_to(value.asnumpy(), C.shape_of(shape, "full")).astype(_dtype(value, dtype).np))


def full_like(a, fill_value, dtype=None, shape=None) -> Tensor:
    """``fill_value`` in the shape and dtype of ``a`` (unless ``dtype`` or ``shape`` is given)."""
    t = asarray(a)
    return full(t.shape if shape is None else shape, fill_value, C.dtype_or(dtype, t.dtype))


def zeros_like(a, dtype=None, shape=None) -> Tensor:
    """Zeros in the shape and dtype of ``a``."""
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None) -> Tensor:
    """Ones in the shape and dtype of ``a``."""
    return full_like(a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None) -> Tensor:
    """A tensor in the shape and dtype of ``prototype`` (zeros)."""
    return full_like(prototype, 0, dtype, shape)


def eye(N, M=None, k: int = 0, dtype=mstype.float32) -> Tensor:  # noqa: N803 - NumPy's names
    """Ones on the ``k``-th diagonal of an ``N`` x ``M`` matrix."""
    return C.diagonal_ones(N, M, k, dtype)


def identity(n: int, dtype=mstype.float32) -> Tensor:
    """The ``n`` x ``n`` identity."""
    return C.eye(n, n, dtype)


def arange(start, stop=None, step=None, dtype=None) -> Tensor:
    """``start, start + step, ...`` below ``stop`` (``arange(n)`` counts from 0): int32 when every
    argument is a Python int, else float32."""
    numbers = [v for v in (start, stop, step) if v is not None]
    default = (
        mstype.int32
        if all(isinstance(v, int) and not isinstance(v, bool) for v in numbers)
        else mstype.float32
    )
    if stop is None:
        start, stop = 0, start
    values = C.arange_values(start, stop, 1 if step is None else step)
    return Tensor(values.astype(C.dtype_or(dtype, default).np))


def linspace(
    start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0
):
    """``num`` evenly spaced values from ``start`` to ``stop`` (float32 by default); with ``retstep``
    also the step. Array bounds give one sequence per entry, along ``axis``."""
    values, step = C.spaced(start, stop, num, endpoint, pin_stop=True, axis=axis)
    out = Tensor(values.astype(C.dtype_or(dtype, mstype.float32).np))
    return (out, Tensor(np.asarray(step, np.float32))) if retstep else out


def logspace(
    start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0
) -> Tensor:
    """``base ** linspace(start, stop, ...)``."""
    exponents = C.spaced(start, stop, num, endpoint, pin_stop=True, axis=axis)[0]
    return Tensor(np.power(np.float32(base), exponents).astype(C.dtype_or(dtype, mstype.float32).np))


__all__ = sorted(
    ["arange", "array", "asarray", "empty", "empty_like", "eye", "full", "full_like", "identity", "linspace"]
    + ["logspace", "ones", "ones_like", "zeros", "zeros_like"]
)
