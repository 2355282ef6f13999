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
from dataclasses import dataclass, field

import numpy as np

from lowering import batch_sums
from lowering.batch_sums import OuterSum, Reshaped, SignedSum
from lowering.printer import FUNCTION, fill_template, unbound
from lowering.runtime import ArrayRuntime
from symgrad.core.families.conversion import C_CASTS
from symgrad.core.graph import Const, Node, Var, computed_elements, topo_order
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
    lanes: int = 1  # points per block (1: one point at a time)


def print_point_program(
    outputs: Sequence[Node],
    args: Sequence[Var],
    reductions: Sequence[str | None] | None = None,
    target: str = "openmp",
    double: bool = False,
    shared: frozenset[int] = frozenset(),
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

    On OpenMP, ``shared`` lists the arguments every point shares (the weights; the caller
    passes them with stride 0). Nodes that depend on nothing else are computed once per
    thread, and the rest in blocks of ``lanes`` points: each per-point array holds element
    ``i`` of point ``b`` at ``i * lanes + b``, so every loop over elements vectorizes over
    the points, and a product with a shared matrix becomes one register-blocked matrix
    product per block.

    Consecutive elementwise nodes of one size share one loop, in which a value that only the
    loop reads is a local, not an array; a reshape is another name for its argument.
    """
    reductions = list(reductions) if reductions is not None else [None] * len(outputs)
    if target == "cuda" and any(reductions):
        raise NotImplementedError("the CUDA kernel writes per-point outputs; reduce them with CuPy")
    plans, leaves = batch_sums.plan_batch_sums(outputs, reductions)
    spelling_keys = ("cuda", "c") if target == "cuda" else ("c",)
    printer = _Printer(outputs, args, plans, leaves, spelling_keys, double, target, shared)
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
        shared: frozenset[int] = frozenset(),
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
        per_point = computed_elements(nodes) * self.itemsize
        # points per block: as many as keep a block's arrays in the core's cache (1: point by point)
        self.lanes = 1
        if target == "openmp":
            self.lanes = next((w for w in _LANES if w * per_point <= _BLOCK_BYTES), 1)
        self.vector = min(self.lanes, _VECTOR_BYTES // self.itemsize)  # values per C vector of lanes
        # a block's arrays past _STACK_BYTES live in per-thread heap scratch, not on the stack
        self.heap = target == "openmp" and per_point * self.lanes > _STACK_BYTES
        self.scratch = 0  # elements of the scratch handed out so far
        self.statics: list[str] = []  # file-scope tables and constants
        self.functions: dict[str, str] = {}  # op -> the C source of symgrad's own function it calls
        self.body: list[str] = []  # per point (or per block of points)
        self.prelude: list[str] = []  # per thread, before the loop: what no point changes
        self.names: dict[Node, str] = {}
        self.scalars: dict[Node, str] = {}  # nodes that are one literal
        self.uniform: set[Node] = set()  # nodes every point shares (blocked programs only)
        self.op_count = 0
        self._lane: str | None = None  # the lane index of the node being printed, if it has lanes
        # elementwise nodes waiting to share one loop, per list of lines (prelude or body)
        self.pending: dict[int, _Fused] = {}
        self.kept = set(leaves)  # read after the body: outputs and the batch sums' factors
        self.alias_of: dict[Node, Node] = {}  # nodes with their argument's elements, in order
        self.consumers: dict[Node, list[Node]] = {}
        for node in nodes:
            for a in node.args:
                self.consumers.setdefault(a, []).append(node)
        for k, var in enumerate(self.args):
            self.names[var] = f"a{k}"
            if self.lanes > 1 and k in shared:
                self.uniform.add(var)
                self.prelude.append(f"const {self.real} *a{k} = in[{k}];")
        for node in nodes:
            if node not in self.names:
                self._emit(node)
        for lines in (self.prelude, self.body):
            self._flush(lines)

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
                "#include <string.h>",
                "#include <omp.h>",
                "#define STATIC static const",
            ]
            lines += [
                '#define SIMD_SUM _Pragma("omp simd reduction(+:s)")',
                f'#define UNROLL_BLOCK _Pragma("GCC unroll {_COLS}")',
                "typedef long idx_t;",
            ]
            if self.lanes > 1:  # one value per point of a block, as a GCC/Clang vector
                lines += [
                    f"typedef {real} lanes_t __attribute__((vector_size({self.vector * self.itemsize})));",
                    f"static inline lanes_t load_lanes(const {real} *p) {{ lanes_t v; memcpy(&v, p, sizeof v); return v; }}",
                    f"static inline void store_lanes({real} *p, lanes_t v) {{ memcpy(p, &v, sizeof v); }}",
                    # one compiled copy of each block function: inlined, every call was compiled anew
                    "#define NOINLINE __attribute__((noinline, noclone))",
                ]
        lines += [f"#define SG_CAST_{name}(v) {code}" for name, code in C_CASTS.items()]
        functions_at = len(lines)  # the functions go here once the loop body has asked for them all
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
        if self.lanes == 1:  # printed first: the block's input arrays take heap scratch too
            point = self._point_lines(offsets, "in[{k}] + p * stride[{k}]", "out[{j}]")
        else:
            point = self._block_lines(offsets)
        lines[functions_at:functions_at] = self.functions.values()
        signature = f"(idx_t n, const {real} *const *in, const idx_t *stride, {real} *const *out)"
        # small batches run on one thread: waking the others costs more than it saves
        serial = f"n * {self._work_per_point()} < {_PARALLEL_WORK}"
        lines += [
            f"int {FUNCTION}{signature}\n{{",  # returns 1 when memory ran out, else 0
            f"    int threads = {serial} ? 1 : omp_get_max_threads();",
        ]
        if self.plans:
            lines += [
                f"    {real} *sums = calloc((size_t)threads * {total}, sizeof({real}));",
                "    if (!sums) return 1;",
            ]
        if self.heap:
            free_sums = " free(sums);" if self.plans else ""
            lines += [
                f"    {real} *scratches = malloc((size_t)threads * {self.scratch} * sizeof({real}));",
                f"    if (!scratches) {{{free_sums} return 1; }}",
            ]
        lines += ["    #pragma omp parallel num_threads(threads)", "    {"]
        if self.heap:
            lines.append(
                f"        {real} *scratch = scratches + (size_t)omp_get_thread_num() * {self.scratch};"
            )
        if self.plans:
            lines.append(f"        {real} *acc = sums + (size_t)omp_get_thread_num() * {total};")
        if self.lanes == 1:
            lines += ["        #pragma omp for schedule(static)", "        for (idx_t p = 0; p < n; p++) {"]
        else:
            lines += [f"        {line}" for line in self.prelude]
            lines += [
                "        #pragma omp for schedule(static)",
                f"        for (idx_t p0 = 0; p0 < n; p0 += {self.lanes}) {{",
                f"            int nb = n - p0 < {self.lanes} ? (int)(n - p0) : {self.lanes};",
            ]
        lines += [f"            {line}" for line in point] + ["        }", "    }"]
        lines += ["    free(scratches);"] if self.heap else []
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
        lines += ["    return 0;", "}"]
        return self._done(lines)

    def _array(self, name: str, size: int) -> str:
        """The declaration of a per-point array (times the lanes of a blocked node): on the
        stack, or in the thread's heap scratch."""
        size *= self._width
        if not self.heap:
            return f"{self.real} {name}[{size}];"
        offset, self.scratch = self.scratch, self.scratch + size
        return f"{self.real} *restrict {name} = scratch + {offset};"

    @property
    def _width(self) -> int:
        """Values per element of the node being printed: its lanes, or 1."""
        return self.lanes if self._lane else 1

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
            lanes=self.lanes,
        )

    def _point_lines(self, offsets: dict[int, int], arg_start: str, out_base: str) -> list[str]:
        lines = [f"const {self.real} *a{k} = {arg_start.format(k=k)};" for k in range(len(self.args))]
        return lines + self.body + self._results(offsets, out_base)

    def _results(self, offsets: dict[int, int], out_base: str, lane: str | None = None) -> list[str]:
        """Each output's share of a batch sum, or its values written at ``out_base``: for point
        ``p``, or with a ``lane`` for each real point of the block."""
        point, loop = ("(p0 + b)", "for (int b = 0; b < nb; b++) ") if lane else ("p", "")
        lines = []
        for j, node in enumerate(self.outputs):
            size = _size(node)
            if j in self.plans:
                lines += self._accumulate(self.plans[j], 1, offsets[j])
            else:
                lines.append(
                    f"{loop}{{ {self.real} *o = {out_base.format(j=j)} + {point} * {size}; "
                    f"for (int i = 0; i < {size}; i++) o[i] = {self._at(node, 'i', lane)}; }}"
                )
        return lines

    def _block_lines(self, offsets: dict[int, int]) -> list[str]:
        """One block of points: its inputs in lanes (the block's last point repeated past
        ``nb``), the program, then each real point's outputs and sums."""
        lanes, lines = self.lanes, []
        self._lane = "b"  # the inputs' arrays and the sums' scratch are per lane
        for k, var in enumerate(self.args):
            if var not in self.uniform:
                size = _size(var)
                lines.append(
                    f"{self._array(f'a{k}', size)} for (int b = 0; b < {lanes}; b++) {{ "
                    f"const {self.real} *src = in[{k}] + (p0 + (b < nb ? b : nb - 1)) * stride[{k}]; "
                    f"for (int i = 0; i < {size}; i++) a{k}[i * {lanes} + b] = src[i]; }}"
                )
        return lines + self.body + self._results(offsets, "out[{j}]", "b")

    def _accumulate(self, plan: batch_sums.Plan, sign: int, offset: int) -> list[str]:
        """Add one point's (or block's) share of a batch sum to the thread's sums (outer products stay fused)."""
        if isinstance(plan, SignedSum):
            return [line for s, term in plan.terms for line in self._accumulate(term, s * sign, offset)]
        if isinstance(plan, Reshaped):  # the flat order is unchanged
            return self._accumulate(plan.inner, sign, offset)
        op = "+=" if sign > 0 else "-="
        real, lanes = self.real, self.lanes
        if isinstance(plan, OuterSum):  # (k, 1) @ (1, q): both factors are vectors in flat order
            a, b = plan.a, plan.b
            k, q = _size(a), _size(b)
            if lanes == 1:
                return [
                    f"for (int r = 0; r < {k}; r++) {{ {real} v = {self._at(a, 'r')}; "
                    f"for (int c = 0; c < {q}; c++) acc[{offset} + r * {q} + c] {op} v * {self._at(b, 'c')}; }}"
                ]
            return [self._lanes_outer_sum(a, b, sign, offset)]
        node = plan.node
        if lanes == 1:
            return [f"for (int i = 0; i < {_size(node)}; i++) acc[{offset} + i] {op} {self._at(node, 'i')};"]
        return [
            f"for (int i = 0; i < {_size(node)}; i++) {{ {real} s = 0; "
            f"for (int b = 0; b < nb; b++) s += {self._at(node, 'i', 'b')}; acc[{offset} + i] {op} s; }}"
        ]

    def _lanes_outer_sum(self, a: Node, b: Node, sign: int, offset: int) -> str:
        """``acc[r, c] += sign * sum over the block's points of a[r] * b[c]``: a call of the
        program's outer-sum function, with scratch for b's lanes turned point-major."""
        a_strides, b_strides = (self._lane_strides(x) for x in (a, b))
        return (
            f"{{ {self._array('bt', _size(b))} {self._lanes_outer_sum_function()}(acc + {offset}, "
            f"{self._pointer(a)}, {a_strides}, {self._pointer(b)}, {b_strides}, bt, {_size(a)}, {_size(b)}, nb, {sign}); }}"
        )

    def _lane_strides(self, node: Node) -> str:
        """Where element i of point p of ``node`` is, as ``i_stride, p_stride``."""
        return "1, 0" if node in self.uniform else f"{self.lanes}, 1"

    def _lanes_outer_sum_function(self) -> str:
        """Define (once) and name the batch-summed outer product of a block.

        b's lanes are turned point-major into bt. Tiles of acc (rows x vectors) are summed in
        registers over the block's points, each vector of bt read once for all of a tile's
        rows: 2 rows x 4 vectors, then 8 rows x 1 vector for the columns left, so that a tile
        has 8 independent sums (one vector of 4 columns, one row at a time, waited on its FMA's
        latency: half the H = 20 loss gradient's outer-sum time). Fewer than a vector's
        columns left are dot products over the points. (A 4 x 2 run for 8 columns left ran
        no faster and added 0.05 s to the compile.)
        """
        name = "lanes_outer_sum"
        if name in self.functions:
            return name
        real, lanes, width = self.real, self.lanes, self.vector

        def tile(rows: int, count: int) -> str:  # rows r.. x ``count`` vectors from c0, over the points
            cells = [(i, j) for i in range(rows) for j in range(count)]
            sums = ", ".join(f"s{i}_{j} = {{0}}" for i, j in cells)
            reads = " ".join(
                f"lanes_t b{j} = load_lanes(bt + p * q + c0 + {j * width});" for j in range(count)
            )
            a_reads = " ".join(f"{real} v{i} = a[(r + {i}) * ai + p * ap];" for i in range(rows))
            adds = " ".join(f"s{i}_{j} += v{i} * b{j};" for i, j in cells)
            stores = " ".join(
                f"store_lanes(acc + (r + {i}) * q + c0 + {j * width}, "
                f"load_lanes(acc + (r + {i}) * q + c0 + {j * width}) + sign * s{i}_{j});"
                for i, j in cells
            )
            return (
                f"{{ lanes_t {sums}; for (int p = 0; p < nb; p++) {{ {reads} {a_reads} {adds} }} {stores} }}"
            )

        def run(count: int, guard: str) -> str:  # ``count`` vectors of columns from c0, every row
            rows = _LANE_SUMS_OUTER // count
            return (
                f"    {guard} {{ int r = 0; for (; r + {rows} <= k; r += {rows}) {tile(rows, count)} "
                f"for (; r < k; r++) {tile(1, count)} c0 += {count * width}; }}"
            )

        lines = [
            f"static NOINLINE void {name}({real} *restrict acc, const {real} *restrict a, int ai, int ap, "
            f"const {real} *restrict b, int bi, int bp, {real} *restrict bt, int k, int q, int nb, {real} sign)",
            "{",
            f"    for (int c = 0; c < q; c++) for (int p = 0; p < {lanes}; p++) bt[p * q + c] = b[c * bi + p * bp];",
            "    int c0 = 0;",
            run(_SUM_VECTORS, f"while (c0 + {_SUM_VECTORS * width} <= q)"),
            run(1, f"while (c0 + {width} <= q)"),  # the columns left, a vector at a time
            "    for (int r = 0; r < k; r++) for (int c = c0; c < q; c++) {",
            f"        {real} s = 0; for (int p = 0; p < nb; p++) s += a[r * ai + p * ap] * b[c * bi + p * bp];",
            "        acc[r * q + c] += sign * s;",
            "    }",
            "}",
        ]
        self.functions[name] = "\n".join(lines)
        return name

    # ----- one node -----

    def _at(self, node: Node, index: str, lane: str | None = None) -> str:
        """C expression for element ``index`` of ``node`` (at point ``lane`` of a block, if given)."""
        if node in self.scalars:
            return self.scalars[node]
        if lane is None or node in self.uniform:
            return f"{self.names[node]}[{index}]"
        return f"{self.names[node]}[({index}) * {self.lanes} + {lane}]"

    def _set(self, name: str, index: str) -> str:
        """The target of element ``index`` of the node being printed (inside its lane loop)."""
        return f"{name}[({index}) * {self.lanes} + b]" if self._lane else f"{name}[{index}]"

    def _per_lane(self, statement: str) -> str:
        """``statement`` for each point of the block, when the node being printed has lanes."""
        return f"for (int b = 0; b < {self.lanes}; b++) {statement}" if self._lane else statement

    def _emit(self, node: Node) -> None:
        if isinstance(node, Var):
            raise unbound(node, self.args)
        if isinstance(node, Const):
            self._emit_const(node)
            return
        name = f"t{self.op_count}"
        self.op_count += 1
        self.names[node] = name
        uniform = self.lanes > 1 and all(a in self.uniform for a in node.args)
        if uniform:
            self.uniform.add(node)
        self._lane = "b" if self.lanes > 1 and not uniform else None
        body, self.body = self.body, (self.prelude if uniform else self.body)
        pattern = lookup(node.op).pattern
        if pattern == GATHER:  # flushes the waiting loop unless the node is another name
            self._emit_gather(node, name)
        elif not (pattern == MAP and self._fuse(node)):
            self._flush(self.body)
            emit = {MAP: self._emit_elementwise, CONTRACTION: self._emit_matmul, REDUCTION: self._emit_reduce}
            emit[pattern](node, name)
        self.body = body

    def _emit_const(self, node: Const) -> None:
        values = np.asarray(node.value).ravel()
        if values.size == 1:
            self.scalars[node] = _literal(values[0], self.real)
            self.names[node] = self.scalars[node]
            self.uniform.add(node)
            return
        name = f"c{len(self.statics)}"
        items = ", ".join(_literal(v, self.real) for v in values)
        self.statics.append(f"STATIC {self.real} {name}[{values.size}] = {{{items}}};")
        self.names[node] = name
        self.uniform.add(node)

    def _expression(self, node: Node, reads: list[str]) -> str:
        """The C expression of an elementwise node from its arguments' reads (noting the
        function of symgrad's own it calls, if any)."""
        op = lookup(node.op)
        spelling = op.spelling(*self.spelling_keys)
        if op.c_function and spelling == op.spellings["c"]:
            self.functions[op.name] = op.c_function
        fields = {f"p{i}": _literal(p, self.real) for i, p in enumerate(node.params)}
        return spelling.format(*reads, **fields)

    def _emit_elementwise(self, node: Node, name: str) -> None:
        """An elementwise node whose arguments broadcast (see :meth:`_fuse` for the others)."""
        size = _size(node)
        cut = _outer_inner_cut(node)
        expr = self._expression(node, [self._broadcast_read(a, node, cut, self._lane) for a in node.args])
        if cut is None:
            self.body.append(
                f"{self._array(name, size)} for (int i = 0; i < {size}; i++) "
                + self._per_lane(f"{self._set(name, 'i')} = {expr};")
            )
            return
        # every argument is whole, a scalar, the outer or the inner block: two loops, no tables
        outer, inner = math.prod(node.shape[:cut]), math.prod(node.shape[cut:])
        self.body.append(
            f"{self._array(name, size)} for (int r = 0; r < {outer}; r++) for (int c = 0; c < {inner}; c++) "
            f"{{ int i = r * {inner} + c; " + self._per_lane(f"{self._set(name, 'i')} = {expr};") + " }"
        )

    def _fuse(self, node: Node) -> bool:
        """Queue an elementwise node for the loop it shares with its neighbours, if each of its
        arguments is one value or has its shape; False if it needs a loop of its own."""
        if not all(a in self.scalars or _size(a) == 1 or a.shape == node.shape for a in node.args):
            return False
        group = self.pending.get(id(self.body))
        if group and (group.size, group.lane) != (_size(node), self._lane):
            self._flush(self.body)
            group = None
        if group is None:
            group = self.pending[id(self.body)] = _Fused(_size(node), self._lane)
        group.members.append(node)
        return True

    def _flush(self, lines: list[str]) -> None:
        """Print the queued elementwise nodes of ``lines`` as one loop over their elements (and
        lanes). A node read only inside the loop is a local value there, not an array."""
        group = self.pending.pop(id(lines), None)
        if group is None:
            return
        members = set(group.members)
        local = {m for m in group.members if self._read_only_by(m, members)}
        lane, self._lane = self._lane, group.lane  # the arrays of the loop have the group's lanes
        declarations, statements = [], []
        for node in group.members:
            name = self.names[node]
            expr = self._expression(node, [self._fused_read(a, local) for a in node.args])
            if node in local:
                statements.append(f"{self.real} {name} = {expr};")
            else:
                declarations.append(self._array(name, group.size))
                statements.append(f"{self._set(name, 'i')} = {expr};")
        loop = f"for (int i = 0; i < {group.size}; i++) " + self._per_lane(f"{{ {' '.join(statements)} }}")
        lines.append(" ".join([*declarations, loop]))
        self._lane = lane

    def _read_only_by(self, node: Node, members: set[Node]) -> bool:
        """Whether only ``members`` read ``node`` (directly or under another name)."""
        if node in self.kept:
            return False
        return all(  # another name for a prefix (x[0] of a vector) is read as element 0, not i
            c in members
            or (c in self.alias_of and _size(c) == _size(node) and self._read_only_by(c, members))
            for c in self.consumers.get(node, ())
        )

    def _fused_read(self, arg: Node, local: set[Node]) -> str:
        """Element ``i`` (of lane ``b``, in a loop with lanes) of ``arg`` in a fused loop."""
        if self.alias_of.get(arg, arg) in local:
            return self.names[arg]
        return self._at(arg, "0" if _size(arg) == 1 else "i", self._lane)

    def _broadcast_read(self, arg: Node, node: Node, cut: int | None = None, lane: str | None = None) -> str:
        """Element ``i`` of ``node``'s shape read from ``arg`` (NumPy broadcasting); with a ``cut``
        (see :func:`_outer_inner_cut`), element ``(r, c)`` of the outer and inner blocks."""
        if arg in self.scalars or _size(arg) == 1:
            return self._at(arg, "0", lane)
        if arg.shape == node.shape:
            return self._at(arg, "i", lane)
        if cut is not None:
            return self._at(arg, "c" if _reads_inner(arg.shape, node.shape, cut) else "r", lane)
        table = np.broadcast_to(np.arange(_size(arg)).reshape(arg.shape), node.shape).ravel()
        return self._at(arg, f"{self._table(table)}[i]", lane)

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

        a_strides = (1, m) if ta else (k, 1)  # element (r, l) of op(a) is r * first + l * second of a
        b_strides = (1, k) if tb else (q, 1)  # element (l, c) of op(b)

        def a_index(r: str, l: str) -> str:  # noqa: E741 - the summed index, as in the loops
            return f"{r} * {a_strides[0]} + {l} * {a_strides[1]}"

        def b_index(l: str, c: str) -> str:  # noqa: E741
            return f"{l} * {b_strides[0]} + {c} * {b_strides[1]}"

        if self._lane:
            loops = self._lanes_matmul(name, (m, k, q), (a, a_strides), (b, b_strides))
            self.body.append(f"{self._array(name, m * q)} {loops}")
            return

        def a_at(r: str, l: str) -> str:  # noqa: E741
            return self._at(a, a_index(r, l))

        def b_at(l: str, c: str) -> str:  # noqa: E741
            return self._at(b, b_index(l, c))

        a_ik, b_kj = a_at("r", "l"), b_at("l", "c")
        if tb:  # rows of b are contiguous: dot products (the pragma allows a vectorized sum)
            loops = self._dot_products(name, (0, m), (0, q), (k, q), a_ik, b_kj, vectorized=True)
        elif m >= _ROWS and q >= _COLS:  # register blocks of the result, then the edges
            loops = self._blocked_matmul(name, (m, k, q), a_at, b_at)
        else:  # columns of the result are contiguous in b: accumulate rows
            loops = self._row_sums(name, (0, m), (k, q), a_ik, b_kj)
        self.body.append(f"{self._array(name, m * q)} {loops}")

    def _lanes_matmul(self, name: str, sizes: tuple[int, int, int], a_operand, b_operand) -> str:
        """``op(a) @ op(b)`` for a block of points: a call of the program's product function
        for this pair of kinds of operand (per point or shared), sizes and strides its arguments.

        ``a_operand`` is ``(a, (r_stride, l_stride))``: element (r, l) of op(a) is element
        ``r * r_stride + l * l_stride`` of a (likewise ``(b, (l_stride, c_stride))``). One function
        per kind keeps the source and the compile short (an MLP's loss gradient has some twenty
        products: its compile went from 3.2-3.7 s to 1.0-1.4 s).
        """
        (a, (ar, al)), (b, (bl, bc)) = a_operand, b_operand
        function = self._lanes_matmul_function(a in self.uniform, b in self.uniform)
        m, k, q = sizes
        return f"{function}({name}, {self._pointer(a)}, {self._pointer(b)}, {m}, {k}, {q}, {ar}, {al}, {bl}, {bc});"

    def _pointer(self, node: Node) -> str:
        """A pointer to ``node``'s values (a one-element array for a literal)."""
        if node in self.scalars:
            return f"(const {self.real}[]){{{self.scalars[node]}}}"
        return self.names[node]

    def _lanes_matmul_function(self, shared_a: bool, shared_b: bool) -> str:
        """Define (once) and name the block product for per-point or shared operands.

        _LANE_SUMS vectors of results are summed together, so each vector of a is read once for
        a few columns; the last columns go in smaller blocks (of 3, 2 and 1 after blocks of 6).
        """
        name = f"lanes_matmul_{'s' if shared_a else 'p'}{'s' if shared_b else 'p'}"
        if name in self.functions:
            return name
        real, lanes, width = self.real, self.lanes, self.vector
        vectors = range(lanes // width)
        block = max(1, _LANE_SUMS // len(vectors))  # columns per block

        def term(shared: bool, pointer: str, index: str, v: int) -> str:  # a vector of points, or a scalar
            if shared:
                return f"{pointer}[{index}]"
            return f"load_lanes({pointer} + ({index}) * {lanes} + {v * width})"

        a_type = real if shared_a else "lanes_t"

        def columns(count: int) -> str:
            sums = ", ".join(f"s{j}_{v} = {{0}}" for j in range(count) for v in vectors)
            reads = " ".join(
                f"{a_type} x{v} = {term(shared_a, 'a', 'r * ar + l * al', v)};"
                for v in (vectors[:1] if shared_a else vectors)
            )
            adds = " ".join(
                f"s{j}_{v} += x{0 if shared_a else v} * {term(shared_b, 'b', f'l * bl + (c0 + {j}) * bc', v)};"
                for j in range(count)
                for v in vectors
            )
            stores = " ".join(
                f"store_lanes(y + (r * q + c0 + {j}) * {lanes} + {v * width}, s{j}_{v});"
                for j in range(count)
                for v in vectors
            )
            return f"{{ lanes_t {sums}; for (int l = 0; l < k; l++) {{ {reads} {adds} }} {stores} }}"

        lines = [
            f"static NOINLINE void {name}({real} *restrict y, const {real} *restrict a, const {real} *restrict b, "
            "int m, int k, int q, int ar, int al, int bl, int bc)",
            "{",
            "    for (int r = 0; r < m; r++) {",
            "        int c0 = 0;",
            f"        for (; c0 + {block} <= q; c0 += {block}) {columns(block)}",
        ]
        count = block
        while count > 1:
            count = (count + 1) // 2
            lines.append(f"        if (c0 + {count} <= q) {{ {columns(count)} c0 += {count}; }}")
        lines += ["    }", "}"]
        self.functions[name] = "\n".join(lines)
        return name

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
        lead, width = math.prod(x.shape[: len(axes)]), self._width
        zero = f"{self._array(name, size)} for (int i = 0; i < {size * width}; i++) {name}[i] = 0;"
        if tuple(axes) == tuple(range(len(axes))):  # leading axes: add whole rows, no index table
            row = size * width  # lanes keep their order within a row
            self.body.append(
                f"{zero} for (int r = 0; r < {lead}; r++) for (int i = 0; i < {row}; i++) "
                f"{name}[i] += {self._at(x, f'r * {row} + i')};"
            )
            return
        coords = np.indices(x.shape).reshape(x.ndim, -1)
        kept = [d for d in range(x.ndim) if d not in axes]
        target = (
            np.ravel_multi_index(coords[kept], tuple(x.shape[d] for d in kept))
            if kept
            else np.zeros(coords.shape[1], dtype=np.int64)
        )
        add = f"{self._set(name, f'{self._table(target)}[i]')} += {self._at(x, 'i', self._lane)};"
        self.body.append(f"{zero} for (int i = 0; i < {size_in}; i++) {self._per_lane(add)}")

    def _emit_gather(self, node: Node, name: str) -> None:
        """A linear op that picks elements (reshape, transpose, getitem, scatter, stack, broadcast)."""
        sources = self._gather_sources(node)  # per output element: global index + 1, or 0 for zero
        offsets = np.cumsum([0] + [_size(a) for a in node.args])
        size, lane = _size(node), self._lane
        if len(node.args) == 1 and np.array_equal(sources, np.arange(1, size + 1)):
            # the same elements in the same order (a reshape): another name for the argument
            arg = self.alias_of.get(node.args[0], node.args[0])
            self.alias_of[node] = arg
            self.names[node] = self.names[arg]
            if arg in self.scalars:
                self.scalars[node] = self.scalars[arg]
            return
        self._flush(self.body)
        parts = [self._array(name, size)]
        if (sources == 0).any():
            parts.append(f"for (int i = 0; i < {size * self._width}; i++) {name}[i] = 0;")
        for k, arg in enumerate(node.args):
            mine = (sources > offsets[k]) & (sources <= offsets[k + 1])
            where = np.flatnonzero(mine)
            if where.size == 0:
                continue
            local = sources[where] - 1 - offsets[k]
            if where.size == size:
                copy = f"{self._set(name, 'i')} = {self._at(arg, f'{self._table(local)}[i]', lane)};"
                parts.append(f"for (int i = 0; i < {size}; i++) {self._per_lane(copy)}")
            else:
                out_t, in_t = self._table(where), self._table(local)
                copy = f"{self._set(name, f'{out_t}[i]')} = {self._at(arg, f'{in_t}[i]', lane)};"
                parts.append(f"for (int i = 0; i < {where.size}; i++) {self._per_lane(copy)}")
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
    """Each argument as ``(contiguous array, stride)`` in the per-point calling convention
    (the CUDA kernels'; the C ones lay out their calls with :class:`lowering.call_plan.CallPlan`).

    A value without batch axes (a weight) is shared by every point (stride 0); other values
    are broadcast to ``batch`` and laid out one point after another.
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
_LANES = (8, 4)  # points per block, the most that fit in _BLOCK_BYTES (2 would be half a vector)
# a block's arrays (measured: the H = 64 Burgers loss gradient is faster in 8 lanes than 2)
_BLOCK_BYTES = 2048 * 1024
_VECTOR_BYTES = 32  # one AVX register (two NEON registers)
# a tile of a batch-summed outer product kept in registers: _SUM_VECTORS vectors of a row's columns
# (then one vector), as many rows as make _LANE_SUMS_OUTER sums (with the vectors of b and one of
# a: 13 of AVX2's 16 registers)
_SUM_VECTORS, _LANE_SUMS_OUTER = 4, 8
# vectors of results of a blocked product summed together: with the vectors of a and the
# weight they fill 15 of AVX2's 16 registers (measured, 32 x 32 on 8 lanes: 12 sums 16-20 GFMA/s
# against 11-15 for 8, whose reads the compiler folded into the FMAs)
_LANE_SUMS = 12


@dataclass
class _Fused:
    """Elementwise nodes of ``size`` elements (with ``lane``, if they have lanes) printed as one loop."""

    size: int
    lane: str | None
    members: list[Node] = field(default_factory=list)


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
