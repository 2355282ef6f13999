"""The OpenMP driver: the printed body inside a parallel loop over the points, on the CPU.

``compute(n, in, stride, out)`` runs point by point, or in blocks of ``lanes`` points whose
per-point values sit side by side so every loop over elements vectorizes over the points. Each
thread adds its points' shares of the batch sums into its own row of ``sums``; the rows are
added in a fixed order at the end, so results do not depend on timing. Small batches run on
one thread: waking the others costs more than it saves. Arrays too large for the threads' stacks
live in heap scratch that the calling thread keeps from call to call (``_kept_scratch``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lowering.c import tiles
from lowering.c.outputs import block_lines, point_lines, sum_offsets
from lowering.c.point_program import PointProgram, cast_macros, size_of
from lowering.c.products import COLS
from lowering.printer import FUNCTION
from symgrad.core.registry import CONTRACTION, lookup

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter

_PARALLEL_WORK = 200_000  # points x work per point below which a kernel runs on one thread


def program(printer: PointPrinter) -> PointProgram:
    """The C source of ``int compute(n, in, stride, out)`` (1 when memory ran out, else 0)."""
    real, lanes = printer.real, printer.lanes
    lines = _header(printer) + cast_macros()
    functions_at = len(lines)  # the functions go here once the loop body has asked for them all
    lines += printer.statics
    offsets, total = sum_offsets(printer)
    if lanes == 1:  # printed first: the block's input arrays take heap scratch too
        point = point_lines(printer, offsets, "in[{k}] + p * stride[{k}]", "out[{j}]")
    else:
        point = block_lines(printer, offsets)
    lines[functions_at:functions_at] = printer.functions.values()
    if printer.heap:
        lines += _kept_scratch(real)
    signature = f"(idx_t n, const {real} *const *in, const idx_t *stride, {real} *const *out)"
    serial = f"n * {_work_per_point(printer)} < {_PARALLEL_WORK}"
    lines += [
        f"int {FUNCTION}{signature}\n{{",
        f"    int threads = {serial} ? 1 : omp_get_max_threads();",
    ]
    lines += _allocations(printer, total)
    lines += ["    #pragma omp parallel num_threads(threads)", "    {"]
    if printer.heap:
        lines.append(
            f"        {real} *scratch = scratches + (size_t)omp_get_thread_num() * {printer.scratch};"
        )
    if printer.plans:
        lines.append(f"        {real} *acc = sums + (size_t)omp_get_thread_num() * {total};")
    if lanes == 1:
        lines += ["        #pragma omp for schedule(static)", "        for (idx_t p = 0; p < n; p++) {"]
    else:
        lines += [f"        {line}" for line in printer.prelude]
        lines += [
            "        #pragma omp for schedule(static)",
            f"        for (idx_t p0 = 0; p0 < n; p0 += {lanes}) {{",
            f"            int nb = n - p0 < {lanes} ? (int)(n - p0) : {lanes};",
        ]
    lines += [f"            {line}" for line in point] + ["        }", "    }"]
    lines += ["    free(packs);"] if printer.shared_scratch else []
    if printer.plans:
        lines += [
            "    for (int k = 0; k < threads; k++) {",
            *[
                f"        for (int i = 0; i < {size_of(printer.outputs[j])}; i++) out[{j}][i] += sums[k * {total} + {off} + i];"
                for j, off in offsets.items()
            ],
            "    }",
            "    free(sums);",
        ]
    lines += ["    return 0;", "}"]
    return printer.finished(lines)


def _header(printer: PointPrinter) -> list[str]:
    """Includes, macros and, in blocks of points, the vector type of one value per point."""
    real = printer.real
    lines = [
        f"/* symgrad per-point kernel; computes in {real} */",
        "#include <math.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "#include <omp.h>",
        "#define STATIC static const",
        '#define SIMD_SUM _Pragma("omp simd reduction(+:s)")',
        f'#define UNROLL_BLOCK _Pragma("GCC unroll {COLS}")',
        "typedef long idx_t;",
    ]
    if printer.lanes > 1:  # one value per point of a block, as a GCC/Clang vector
        lines += [
            f"typedef {real} lanes_t __attribute__((vector_size({printer.vector * printer.itemsize})));",
            f"static inline lanes_t load_lanes(const {real} *p) {{ lanes_t v; memcpy(&v, p, sizeof v); return v; }}",
            f"static inline void store_lanes({real} *p, lanes_t v) {{ memcpy(p, &v, sizeof v); }}",
            # one compiled copy of each block function: inlined, every call was compiled anew
            "#define NOINLINE __attribute__((noinline, noclone))",
        ]
    if printer.tiled:
        lines += tiles.header(real)
    return lines


def _kept_scratch(real: str) -> list[str]:
    """``kept_scratch(size)``: the calling thread's heap scratch, kept from call to call and grown
    when a call needs more. Allocated and freed each call, a scratch larger than glibc's mmap
    threshold (32 MB at most) came back as fresh pages every call, each faulted in and zeroed by
    the kernel: DeepXDE's Helmholtz example with a hole ([2, 350, 350, 350, 1] sin, 67 MB a thread)
    spent 55 of 160 ms a loss gradient on it at its 465 points. One buffer per calling thread (thread
    local), so that calls from several threads do not share it."""
    return [
        f"static _Thread_local {real} *kept = NULL;",
        "static _Thread_local size_t kept_size = 0;",
        f"static {real} *kept_scratch(size_t size) {{",
        "    if (size > kept_size) {",
        "        free(kept);",
        f"        kept = malloc(size * sizeof({real}));",
        "        kept_size = kept ? size : 0;",
        "    }",
        "    return kept;",
        "}",
    ]


def _allocations(printer: PointPrinter, total: int) -> list[str]:
    """The threads' rows of batch sums, their heap scratch (kept from call to call:
    ``_kept_scratch``) and the scratch they share (if any); the first and last freed on failure."""
    real, lines, freed = printer.real, [], ""
    if printer.plans:
        lines += [
            f"    {real} *sums = calloc((size_t)threads * {total}, sizeof({real}));",
            "    if (!sums) return 1;",
        ]
        freed += " free(sums);"
    if printer.heap:
        lines += [
            f"    {real} *scratches = kept_scratch((size_t)threads * {printer.scratch});",
            f"    if (!scratches) {{{freed} return 1; }}",
        ]
    if printer.shared_scratch:
        lines += [
            f"    {real} *packs = malloc((size_t){printer.shared_scratch} * sizeof({real}));",
            f"    if (!packs) {{{freed} return 1; }}",
        ]
    return lines


def _work_per_point(printer: PointPrinter) -> int:
    """Roughly the arithmetic of one point: every value computed, a product's inner sums."""
    work = 0
    for node in printer.names:
        if node.args:
            pattern = lookup(node.op).pattern
            inner = node.args[0].shape[-1] if pattern == CONTRACTION and node.args[0].ndim else 1
            work += size_of(node) * inner
    return max(1, work)
