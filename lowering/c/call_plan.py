"""How a C kernel call lays out its arguments and outputs, worked out once per argument signature.

A training loop calls the same kernel thousands of times with arrays of the same shapes and
dtypes; over a few thousand points the Python around the C call (one ctypes address per array,
broadcast checks, one allocation per output) cost more than the kernel itself (measured: 80
points, 135 of 175 us). A :class:`CallPlan` does that work once: the arguments every point
shares are copied into one buffer and the batch-summed outputs share one zeroed buffer, so a
call takes a handful of NumPy operations whatever the number of weights.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence

import numpy as np

from lowering.c import PointProgram
from symgrad.core.graph import Node, Var


class CallPlan:
    """The layout of one call signature: which arguments are packed, where each output lives.

    Args:
        compute: the compiled ``compute(n, in, stride, out)``.
        point: the program it runs (its float type and output sizes).
        args, outputs, reductions: the kernel's arguments, outputs and their batch reductions.
        values: the arrays of a call with this signature (shapes and dtypes are what count).
        batch: the broadcast batch shape of ``values``.
        shared: the argument positions the program reads once for every point.
    """

    def __init__(
        self,
        compute: Callable,
        point: PointProgram,
        args: Sequence[Var],
        outputs: Sequence[Node],
        reductions: Sequence[str | None],
        values: Sequence[np.ndarray],
        batch: tuple[int, ...],
        shared: frozenset[int],
    ):
        self.compute = compute
        self.point = point
        self.real = np.dtype(np.float32 if point.real == "float" else np.float64)
        self.n = math.prod(batch)
        self.packed = [
            k for k, (var, v) in enumerate(zip(args, values)) if v.ndim == var.ndim and k in shared
        ]
        offsets: dict[int, int] = {}
        position = 0
        for k in self.packed:
            offsets[k] = position * self.real.itemsize
            position += values[k].size
        self.slots = [offsets.get(k) for k in range(len(args))]  # byte offset in the pack, or None
        # per point: (position, point shape to broadcast to or None when already laid out, size)
        self.per_point = [
            (k, None if values[k].shape == batch + var.shape else batch + var.shape, math.prod(var.shape))
            for k, var in enumerate(args)
            if offsets.get(k) is None
        ]
        strides = [0 if k in offsets else math.prod(var.shape) for k, var in enumerate(args)]
        self.strides = np.array(strides + [0], dtype=np.int64)  # elements from one point to the next
        self.strides_address = self.strides.ctypes.data  # (the array lives as long as the plan)
        self.sums_size = 0
        self.layout: list[tuple[int | None, int]] = []  # (offset in the sums, or None: per point; size)
        for size, reduction in zip(point.sizes_out, reductions):
            self.layout.append((self.sums_size if reduction else None, size))
            if reduction:
                self.sums_size += size
        self.shapes = [node.shape if r else batch + node.shape for node, r in zip(outputs, reductions)]
        self.casts = [_result_dtype(node, self.real) for node in outputs]

    def __call__(self, values: Sequence[np.ndarray]) -> int | list[np.ndarray]:
        """The outputs, or the C function's nonzero status when it could not allocate its memory."""
        real, n = self.real, self.n
        pack = None
        if self.packed:
            pack = np.concatenate([values[k] for k in self.packed], axis=None, dtype=real, casting="unsafe")
        laid_out = [
            np.ascontiguousarray(
                (values[k] if shape is None else np.broadcast_to(values[k], shape)).reshape(n, size),
                dtype=real,
            )
            for k, shape, size in self.per_point
        ]
        sums = np.zeros(self.sums_size, dtype=real)
        point_outputs = [np.empty((n, size), dtype=real) for offset, size in self.layout if offset is None]
        if n:
            base = pack.ctypes.data if pack is not None else 0
            arrays = iter(laid_out)
            inputs = [next(arrays).ctypes.data if s is None else base + s for s in self.slots]
            sums_base = sums.ctypes.data
            outs = iter(point_outputs)
            addresses = [
                next(outs).ctypes.data if offset is None else sums_base + offset * real.itemsize
                for offset, _ in self.layout
            ]
            status = self.compute(n, _address_array(inputs), self.strides_address, _address_array(addresses))
            if status:
                return status
        results = []
        outs = iter(point_outputs)
        for (offset, size), shape, cast in zip(self.layout, self.shapes, self.casts):
            value = next(outs) if offset is None else sums[offset : offset + size]
            value = value.reshape(shape)
            results.append(value if cast is None else value.astype(cast))
        return results


def _result_dtype(node: Node, real: np.dtype) -> np.dtype | None:
    """The dtype ``node``'s result is returned in when it is not ``real``: bool and int outputs keep
    theirs, float ones promote with ``real``."""
    if node.dtype is None:
        return None
    target = np.promote_types(node.dtype, real) if node.dtype.kind == "f" else node.dtype
    return None if target == real else target


def _address_array(addresses: list[int]):
    """A C array of data pointers (the arrays they point into are kept alive by the caller)."""
    return (ctypes.c_void_p * max(1, len(addresses)))(*addresses)
