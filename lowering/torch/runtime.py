"""PyTorch as a backend: NumPy's names over torch, and structural helpers torch can differentiate.

The same printed program runs with ``np`` bound to :class:`TorchNumpy`; everything
stays a differentiable torch operation, so torch's own autograd can differentiate a
lowered forward pass (what ``symgrad.verify`` uses as an independent check).
"""

from __future__ import annotations

import math

import numpy as np

from lowering.runtime import ArrayRuntime
from symgrad.core.families.structural import index_to_python


class TorchNumpy:
    """The NumPy functions generated code calls, implemented with torch."""

    _RENAMED = {"equal": "eq", "greater": "gt", "less": "lt"}

    def __init__(self, torch):
        self.torch = torch

    def _tensor(self, value, like=None):
        if isinstance(value, self.torch.Tensor):
            return value
        dtype = like.dtype if isinstance(like, self.torch.Tensor) else self.torch.float64
        return self.torch.as_tensor(value, dtype=dtype)

    def __getattr__(self, name):
        fn = getattr(self.torch, self._RENAMED.get(name, name))

        def call(first, *rest):  # the operand may be a Python number; axes stay ints
            return fn(self._tensor(first), *rest)

        return call

    # Operators accept Python numbers on either side.
    def add(self, a, b):
        return a + b

    def subtract(self, a, b):
        return a - b

    def multiply(self, a, b):
        return a * b

    def divide(self, a, b):
        return a / b

    def power(self, a, b):
        return a**b

    def negative(self, a):
        return -a

    def maximum(self, a, b):
        return self.torch.maximum(self._tensor(a, b), self._tensor(b, a))

    def minimum(self, a, b):
        return self.torch.minimum(self._tensor(a, b), self._tensor(b, a))

    def heaviside(self, x, h0):
        return self.torch.heaviside(x, self._tensor(h0, x))


class TorchRuntime(ArrayRuntime):
    """Structural helpers for torch (``dim=``, gather-based indexing for reversed slices)."""

    def __init__(self, torch):
        super().__init__(TorchNumpy(torch))
        self.torch = torch

    def _positions(self, shape: tuple, index: tuple):
        flat = np.arange(math.prod(shape)).reshape(shape)[index_to_python(index)]
        return self.torch.as_tensor(np.ascontiguousarray(flat).ravel()), flat.shape

    def cast(self, a, dtype: str):
        return self.xp._tensor(a).to(getattr(self.torch, dtype))

    def heaviside(self, x, h0: float):
        """torch's own step (torch tensors have no ``astype``), NaN giving 0 as on the other backends."""
        step = self.xp.heaviside(x, h0)
        return self.xp.where(x != x, self.xp.zeros_like(step), step)

    def lift(self, a, rank_from, rank_to):
        a = self.xp._tensor(a)
        cut = a.ndim - rank_from
        return a.reshape(a.shape[:cut] + (1,) * (rank_to - rank_from) + a.shape[cut:])

    def reshape(self, a, rank, shape):
        a = self.xp._tensor(a)
        return a.reshape(tuple(a.shape[: a.ndim - rank]) + shape)

    def broadcast_to(self, a, rank, shape):
        a = self.lift(a, rank, len(shape))
        return a.broadcast_to(tuple(a.shape[: a.ndim - len(shape)]) + shape)

    def reduce_sum(self, a, rank, axes, keepdims):
        lead = a.ndim - rank
        return self.torch.sum(a, dim=tuple(lead + ax for ax in axes), keepdim=keepdims)

    def transpose(self, a, perm):
        lead = a.ndim - len(perm)
        return a.permute(tuple(range(lead)) + tuple(lead + p for p in perm))

    def getitem(self, a, index):
        rank = len(index)
        positions, shape = self._positions(tuple(a.shape[a.ndim - rank :]), index)
        batch = tuple(a.shape[: a.ndim - rank])
        return a.reshape(batch + (-1,))[..., positions].reshape(batch + shape)

    def scatter(self, a, rank, index, shape):
        a = self.xp._tensor(a)
        positions, _ = self._positions(shape, index)
        batch = tuple(a.shape[: a.ndim - rank])
        out = self.torch.zeros(batch + (math.prod(shape),), dtype=a.dtype)
        out[..., positions] = a.reshape(batch + (-1,))
        return out.reshape(batch + shape)

    def stack(self, arrays, axis, rank):
        arrays = self.torch.broadcast_tensors(*(self.xp._tensor(a) for a in arrays))
        return self.torch.stack(arrays, dim=axis - rank)

    def matmul(self, a, b, rank_a, rank_b, transpose_a, transpose_b):
        if rank_a == 1 and rank_b == 1:
            return (a * b).sum(dim=-1)
        return super().matmul(a, b, rank_a, rank_b, transpose_a, transpose_b)

    def relu(self, x):
        return self.torch.relu(self.xp._tensor(x))  # torch's own convention at 0

    def sigmoid(self, x):
        return self.torch.sigmoid(x)

    def scalar(self, value, dtype):
        return self.torch.tensor(value, dtype=getattr(self.torch, dtype))
