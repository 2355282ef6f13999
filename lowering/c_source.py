"""Turns a graph into one C function that evaluates every node for one point.

The same per-point body serves the CPU (an OpenMP loop over the points, compiled by
the system C compiler) and the GPU (one CUDA thread per point). Values are small
fixed-size arrays, one per shared node; structural ops become index tables computed
here by running the op's own NumPy lowering on arrays of indices, so no op needs a
second hand-written C spelling beyond its elementwise ``c`` template.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lowering import batch_sums
from lowering.batch_sums import OuterSum, Reshaped, SignedSum
from lowering.printer import FUNCTION, fill_template, unbound
from lowering.runtime import ArrayRuntime
from symgrad.core.families.conversion import C_CASTS
from symgrad.core.graph import Const, Node, Var, topo_order
from symgrad.core.registry import CONTRACTION, GATHER, MAP, REDUCTION, lookup

_INDEX_RUNTIME = {"np": np, "xp": np, "rt": ArrayRuntime(np)}


@dataclass
class PointProgram:
    """C source of ``compute(n, in, stride, out)`` and what it computes."""

    source: str
    real: str  # "double" or "float": the one floating type the program computes in
    sizes_out: list[int]  # elements per point of each output
    op_count: int
    scratch_bytes: int = 0  # heap scratch per thread (0: a point's arrays are on the stack)


def print_point_program(
    outputs: Sequence[Node],
    args: Sequence[Var],
    reductions: Sequence[str | None] | None = None,
    target: str = "openmp",
    double: bool = False,
) -> PointProgram:
    """C source evaluating ``outputs`` from ``args`` at each of ``n`` points.

    It computes in ``float`` when every float of the graph is float32 (and ``double`` is
    False: the caller passes True for float64 data), else in ``double``.

    ``target`` is ``"openmp"`` (a parallel loop over points) or ``"cuda"`` (one thread
    per point). Argument ``k`` of point ``p`` starts at ``in[k] + p * stride[k]``
    (stride 0 shares one value, such as a weight, between all points); output ``j``
    of point ``p`` is written at ``out[j] + p * size_j``. An output with a reduction
    (``"sum"`` or ``"mean"``; the caller divides) is summed over the points into
    ``out[j]`` (OpenMP only): each thread sums its points, then the threads' sums are
    added in a fixed order, so results do not depend on timing.
    """
    reductions = list(reductions) if reductions is not None else [None] * len(outputs)
    if target == "cuda" and any(reductions):
        raise NotImplementedError("the CUDA kernel writes per-point outputs; reduce them with CuPy")
    plans, leaves = batch_sums.plan_batch_sums(outputs, reductions)
    spelling_keys = ("cuda", "c") if target == "cuda" else ("c",)
    printer = _Printer(outputs, args, plans, leaves, spelling_keys, double, target)
    return printer.program()


class _Printer:
    def __init__(
        self,
        outputs: Sequence[Node],
        args: Sequence[Var],
        plans: dict[int, batch_sums.Plan],
        leaves: list[Node],
        spelling_keys: tuple[str, ...],
        double: bool = False,
        target: str = "openmp",
    ):
        self.spelling_keys = spelling_keys
        self.target = target
        self.outputs = list(outputs)
        self.args = list(args)
        self.plans = plans
        nodes = topo_order(leaves)
        floats = [n.dtype for n in nodes if n.dtype is not None and n.dtype.kind == "f"]
        single = floats and all(d == np.float32 for d in floats)
        self.real = "float" if single and not double else "double"
        self.itemsize = 4 if self.real == "float" else 8
        # a point's arrays past _STACK_BYTES live in per-thread heap scratch, not on the stack
        per_point = sum(_size(n) for n in nodes if n.args) * self.itemsize
        self.heap = target == "openmp" and per_point > _STACK_BYTES
        self.scratch = 0  # elements of the scratch handed out so far
        self.statics: list[str] = []  # file-scope tables and constants
        self.body: list[str] = []
        self.names: dict[Node, str] = {}
        self.scalars: dict[Node, str] = {}  # nodes that are one literal
        self.op_count = 0
        for k, var in enumerate(self.args):
            self.names[var] = f"a{k}"
        for node in nodes:
            if node not in self.names:
                self._emit(node)

    # ----- program text -----

    def program(self) -> PointProgram:
        real, target = self.real, self.target
        lines = [f"/* symgrad per-point kernel; computes in {real} */"]
        if target == "cuda":  # no headers: NVRTC compiles this as it is
            lines += [
                "#define STATIC static __device__ const",
                "#define SIMD_SUM",
                '#define UNROLL_BLOCK _Pragma("unroll")',
                "#ifndef INFINITY",  # nvcc includes math.h itself; NVRTC includes nothing
                "#define INFINITY __builtin_huge_val()",
                '#define NAN __builtin_nan("")',
                "#endif",
                "typedef long long idx_t;",
            ]
        else:
            lines += [
                "#include <math.h>",
                "#include <stdlib.h>",
                "#include <omp.h>",
                "#define STATIC static const",
            ]
            lines += [
                '#define SIMD_SUM _Pragma("omp simd reduction(+:s)")',
                f'#define UNROLL_BLOCK _Pragma("GCC unroll {_COLS}")',
                "typedef long idx_t;",
            ]
        lines += [f"#define SG_CAST_{name}(v) {code}" for name, code in C_CASTS.items()]
        lines += self.statics
        offsets, total = {}, 0
        for j in sorted(self.plans):
            offsets[j], total = total, total + _size(self.outputs[j])
        if target == "cuda":
            params = [f"const {real} *in{k}, idx_t stride{k}" for k in range(len(self.args))]
            params += [f"{real} *out{j}" for j in range(len(self.outputs))]
            lines.append(f'extern "C" __global__ void {FUNCTION}(idx_t n, {", ".join(params)})\n{{')
            lines += [
                "    idx_t p = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;",
                "    if (p >= n) return;",
            ]
            lines += [f"    {line}" for line in self._point_lines(offsets, "in{k} + p * stride{k}", "out{j}")]
            lines.append("}")
            return self._done(lines)
        point = self._point_lines(offsets, "in[{k}] + p * stride[{k}]", "out[{j}]")
        signature = f"(idx_t n, const {real} *const *in, const idx_t *stride, {real} *const *out)"
        # small batches run on one thread: waking the others costs more than it saves
        serial = f"n * {self._work_per_point()} < {_PARALLEL_WORK}"
        lines += [
            f"int {FUNCTION}{signature}\n{{",  # returns 1 when memory ran out, else 0
            f"    int threads = {serial} ? 1 : omp_get_max_threads(), failed = 0;",
        ]
        if self.plans:
            lines += [
                f"    {real} *sums = calloc((size_t)threads * {total}, sizeof({real}));",
                "    if (!sums) return 1;",
            ]
        lines += ["    #pragma omp parallel num_threads(threads)", "    {"]
        if self.heap:
            lines += [
                f"        {real} *scratch = malloc({self.scratch} * sizeof({real}));",
                "        if (!scratch) {",
                "            #pragma omp atomic write",
                "            failed = 1;",
                "        }",
            ]
        if self.plans:
            lines.append(f"        {real} *acc = sums + (size_t)omp_get_thread_num() * {total};")
        lines += ["        #pragma omp for schedule(static)", "        for (idx_t p = 0; p < n; p++) {"]
        if self.heap:
            lines.append("            if (!scratch) continue;")
        lines += [f"            {line}" for line in point] + ["        }"]
        lines += ["        free(scratch);"] if self.heap else []
        lines.append("    }")
        if self.plans:
            lines += [
                "    for (int k = 0; k < threads; k++) {",
                *[
                    f"        for (int i = 0; i < {_size(self.outputs[j])}; i++) out[{j}][i] += sums[k * {total} + {off} + i];"
                    for j, off in offsets.items()
                ],
                "    }",
                "    free(sums);",
            ]
        lines += ["    return failed;", "}"]
        return self._done(lines)

    def _array(self, name: str, size: int) -> str:
        """The declaration of a per-point array: on the stack, or in the thread's heap scratch."""
        if not self.heap:
            return f"{self.real} {name}[{size}];"
        offset, self.scratch = self.scratch, self.scratch + size
        return f"{self.real} *restrict {name} = scratch + {offset};"

    def _work_per_point(self) -> int:
        """Roughly the arithmetic of one point: every value computed, a product's inner sums."""
        work = 0
        for node in self.names:
            if node.args:
                pattern = lookup(node.op).pattern
                inner = node.args[0].shape[-1] if pattern == CONTRACTION and node.args[0].ndim else 1
                work += _size(node) * inner
        return max(1, work)

    def _done(self, lines: list[str]) -> PointProgram:
        return PointProgram(
            source="\n".join(lines) + "\n",
            real=self.real,
            sizes_out=[_size(o) for o in self.outputs],
            op_count=self.op_count,
            scratch_bytes=self.scratch * self.itemsize,
        )

    def _point_lines(self, offsets: dict[int, int], arg_start: str, out_base: str) -> list[str]:
        lines = [f"const {self.real} *a{k} = {arg_start.format(k=k)};" for k in range(len(self.args))]
        lines += self.body
        for j, node in enumerate(self.outputs):
            size = _size(node)
            if j in self.plans:
                lines += self._accumulate(self.plans[j], 1, offsets[j])
            else:
                lines.append(
                    f"{{ {self.real} *o = {out_base.format(j=j)} + p * {size}; "
                    f"for (int i = 0; i < {size}; i++) o[i] = {self._at(node, 'i')}; }}"
                )
        return lines

    def _accumulate(self, plan: batch_sums.Plan, sign: int, offset: int) -> list[str]:
        """Add one point's share of a batch sum to the thread's sums (outer products stay fused)."""
        if isinstance(plan, SignedSum):
            return [line for s, term in plan.terms for line in self._accumulate(term, s * sign, offset)]
        if isinstance(plan, Reshaped):  # the flat order is unchanged
            return self._accumulate(plan.inner, sign, offset)
        op = "+=" if sign > 0 else "-="
        if isinstance(plan, OuterSum):  # (k, 1) @ (1, q): both factors are vectors in flat order
            a, b = plan.a, plan.b
            k, q = _size(a), _size(b)
            return [
                f"for (int r = 0; r < {k}; r++) {{ {self.real} v = {self._at(a, 'r')}; "
                f"for (int c = 0; c < {q}; c++) acc[{offset} + r * {q} + c] {op} v * {self._at(b, 'c')}; }}"
            ]
        node = plan.node
        return [f"for (int i = 0; i < {_size(node)}; i++) acc[{offset} + i] {op} {self._at(node, 'i')};"]

    # ----- one node -----

    def _at(self, node: Node, index: str) -> str:
        """C expression for element ``index`` of ``node``."""
        if node in self.scalars:
            return self.scalars[node]
        return f"{self.names[node]}[{index}]"

    def _emit(self, node: Node) -> None:
        if isinstance(node, Var):
            raise unbound(node, self.args)
        if isinstance(node, Const):
            self._emit_const(node)
            return
        name = f"t{self.op_count}"
        self.op_count += 1
        self.names[node] = name
        emit = {
            MAP: self._emit_elementwise,
            CONTRACTION: self._emit_matmul,
            REDUCTION: self._emit_reduce,
            GATHER: self._emit_gather,
        }[lookup(node.op).pattern]
        emit(node, name)

    def _emit_const(self, node: Const) -> None:
        values = np.asarray(node.value).ravel()
        if values.size == 1:
            self.scalars[node] = _literal(values[0], self.real)
            self.names[node] = self.scalars[node]
            return
        name = f"c{len(self.statics)}"
        items = ", ".join(_literal(v, self.real) for v in values)
        self.statics.append(f"STATIC {self.real} {name}[{values.size}] = {{{items}}};")
        self.names[node] = name

    def _emit_elementwise(self, node: Node, name: str) -> None:
        op = lookup(node.op)
        size = _size(node)
        fields = {f"p{i}": _literal(p, self.real) for i, p in enumerate(node.params)}
        cut = _outer_inner_cut(node)
        reads = [self._broadcast_read(a, node, cut) for a in node.args]
        expr = op.spelling(*self.spelling_keys).format(*reads, **fields)
        if cut is None:
            self.body.append(
                f"{self._array(name, size)} for (int i = 0; i < {size}; i++) {name}[i] = {expr};"
            )
            return
        # every argument is whole, a scalar, the outer or the inner block: two loops, no tables
        outer, inner = math.prod(node.shape[:cut]), math.prod(node.shape[cut:])
        self.body.append(
            f"{self._array(name, size)} for (int r = 0; r < {outer}; r++) for (int c = 0; c < {inner}; c++) "
            f"{{ int i = r * {inner} + c; {name}[i] = {expr}; }}"
        )

    def _broadcast_read(self, arg: Node, node: Node, cut: int | None = None) -> str:
        """Element ``i`` of ``node``'s shape read from ``arg`` (NumPy broadcasting); with a ``cut``
        (see :func:`_outer_inner_cut`), element ``(r, c)`` of the outer and inner blocks."""
        if arg in self.scalars or _size(arg) == 1:
            return self._at(arg, "0")
        if arg.shape == node.shape:
            return self._at(arg, "i")
        if cut is not None:
            return self._at(arg, "c" if _reads_inner(arg.shape, node.shape, cut) else "r")
        table = np.broadcast_to(np.arange(_size(arg)).reshape(arg.shape), node.shape).ravel()
        return f"{self.names[arg]}[{self._table(table)}[i]]"

    def _emit_matmul(self, node: Node, name: str) -> None:
        """A CONTRACTION: ``op(a) @ op(b)`` with params ``(transpose_a, transpose_b)``."""
        (a, b), (ta, tb) = node.args, node.params
        ta, tb = ta and a.ndim == 2, tb and b.ndim == 2
        # op(a) is (m, k), op(b) is (k, q); vectors are a row (a) and a column (b)
        if a.ndim == 2:
            m, k = (a.shape[1], a.shape[0]) if ta else a.shape
        else:
            m, k = 1, a.shape[0]
        q = (b.shape[0] if tb else b.shape[1]) if b.ndim == 2 else 1

        def a_at(r: str, l: str) -> str:  # noqa: E741 - the summed index, as in the loops
            return self._at(a, f"{l} * {m} + {r}" if ta else f"{r} * {k} + {l}")

        def b_at(l: str, c: str) -> str:  # noqa: E741
            return self._at(b, f"{c} * {k} + {l}" if tb else f"{l} * {q} + {c}")

        a_ik, b_kj = a_at("r", "l"), b_at("l", "c")
        if tb:  # rows of b are contiguous: dot products (the pragma allows a vectorized sum)
            loops = self._dot_products(name, (0, m), (0, q), (k, q), a_ik, b_kj, vectorized=True)
        elif m >= _ROWS and q >= _COLS:  # register blocks of the result, then the edges
            loops = self._blocked_matmul(name, (m, k, q), a_at, b_at)
        else:  # columns of the result are contiguous in b: accumulate rows
            loops = self._row_sums(name, (0, m), (k, q), a_ik, b_kj)
        self.body.append(f"{self._array(name, m * q)} {loops}")

    def _blocked_matmul(self, name: str, sizes: tuple[int, int, int], a_at, b_at) -> str:
        """``op(a) @ op(b)`` in blocks of _ROWS x _COLS results kept in registers over the sum.

        ``a_at(r, l)`` and ``b_at(l, c)`` read op(a) and op(b). Rows and columns past the last
        whole block are summed by the plain loop.
        """
        m, k, q = sizes
        a_ik, b_kj = a_at("r", "l"), b_at("l", "c")
        rows, cols = m - m % _ROWS, q - q % _COLS
        real = self.real
        zero = ", ".join(["0"] * (_ROWS * _COLS))
        a_reads = " ".join(f"{real} v{i} = {a_at(f'(r0 + {i})', 'l')};" for i in range(_ROWS))
        sums = " ".join(f"s[{i * _COLS} + j] += v{i} * w;" for i in range(_ROWS))
        block = (  # UNROLL_BLOCK unrolls the column loop fully, so the block stays in registers
            f"for (int r0 = 0; r0 < {rows}; r0 += {_ROWS}) for (int c0 = 0; c0 < {cols}; c0 += {_COLS}) {{ "
            f"{real} s[{_ROWS * _COLS}] = {{{zero}}}; "
            f"for (int l = 0; l < {k}; l++) {{ {a_reads} "
            f"UNROLL_BLOCK for (int j = 0; j < {_COLS}; j++) {{ {real} w = {b_at('l', '(c0 + j)')}; {sums} }} }} "
            f"for (int i = 0; i < {_ROWS * _COLS}; i++) {name}[(r0 + i / {_COLS}) * {q} + c0 + i % {_COLS}] = s[i]; }}"
        )
        edges = []
        if cols < q:  # the last columns of the blocked rows
            edges.append(self._dot_products(name, (0, rows), (cols, q), (k, q), a_ik, b_kj, vectorized=False))
        if rows < m:  # the last rows
            edges.append(self._row_sums(name, (rows, m), (k, q), a_ik, b_kj))
        return " ".join([block, *edges])

    def _dot_products(self, name, rows, cols, kq, a_ik: str, b_kj: str, vectorized: bool) -> str:
        """Results ``rows`` x ``cols`` (ranges) of ``op(a) @ op(b)``, each as one sum over l."""
        (k, q), real = kq, self.real
        pragma = "SIMD_SUM " if vectorized else ""
        return (
            f"for (int r = {rows[0]}; r < {rows[1]}; r++) for (int c = {cols[0]}; c < {cols[1]}; c++) "
            f"{{ {real} s = 0; {pragma}for (int l = 0; l < {k}; l++) s += {a_ik} * {b_kj}; {name}[r * {q} + c] = s; }}"
        )

    def _row_sums(self, name, rows, kq, a_ik: str, b_kj: str) -> str:
        """Rows ``rows`` (a range) of ``op(a) @ op(b)`` as sums of rows of op(b), contiguous in the result."""
        (k, q), real = kq, self.real
        return (
            f"for (int i = {rows[0] * q}; i < {rows[1] * q}; i++) {name}[i] = 0; "
            f"for (int r = {rows[0]}; r < {rows[1]}; r++) for (int l = 0; l < {k}; l++) {{ {real} v = {a_ik}; "
            f"for (int c = 0; c < {q}; c++) {name}[r * {q} + c] += v * {b_kj}; }}"
        )

    def _emit_reduce(self, node: Node, name: str) -> None:
        """A REDUCTION: a sum over ``axes`` (params ``(axes, keepdims)``)."""
        (x,), (axes, _keepdims) = node.args, node.params
        size_in, size = _size(x), _size(node)
        lead = math.prod(x.shape[: len(axes)])
        if tuple(axes) == tuple(range(len(axes))):  # leading axes: add whole rows, no index table
            self.body.append(
                f"{self._array(name, size)} for (int i = 0; i < {size}; i++) {name}[i] = 0; "
                f"for (int r = 0; r < {lead}; r++) for (int i = 0; i < {size}; i++) "
                f"{name}[i] += {self._at(x, f'r * {size} + i')};"
            )
            return
        coords = np.indices(x.shape).reshape(x.ndim, -1)
        kept = [d for d in range(x.ndim) if d not in axes]
        target = (
            np.ravel_multi_index(coords[kept], tuple(x.shape[d] for d in kept))
            if kept
            else np.zeros(coords.shape[1], dtype=np.int64)
        )
        self.body.append(
            f"{self._array(name, size)} for (int i = 0; i < {size}; i++) {name}[i] = 0; "
            f"for (int i = 0; i < {size_in}; i++) {name}[{self._table(target)}[i]] += {self._at(x, 'i')};"
        )

    def _emit_gather(self, node: Node, name: str) -> None:
        """A linear op that picks elements (reshape, transpose, getitem, scatter, stack, broadcast)."""
        sources = self._gather_sources(node)  # per output element: global index + 1, or 0 for zero
        offsets = np.cumsum([0] + [_size(a) for a in node.args])
        size = _size(node)
        if len(node.args) == 1 and np.array_equal(sources, np.arange(1, size + 1)):
            arg = node.args[0]
            if arg in self.scalars:
                self.scalars[node] = self.scalars[arg]
                self.names[node] = self.scalars[arg]
            else:
                self.body.append(f"const {self.real} *{name} = {self.names[arg]};")  # same elements: alias
            return
        parts = [self._array(name, size)]
        if (sources == 0).any():
            parts.append(f"for (int i = 0; i < {size}; i++) {name}[i] = 0;")
        for k, arg in enumerate(node.args):
            mine = (sources > offsets[k]) & (sources <= offsets[k + 1])
            where = np.flatnonzero(mine)
            if where.size == 0:
                continue
            local = sources[where] - 1 - offsets[k]
            if where.size == size:
                parts.append(
                    f"for (int i = 0; i < {size}; i++) {name}[i] = {self._at(arg, f'{self._table(local)}[i]')};"
                )
            else:
                out_t, in_t = self._table(where), self._table(local)
                parts.append(
                    f"for (int i = 0; i < {where.size}; i++) {name}[{out_t}[i]] = {self._at(arg, f'{in_t}[i]')};"
                )
        self.body.append(" ".join(parts))

    def _gather_sources(self, node: Node) -> np.ndarray:
        """Run the op's NumPy lowering on index arrays: which argument element each output element is."""
        offsets = np.cumsum([0] + [_size(a) for a in node.args])
        env = dict(_INDEX_RUNTIME)
        names = []
        for k, arg in enumerate(node.args):
            names.append(f"i{k}")
            env[f"i{k}"] = (np.arange(_size(arg), dtype=np.int64) + offsets[k] + 1).reshape(arg.shape)
        code = fill_template(node, names, ("numpy",))
        result = np.asarray(eval(code, env))  # noqa: S307 - our own op table's template
        return np.broadcast_to(result, node.shape).ravel().astype(np.int64)

    def _table(self, values) -> str:
        name = f"c{len(self.statics)}"
        items = ", ".join(str(int(v)) for v in np.asarray(values).ravel())
        self.statics.append(f"STATIC int {name}[{np.asarray(values).size}] = {{{items}}};")
        return name


