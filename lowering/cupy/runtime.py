"""``CupyRuntime``: the ``rt`` helpers of a CuPy array program (batch sums as cuBLAS products,
runs of elementwise ops as one compiled kernel, constants filled on the GPU)."""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from lowering.cupy import gemm
from lowering.runtime import ArrayRuntime, unrecorded


class CupyRuntime(ArrayRuntime):
    """``ArrayRuntime`` over CuPy, with what a GPU does differently."""

    def __init__(self, xp):
        super().__init__(xp)
        self.kernels: dict[tuple[str, int, int], Any] = {}  # (operation, inputs, outputs) -> kernel
        self.thread = threading.local()  # its .recording: a CUDA graph records this thread's call

    @property
    def recording(self) -> bool:
        """Whether this thread's call is being recorded into a CUDA graph (lowering/cupy/graphs.py;
        a program's runtime is shared by the kernels with its source, on any thread)."""
        return getattr(self.thread, "recording", False)

    @recording.setter
    def recording(self, on: bool) -> None:
        self.thread.recording = on

    def asarray(self, a):
        """``a`` on the GPU; while a graph records, only arrays already there (a copy from the host
        would be recorded as a copy from memory that is gone when the graph replays)."""
        if self.recording and not isinstance(a, self.xp.ndarray):
            raise RuntimeError(f"a host value ({type(a).__name__}) in a program being recorded")
        return self.xp.asarray(a)

    def scalar(self, value, dtype: str):
        """The constant as a new 0-d GPU array (it may be an output, which the caller owns), filled
        on the GPU rather than copied from the host, so that a CUDA graph may record it; -0.0 as 0
        times -1 (CuPy fills an array with a zero by clearing its memory, which gives +0.0: seen on
        an H200 with CuPy 14)."""
        if value == 0 and np.signbit(np.asarray(value, dtype=dtype).real):
            made = self.xp.zeros((), dtype=dtype)
            made *= -1
            return made
        return self.xp.full((), value, dtype=dtype)

    @unrecorded  # cupyx's kernels have not been checked under a capture
    def polygamma(self, x, n):
        """The order-``n`` derivative of digamma by ``cupyx.scipy.special`` (SciPy's converts its
        arguments to NumPy arrays, which CuPy refuses); the only elementwise op an array program
        on CuPy calls through ``rt`` (it has no CUDA spelling to fuse)."""
        try:
            from cupyx.scipy import special
        except ImportError:  # the CuPy test double: NumPy arrays, SciPy's
            return super().polygamma(x, n)
        return special.polygamma(int(n), x)

    def product(self, a, b):
        """``a @ b`` by CuPy, or while a CUDA graph records by cuBLAS called directly (CuPy refuses
        cuBLAS calls during a capture: lowering/cupy/gemm.py)."""
        if self.recording:
            return gemm.product(self.xp, a, b)
        return self.xp.matmul(a, b)

    def batch_sum(self, a, rank: int, batch: tuple):
        """Sum over the batch axes as a product with a ones vector (cuBLAS): CuPy reduces a column of a
        million rows on a few blocks (11-23 ms for 1e6 x 16 on an H200, 0.06 ms as a product;
        bench/gpu.py --profile)."""
        a = self.asarray(a)
        if a.ndim == rank or a.dtype.kind != "f":
            return super().batch_sum(a, rank, batch)
        shape = tuple(a.shape[a.ndim - rank :])
        if tuple(a.shape[: a.ndim - rank]) != batch:
            a = self.xp.broadcast_to(a, batch + shape)
        flat = a.reshape(math.prod(batch), -1)
        return self.product(self.xp.ones(flat.shape[0], dtype=flat.dtype), flat).reshape(shape)

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
