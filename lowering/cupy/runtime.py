"""``CupyRuntime``: the ``rt`` helpers of a CuPy array program (batch sums as cuBLAS products,
runs of elementwise ops as one compiled kernel)."""

from __future__ import annotations

import math
from typing import Any

from lowering.runtime import ArrayRuntime


class CupyRuntime(ArrayRuntime):
    """``ArrayRuntime`` over CuPy, with the two things a GPU does differently."""

    def __init__(self, xp):
        super().__init__(xp)
        self.kernels: dict[tuple[str, int, int], Any] = {}  # (operation, inputs, outputs) -> kernel

    def batch_sum(self, a, rank: int, batch: tuple):
        """Sum over the batch axes as a product with a ones vector (cuBLAS): CuPy reduces a column of a
        million rows on a few blocks (11-23 ms for 1e6 x 16 on an H200, 0.06 ms as a product;
        bench/gpu.py --profile)."""
        a = self.xp.asarray(a)
        if a.ndim == rank or a.dtype.kind != "f":
            return super().batch_sum(a, rank, batch)
        shape = tuple(a.shape[a.ndim - rank :])
        if tuple(a.shape[: a.ndim - rank]) != batch:
            a = self.xp.broadcast_to(a, batch + shape)
        flat = a.reshape(math.prod(batch), -1)
        return (self.xp.ones(flat.shape[0], dtype=flat.dtype) @ flat).reshape(shape)

    def fused(self, operation: str, outputs: int, *inputs) -> tuple:
        """The elementwise ``operation`` (C statements reading ``in0``... and writing ``out0``...,
        of one type ``T``) over ``inputs`` broadcast together: one kernel, compiled once."""
        key = (operation, len(inputs), outputs)
        kernel = self.kernels.get(key)
        if kernel is None:
            kernel = self.kernels[key] = self.xp.ElementwiseKernel(
                ", ".join(f"T in{k}" for k in range(len(inputs))),
                ", ".join(f"T out{j}" for j in range(outputs)),
                operation,
                "symgrad_fused",
            )
        dtype = self.xp.result_type(*inputs)
        result = kernel(*(a if a.dtype == dtype else a.astype(dtype) for a in inputs))
        return result if isinstance(result, tuple) else (result,)