def point_inputs(xp, args: Sequence[Var], values, batch: tuple, real: np.dtype) -> list[tuple]:
    """Each argument as ``(contiguous array, stride)`` in the per-point calling convention.

    A value without batch axes (a weight) is shared by every point (stride 0); batched
    values are broadcast to ``batch`` and laid out one point after another.
    """
    n = math.prod(batch)
    laid_out = []
    for var, value in zip(args, values):
        size = _size(var)
        if value.ndim == var.ndim:
            laid_out.append((xp.ascontiguousarray(value, dtype=real).reshape(-1), 0))
        else:
            full = xp.broadcast_to(value, batch + var.shape).reshape((n, size))
            laid_out.append((xp.ascontiguousarray(full, dtype=real), size))
    return laid_out


_PARALLEL_WORK = 200_000  # points x work per point below which a kernel runs on one thread
_STACK_BYTES = 512 * 1024  # a point's arrays beyond this go to heap scratch (threads' stacks are small)
_ROWS, _COLS = 4, 8  # a matmul register block: 4 rows of a times 8 columns of b


def _outer_inner_cut(node: Node) -> int | None:
    """An axis splitting ``node``'s shape so that every argument is whole, one element, the
    outer axes (ones after) or the inner axes (ones before); None if there is none or no need."""
    shape = node.shape
    if all(a.shape == shape or _size(a) == 1 for a in node.args):
        return None  # the flat loop already reads without tables
    for cut in range(1, len(shape)):
        if all(
            a.shape == shape
            or _size(a) == 1
            or _reads_inner(a.shape, shape, cut)
            or _reads_outer(a.shape, shape, cut)
            for a in node.args
        ):
            return cut
    return None


def _padded(arg: tuple, shape: tuple) -> tuple:
    return (1,) * (len(shape) - len(arg)) + tuple(arg)


def _reads_inner(arg: tuple, shape: tuple, cut: int) -> bool:
    padded = _padded(arg, shape)
    return all(d == 1 for d in padded[:cut]) and padded[cut:] == shape[cut:]


def _reads_outer(arg: tuple, shape: tuple, cut: int) -> bool:
    padded = _padded(arg, shape)
    return padded[:cut] == shape[:cut] and all(d == 1 for d in padded[cut:])


def _size(node: Node) -> int:
    return math.prod(node.shape)


def _literal(value, real: str) -> str:
    """A C literal of ``real`` type for a Python or NumPy number; names (a dtype) stay as they are."""
    if isinstance(value, str):
        return value
    value = float(value)
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    text = repr(value)
    return f"{text}f" if real == "float" else text
