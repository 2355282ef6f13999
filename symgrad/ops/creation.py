"""Tensors made from shapes and numbers: zeros, ones, full, fill, eye, linspace, arange, one_hot, ...

These are constants of the graph, as in MindSpore (no gradient reaches a size, a bound or a fill
value); a Tensor given for one is read as its value. The sequences are computed in float32 as
MindSpore computes them (``start + i * step``), so they agree with it to the last bit.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad import dtype as mstype
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor


def value_of(x):
    """A Tensor's value as a NumPy array (other values unchanged)."""
    return x.asnumpy() if isinstance(x, Tensor) else x


def shape_of(size, op: str) -> tuple[int, ...]:
    """``size`` (an int, a sequence of ints or an integer Tensor) as a shape tuple."""
    value = np.asarray(value_of(size))
    if value.dtype.kind not in "iu" and value.size:
        raise TypeError(f"{op}: a shape must be an int or a sequence of ints, got {size!r:.60}")
    return tuple(int(n) for n in value.reshape(-1))


def dtype_or(dtype, default: mstype.DType) -> mstype.DType:
    """``dtype`` as a symgrad dtype, or ``default`` when None."""
    return default if dtype is None else mstype.to_dtype(dtype)


def _kind_dtype(*values) -> mstype.DType:
    """float32 when any value is a float (a number or a float Tensor), else int64."""
    floats = any(np.asarray(value_of(v)).dtype.kind == "f" for v in values)
    return mstype.float32 if floats else mstype.int64


# ----- filled -----
def zeros(size, dtype=None) -> Tensor:
    """Zeros of shape ``size`` (float32 by default)."""
    return Tensor(np.zeros(shape_of(size, "zeros"), dtype_or(dtype, mstype.float32).np))


def ones(shape, dtype=None) -> Tensor:
    """Ones of ``shape`` (float32 by default)."""
    return Tensor(np.ones(shape_of(shape, "ones"), dtype_or(dtype, mstype.float32).np))


def full(size, fill_value, *, dtype=None) -> Tensor:
    """``fill_value`` repeated to shape ``size``; int64 by default, as MindSpore 2.10 documents
    (``full((2, 3), 1.2)`` holds ones: pass ``dtype`` for floats)."""
    return fill(dtype_or(dtype, mstype.int64), size, fill_value)


def full_like(input, fill_value, *, dtype=None) -> Tensor:  # noqa: A002 - MindSpore's name
    """``fill_value`` in the shape (and by default the dtype) of ``input``."""
    t = input if isinstance(input, Tensor) else Tensor(input)
    return fill(dtype_or(dtype, t.dtype), t.shape, fill_value)


def fill(type, shape, value) -> Tensor:  # noqa: A002 - MindSpore's name
    """A tensor of ``shape`` and dtype ``type`` holding ``value`` everywhere (cast as ``Cast`` casts)."""
    target = mstype.to_dtype(type).np
    return Tensor(np.full(shape_of(shape, "fill"), np.asarray(value_of(value)).astype(target), target))


def eye(n, m=None, dtype=None) -> Tensor:
    """The ``n`` x ``m`` identity (``m`` = ``n`` by default; float32 by default)."""
    return diagonal_ones(n, m, 0, dtype_or(dtype, mstype.float32))


def diagonal_ones(n, m, k: int, dtype) -> Tensor:
    """Ones on the ``k``-th diagonal of an ``n`` x ``m`` matrix (``m`` = ``n`` when None) of ``dtype``."""
    return Tensor(np.eye(int(n), None if m is None else int(m), int(k), dtype=mstype.to_dtype(dtype).np))


def scalar_to_tensor(input_x, dtype=mstype.float32) -> Tensor:
    """The number ``input_x`` as a 0-d Tensor of ``dtype``."""
    return Tensor(np.asarray(input_x).astype(mstype.to_dtype(dtype).np))


# ----- sequences -----
def spaced(start, stop, num: int, endpoint: bool = True, pin_stop: bool = False, axis: int = 0):
    """``num`` float32 values from ``start`` towards ``stop`` (arrays: along a new ``axis``) and the step.

    As MindSpore computes them: ``start + i * step`` with ``step = (stop - start) / (num - 1)`` (or
    ``/ num`` without the endpoint), in float32; ``pin_stop`` makes the last value exactly ``stop``
    (``mindspore.numpy.linspace`` does, ``ops.linspace`` does not).
    """
    if int(num) < 1:
        raise ValueError(f"linspace: num must be >= 1, got {num}")
    first, last = np.broadcast_arrays(
        np.asarray(value_of(start), np.float32), np.asarray(value_of(stop), np.float32)
    )
    axis = axis % (first.ndim + 1)
    if num == 1:
        return np.expand_dims(first, axis).copy(), np.float32(np.nan) if endpoint else last - first
    step = (last - first) / np.float32(num - 1 if endpoint else num)
    iota = np.arange(num, dtype=np.float32).reshape((-1,) + (1,) * first.ndim)
    values = first + iota * step
    if endpoint and pin_stop:
        values[-1] = last
    return np.moveaxis(values, 0, axis), step


