"""The CUDA driver: the printed body as one CUDA kernel, one thread per point (compiled by NVRTC
through CuPy), and the per-point layout of its arguments."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lowering.c.outputs import point_lines
from lowering.c.point_program import PointProgram, cast_macros, size_of
from lowering.printer import FUNCTION
from symgrad.core.graph import Var

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter


def program(printer: PointPrinter) -> PointProgram:
    """The source of ``__global__ void compute(n, in0, stride0, ..., out0, ...)`` (no batch sums)."""
    real = printer.real
    lines = [
        f"/* symgrad per-point kernel; computes in {real} */",
        # no headers: NVRTC compiles this as it is
        "#define STATIC static __device__ const",
        "#define SIMD_SUM",
        '#define UNROLL_BLOCK _Pragma("unroll")',
        "#ifndef INFINITY",  # nvcc includes math.h itself; NVRTC includes nothing and has no
        "#define INFINITY (1.0 / 0.0)",  # __builtin_huge_val (seen on an H200): these two compile
        "#define NAN (0.0 / 0.0)",  # there, in static tables too
        "#endif",
        "typedef long long idx_t;",
        *cast_macros(),
        *printer.statics,
        # symgrad's own C functions (polygamma, erfinv, ...), compiled for the device
        *(f.replace("static inline", "static __device__ inline", 1) for f in printer.functions.values()),
    ]
    params = [f"const {real} *in{k}, idx_t stride{k}" for k in range(len(printer.args))]
    params += [f"{real} *out{j}" for j in range(len(printer.outputs))]
    lines.append(f'extern "C" __global__ void {FUNCTION}(idx_t n, {", ".join(params)})\n{{')
    lines += [
        "    idx_t p = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;",
        "    if (p >= n) return;",
    ]
    lines += [f"    {line}" for line in point_lines(printer, {}, "in{k} + p * stride{k}", "out{j}")]
    lines.append("}")
    return printer.finished(lines)


def point_inputs(xp, args: Sequence[Var], values, batch: tuple, real: np.dtype) -> list[tuple]:
    """Each argument as ``(contiguous array, stride)`` in the kernel's calling convention
    (the C ones lay out their calls with :class:`lowering.c.call_plan.CallPlan`).

    A value without batch axes (a weight) is shared by every point (stride 0); other values
    are broadcast to ``batch`` and laid out one point after another.
    """
    n = math.prod(batch)
    laid_out = []
    for var, value in zip(args, values):
        size = size_of(var)
        if value.ndim == var.ndim:
            laid_out.append((xp.ascontiguousarray(value, dtype=real).reshape(-1), 0))
        else:
            full = xp.broadcast_to(value, batch + var.shape).reshape((n, size))
            laid_out.append((xp.ascontiguousarray(full, dtype=real), size))
    return laid_out
