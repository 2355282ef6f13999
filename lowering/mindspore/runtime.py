"""MindSpore as a backend: generated ``mindspore.ops`` code runs in PyNative mode, and on an
Ascend device the same program runs as Ascend kernels (not testable on this project's machines).

Indexing and scatter are products with constant 0/1 placement matrices, which every MindSpore
version differentiates and which are cheap at per-point sizes.
"""

from __future__ import annotations

import math

import numpy as np

from lowering.runtime import ArrayRuntime
from symgrad.core.families.structural import index_to_python


class MindsporeRuntime(ArrayRuntime):
    """The structural helpers generated kernels call (``rt.*``), over ``mindspore.ops``.

    ``lift``, ``broadcast_to``, ``reshape`` and ``transpose`` are ArrayRuntime's own;
    the rest differ because MindSpore's ops take other arguments (``dim``/``keepdim``)
    or because indexing is done with placement matrices (differentiable everywhere).
    """

    def __init__(self, ms):
        super().__init__(ms.ops)
        self.ms = ms
        self.ops = ms.ops

    def asarray(self, a):
        return self.tensor(a)

    def tensor(self, value, like=None):
        if isinstance(value, self.ms.Tensor):
            return value
        dtype = like.dtype if isinstance(like, self.ms.Tensor) else self.ms.float64
        return self.ms.Tensor(np.asarray(value), dtype=dtype)

    def cast(self, a, dtype: str):
        return self.ops.cast(self.tensor(a), getattr(self.ms, dtype))

    def reduce_sum(self, a, rank, axes, keepdims):
        lead = a.ndim - rank
        return self.ops.sum(a, dim=tuple(lead + ax for ax in axes), keepdim=keepdims)

    def _placement(self, shape, index, dtype):
        """0/1 matrix (size of shape, number of selected elements) of an index, and the selection's shape."""
        selected = np.arange(math.prod(shape)).reshape(shape)[index_to_python(index)]
        positions = selected.ravel()
        matrix = np.zeros((math.prod(shape), positions.size))
        matrix[positions, np.arange(positions.size)] = 1
        return self.ms.Tensor(matrix, dtype=dtype), selected.shape

    def getitem(self, a, index):
        rank = len(index)
        batch = tuple(a.shape[: a.ndim - rank])
        matrix, shape = self._placement(tuple(a.shape[a.ndim - rank :]), index, a.dtype)
        return self.ops.matmul(a.reshape(batch + (-1,)), matrix).reshape(batch + shape)

    def scatter(self, a, rank, index, shape):
        a = self.tensor(a)
        batch = tuple(a.shape[: a.ndim - rank])
        matrix, _ = self._placement(tuple(shape), index, a.dtype)
        return self.ops.matmul(a.reshape(batch + (-1,)), matrix.T).reshape(batch + tuple(shape))

    def stack(self, arrays, axis, rank):
        arrays = [self.tensor(a) for a in arrays]
        common = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in arrays)))
        return self.ops.stack([self.ops.broadcast_to(a, common) for a in arrays], axis - rank)

    def matmul(self, a, b, rank_a, rank_b, transpose_a, transpose_b):
        ops = self.ops
        if transpose_a and rank_a == 2:
            a = ops.swapaxes(a, -1, -2)
        if transpose_b and rank_b == 2:
            b = ops.swapaxes(b, -1, -2)
        if rank_a == 1:
            a = a.reshape(tuple(a.shape[:-1]) + (1, a.shape[-1]))
        if rank_b == 1:
            b = b.reshape(tuple(b.shape) + (1,))
        out = ops.matmul(a, b)
        if rank_b == 1:
            out = out.reshape(tuple(out.shape[:-1]))
        if rank_a == 1:
            out = (
                out.reshape(tuple(out.shape[:-2]) + tuple(out.shape[-1:]))
                if rank_b == 2
                else out.reshape(tuple(out.shape[:-1]))
            )
        return out

    def batch_sum(self, a, rank, batch):
        a = self.tensor(a)
        shape = tuple(a.shape[a.ndim - rank :])
        if a.ndim == rank:
            return a * math.prod(batch)
        return self.ops.broadcast_to(a, tuple(batch) + shape).reshape((-1,) + shape).sum(0)

    def batch_outer(self, a, b, transpose_a, transpose_b, batch):
        if transpose_a:
            a = self.ops.swapaxes(a, -1, -2)
        if transpose_b:
            b = self.ops.swapaxes(b, -1, -2)
        col = self.batch_vector(a[..., :, 0], batch)
        row = self.batch_vector(b[..., 0, :], batch)
        return self.ops.matmul(col.T, row)

    def batch_vector(self, v, batch):
        return self.ops.broadcast_to(v, tuple(batch) + tuple(v.shape[-1:])).reshape(-1, v.shape[-1])

    def relu(self, x):
        return self.ops.relu(x)

    def sigmoid(self, x):
        return self.ops.sigmoid(x)

    def scalar(self, value, dtype):
        return self.ms.Tensor(value, dtype=getattr(self.ms, dtype))