def linspace(start, end, steps: int) -> Tensor:
    """``steps`` evenly spaced float32 values from ``start`` to ``end``."""
    return Tensor(spaced(start, end, steps)[0])


def arange_values(start, stop, step) -> np.ndarray:
    """``start, start + step, ...`` below ``stop`` (above, for a negative step): integers exactly,
    other values as float32 ``start + i * step``, as MindSpore computes them."""
    start, stop, step = (value_of(v) for v in (start, stop, step))
    if step == 0:
        raise ValueError("arange: step must not be 0")
    count = max(math.ceil((float(stop) - float(start)) / float(step)), 0)
    if all(np.asarray(v).dtype.kind in "iub" for v in (start, stop, step)):
        return int(start) + np.arange(count, dtype=np.int64) * int(step)
    return np.float32(start) + np.arange(count, dtype=np.float32) * np.float32(step)


def arange(start=0, end=None, step=1, *, dtype=None) -> Tensor:
    """``start, start + step, ...`` up to ``end`` (``arange(n)`` counts from 0): int64 for ints, float32
    when any argument is a float."""
    if end is None:
        start, end = 0, start
    return Tensor(arange_values(start, end, step).astype(dtype_or(dtype, _kind_dtype(start, end, step)).np))


def one_hot(indices, depth: int, on_value=1, off_value=0, axis: int = -1) -> Tensor:
    """``on_value`` where a new axis (of size ``depth``, at ``axis``) equals the index, else ``off_value``;
    in ``on_value``'s dtype (int64 for an int, float32 for a float)."""
    index = np.asarray(value_of(indices))
    if index.dtype.kind not in "iu":
        raise TypeError(f"OneHot: indices must hold integers, got dtype {index.dtype}")
    on = on_value if isinstance(on_value, Tensor) else Tensor(on_value)
    hit = np.expand_dims(index, -1) == np.arange(int(depth))
    values = np.where(hit, value_of(on_value), value_of(off_value)).astype(on.dtype.np)
    return Tensor(np.moveaxis(values, -1, axis % (index.ndim + 1)))


# ----- op classes -----
class Zeros(Primitive):
    """``Zeros()(size, dtype=None)``."""

    def __call__(self, size, dtype=None):
        return zeros(size, dtype)


class Ones(Primitive):
    """``Ones()(shape, dtype=None)``."""

    def __call__(self, shape, dtype=None):
        return ones(shape, dtype)


class Fill(Primitive):
    """``Fill()(dtype, dims, x)``."""

    def __call__(self, dtype, dims, x):
        return fill(dtype, dims, x)


class Eye(Primitive):
    """``Eye()(n, m, dtype)``."""

    def __call__(self, n, m, dtype):
        return eye(n, m, dtype)


class LinSpace(Primitive):
    """``LinSpace()(start, stop, num)``."""

    def __call__(self, start, stop, num):
        return linspace(start, stop, num)


class Range(Primitive):
    """``Range(maxlen=1000000)(start, end, step)``: int64 for integers, else float32 (as MindSpore 2.10)."""

    def __init__(self, maxlen: int = 1000000):
        self.maxlen = maxlen

    def __call__(self, start, end, step):
        values = arange_values(start, end, step)
        if values.size > self.maxlen:
            raise ValueError(f"Range: {values.size} values exceed maxlen {self.maxlen}")
        return Tensor(values.astype(_kind_dtype(start, end, step).np))


class OneHot(Primitive):
    """``OneHot(axis=-1)(indices, depth, on_value, off_value)``."""

    def __init__(self, axis: int = -1):
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        return one_hot(indices, depth, on_value, off_value, self.axis)


class ScalarToTensor(Primitive):
    """``ScalarToTensor()(x, dtype=float32)``."""

    def __call__(self, x, dtype=mstype.float32):
        return scalar_to_tensor(x, dtype)


__all__ = sorted(
    ["arange", "eye", "fill", "full", "full_like", "linspace", "one_hot", "ones", "scalar_to_tensor", "zeros"]
    + ["Eye", "Fill", "LinSpace", "OneHot", "Ones", "Range", "ScalarToTensor", "Zeros"]
)
