"""Array helpers that generated kernels call for structural ops.

Every helper takes the symbolic (per-point) rank of its operands and works on the
trailing axes, so arrays may carry any number of leading batch axes. One class
serves every array library with a NumPy-like namespace (NumPy, CuPy).
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

from symgrad.core.families.structural import index_to_python


def _index(index: tuple) -> tuple:
    return (Ellipsis,) + index_to_python(index)


def unrecorded(method):
    """Marks a helper that a CUDA graph must not record (lowering/cupy/graphs.py): it may copy host
    values to the device or wait for the device (a fallback through SciPy or ``math``, a host
    number, a convergence test)."""
    method.unrecorded = True
    return method


class ArrayRuntime:
    """Structural helpers over the array namespace ``xp``."""

    def __init__(self, xp: ModuleType | Any):
        self.xp = xp

    def asarray(self, a):
        """``a`` (an array or a Python number) as an array of this library."""
        return self.xp.asarray(a)

    def lift(self, a, rank_from: int, rank_to: int):
        """Insert size-1 axes so a rank ``rank_from`` value broadcasts at rank ``rank_to``."""
        a = self.asarray(a)
        cut = a.ndim - rank_from
        return a.reshape(a.shape[:cut] + (1,) * (rank_to - rank_from) + a.shape[cut:])

    def broadcast_to(self, a, rank: int, shape: tuple):
        a = self.lift(a, rank, len(shape))
        return self.xp.broadcast_to(a, tuple(a.shape[: a.ndim - len(shape)]) + tuple(shape))

    def reduce_sum(self, a, rank: int, axes: tuple, keepdims: bool):
        lead = a.ndim - rank
        return self.xp.sum(a, axis=tuple(lead + ax for ax in axes), keepdims=keepdims)

    def reshape(self, a, rank: int, shape: tuple):
        a = self.asarray(a)
        return a.reshape(tuple(a.shape[: a.ndim - rank]) + tuple(shape))

    def transpose(self, a, perm: tuple):
        lead = a.ndim - len(perm)
        return self.xp.transpose(a, tuple(range(lead)) + tuple(lead + p for p in perm))

    def getitem(self, a, index: tuple):
        return a[_index(index)]

    def scatter(self, a, rank: int, index: tuple, shape: tuple):
        a = self.asarray(a)
        out = self.xp.zeros(a.shape[: a.ndim - rank] + shape, dtype=a.dtype)
        out[_index(index)] = a
        return out

    def stack(self, arrays: list, axis: int, rank: int):
        arrays = self.xp.broadcast_arrays(*(self.asarray(a) for a in arrays))
        return self.xp.stack(arrays, axis=axis - rank)

    def matmul(self, a, b, rank_a: int, rank_b: int, transpose_a: bool, transpose_b: bool):
        xp = self.xp
        if transpose_a and rank_a == 2:
            a = xp.swapaxes(a, -1, -2)
        if transpose_b and rank_b == 2:
            b = xp.swapaxes(b, -1, -2)
        if rank_a == 2 and rank_b == 2:
            if a.ndim > 2 and b.ndim == 2:  # batched rows times one matrix: a single BLAS call
                return self.product(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + b.shape[-1:])
            if b.ndim > 2 and a.ndim == 2:
                rows = xp.swapaxes(b, -1, -2)
                out = self.product(rows.reshape(-1, rows.shape[-1]), xp.swapaxes(a, -1, -2))
                return xp.swapaxes(out.reshape(rows.shape[:-1] + a.shape[:1]), -1, -2)
            return self.product(a, b)
        if rank_a == 1 and rank_b == 2:
            # Rows of a batched vector times one matrix is a single matrix product.
            return self.product(a, b) if b.ndim == 2 else self.product(a[..., None, :], b)[..., 0, :]
        if rank_a == 2 and rank_b == 1:
            return (
                self.product(b, xp.swapaxes(a, -1, -2))
                if a.ndim == 2
                else self.product(a, b[..., None])[..., 0]
            )
        return xp.sum(a * b, axis=-1)

    def product(self, a, b):
        """``a @ b``: every matrix product of ``matmul`` and the batch sums (CuPy's own while a CUDA
        graph records)."""
        return self.xp.matmul(a, b)

    def batch_sum(self, a, rank: int, batch: tuple):
        """Sum over the batch axes; a value without batch axes counts once per point."""
        a = self.asarray(a)
        shape = tuple(a.shape[a.ndim - rank :])
        if a.ndim == rank:
            return a * math.prod(batch)
        if tuple(a.shape[: a.ndim - rank]) != batch:
            a = self.xp.broadcast_to(a, batch + shape)
        return a.reshape((-1,) + shape).sum(0)

    def batch_outer(self, a, b, transpose_a: bool, transpose_b: bool, batch: tuple):
        """Sum over the batch of per-point outer products (k, 1) @ (1, n): one (k, N) @ (N, n)."""
        if transpose_a:
            a = self.xp.swapaxes(a, -1, -2)
        if transpose_b:
            b = self.xp.swapaxes(b, -1, -2)
        col, row = a[..., :, 0], b[..., 0, :]
        if col.ndim == 1:
            return col[:, None] * self.batch_sum(row, 1, batch)[None, :]
        if row.ndim == 1:
            return self.batch_sum(col, 1, batch)[:, None] * row[None, :]
        col = self.xp.broadcast_to(col, batch + col.shape[-1:]).reshape(-1, col.shape[-1])
        row = self.xp.broadcast_to(row, batch + row.shape[-1:]).reshape(-1, row.shape[-1])
        return self.product(col.T, row)

    def relu(self, x):
        return self.xp.maximum(x, 0)

    def sigmoid(self, x):
        """1 / (1 + exp(-x)) without overflow warnings for large |x|."""
        return self.xp.exp(-self.xp.logaddexp(0, -x))

    def sech2(self, x):
        """sech(x)^2 as 4q / (1 + q)^2, q = exp(-2|x|): no cancellation for large |x|."""
        q = self.xp.exp(-2 * self.xp.abs(x))
        return 4 * q / ((1 + q) * (1 + q))

    def pow2_scale(self, v):
        """2^floor(log2(v)) inside the normal range where ``v`` is positive and finite, else 1."""
        xp = self.xp
        info = xp.finfo(v.dtype)
        usable = (v > 0) & (v <= info.max)
        power = xp.clip(
            xp.floor(xp.log2(xp.where(usable, v, 1))), math.log2(info.tiny), math.log2(info.max) // 1
        )
        return xp.where(usable, xp.exp2(power), xp.ones_like(v))

    @unrecorded
    def bessel_i(self, x, n):
        """I_n(x) by its power series (every term one sign), summed until no term changes the sum."""
        xp = self.xp
        n = int(n)
        h = 0.5 * x
        term = xp.ones_like(h)
        for k in range(1, n + 1):
            term = term * h / k
        total, q = term, h * h
        for k in range(1, 100000):
            term = term * q / (k * (k + n))
            if not bool(xp.any(xp.abs(term) > 1e-17 * xp.abs(total))):
                break
            total = total + term
        return xp.where(x != x, x, total)  # NaN stays NaN

    @unrecorded
    def erf(self, x):
        """The error function: the library's own (PyTorch, MindSpore), else SciPy's, else ``math.erf``."""
        return self._special("erf", x)

    @unrecorded
    def erfc(self, x):
        """1 - erf(x), without the cancellation for large x."""
        return self._special("erfc", x)

    @unrecorded
    def _special(self, name: str, x):
        own = getattr(self.xp, name, None)
        if own is not None:
            return own(x)
        try:
            import scipy.special
        except ImportError:  # SciPy is optional: exact but slow, one Python call per element
            return self.xp.vectorize(getattr(math, name), otypes=[self.xp.asarray(x).dtype])(x)
        if str(getattr(x, "dtype", "")) in ("float128", "float96"):  # NumPy's long double: SciPy has none
            return getattr(scipy.special, name)(x.astype("float64")).astype(x.dtype)
        return getattr(scipy.special, name)(x)

    @unrecorded
    def lgamma(self, x):
        """log|Gamma(x)|: the library's own (PyTorch, MindSpore), else SciPy's gammaln, else ``math.lgamma``."""
        if getattr(self.xp, "lgamma", None) is None and _scipy_special() is not None:
            return _scipy_special().gammaln(x)
        return self._special("lgamma", x)

    @unrecorded
    def polygamma(self, x, n):
        """The order-``n`` derivative of digamma: the library's own, else SciPy's."""
        order = int(n)
        own = getattr(self.xp, "polygamma", None)
        if own is not None:  # PyTorch and MindSpore take the order first
            return own(order, x)
        return _needs_scipy("polygamma").polygamma(order, x)

    @unrecorded
    def erfinv(self, x):
        """The inverse error function: the library's own, else SciPy's."""
        own = getattr(self.xp, "erfinv", None)
        return own(x) if own is not None else _needs_scipy("erfinv").erfinv(x)

    def softplus(self, x):
        """log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|))."""
        xp = self.xp
        return xp.maximum(x, 0 * x) + xp.log1p(xp.exp(-xp.abs(x)))

    def silu(self, x):
        return x * self.sigmoid(x)

    @unrecorded
    def gelu(self, x):
        return 0.5 * x * (1 + self.erf(x * math.sqrt(0.5)))

    def leaky_relu(self, x, alpha: float):
        return self.xp.where(x > 0, x, alpha * x)

    def elu(self, x, alpha: float):
        return self.xp.where(x > 0, x, alpha * self.xp.expm1(self.xp.minimum(x, 0 * x)))

    @unrecorded
    def heaviside(self, x, h0: float):
        """1 where ``x`` > 0, ``h0`` where it is 0, else 0 (NaN included: a step, not a number)."""
        xp = self.xp
        # NaN > 0 is False, so NaN gives 0; 25x faster than np.heaviside on a 128x256 float32 array
        step = (x > 0).astype(xp.result_type(x, h0))
        return step if h0 == 0 else xp.where(x == 0, xp.asarray(h0, step.dtype), step)

    @unrecorded
    def xlogy(self, x, y):
        """``x * log(y)``, and 0 where ``x`` is 0 (also where ``log(y)`` is -inf), NaN where ``y`` is."""
        xp = self.xp
        x, y = xp.asarray(x), xp.asarray(y)
        safe = xp.where(x == 0, xp.ones_like(y), y)
        return xp.where(x == 0, xp.where(y != y, y, 0 * safe), x * xp.log(safe))

    def cast(self, a, dtype: str):
        """``a`` converted to ``dtype`` (floats to integers truncate toward zero)."""
        return self.asarray(a).astype(dtype)

    def scalar(self, value, dtype: str):
        return self.xp.asarray(value, dtype=dtype)


def _scipy_special():
    """``scipy.special``, or None where SciPy is not installed."""
    try:
        import scipy.special
    except ImportError:
        return None
    return scipy.special


def _needs_scipy(op: str):
    """``scipy.special`` for ``op`` on the NumPy backend, or an error saying what to install."""
    special = _scipy_special()
    if special is None:
        from symgrad.errors import FrameworkMissing

        raise FrameworkMissing(
            f"{op} on the numpy backend needs SciPy (pip install scipy); the c backend has its own"
        )
    return special
