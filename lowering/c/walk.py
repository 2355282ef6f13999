"""The walk over a graph that prints the per-point C program's body, one node at a time.

:class:`PointPrinter` holds what the walk knows: each node's C name, the per-thread prelude
(what no point changes), the per-point body, the file-scope tables and constants, and symgrad's
own C functions the body calls. Each node is printed by the emitter registered for its op's
pattern (``EMITTERS`` in ``lowering/c/__init__.py``); a driver (``openmp_driver``,
``cuda_driver``) then wraps the body in its loop over the points.

Values are small fixed-size arrays, one per shared node. In a blocked program (OpenMP with
``lanes`` > 1) a per-point array holds element ``i`` of point ``b`` at ``i * lanes + b``;
nodes that depend on nothing per point (weights and what is computed from them alone) are
``uniform``: computed once per thread, in the prelude, without lanes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from lowering import batch_sums
from lowering.c import elementwise, tiles
from lowering.c.point_program import PointProgram, c_literal, size_of
from lowering.printer import unbound
from symgrad.core.graph import Const, Node, Var, computed_elements, topo_order
from symgrad.core.registry import lookup

# an emitter prints one node of its pattern as ``name`` (into ``printer.body``); one that
# appends its own lines first flushes the elementwise loop waiting to be printed
Emitter = Callable[["PointPrinter", Node, str], None]

_STACK_BYTES = 512 * 1024  # a point's arrays beyond this go to heap scratch (threads' stacks are small)
_LANES = (8, 4)  # points per block, the most that fit in _BLOCK_BYTES (2 would be half a vector)
# a block's arrays (measured: the H = 64 Burgers loss gradient is faster in 8 lanes than 2)
_BLOCK_BYTES = 2048 * 1024
_VECTOR_BYTES = 32  # one AVX register (two NEON registers)
# bytes past each block array of a tiled program (three cache lines). Unpadded, a block array is a
# power of two in size (H x 32 doubles), so every array starts at the same offset modulo 4 KB: the
# dozens a fused loop reads and writes map to one set of the 8-way L1 cache and evict each other (a
# modified MLP's last loop of the loss gradient, 50 arrays read and 11 written: 37 of 165 ms at
# H = 128). Padded, each starts three lines later in the sets than the one before it. Burgers loss
# gradient, N = 1e4, 2 threads, Zen 4, 3 alternating calls each (ms): modified MLP H = 128 164-165
# unpadded, 118 one line, 113-114 three, 113 five; H = 256 481-493, 390-401, 390-405, 391-396; MLP
# H = 256 334-336, 329-333, 328-332, 326-334
_STAGGER_BYTES = 192


def _lanes(target: str, tiled: bool, per_point: int, itemsize: int, vector_bytes: int) -> int:
    """Points per block: as many as keep a block's arrays in the core's cache (1: point by point),
    or, with a wide shared matrix, ``tiles.lanes`` for blocked matrix products."""
    if tiled:
        return tiles.lanes(itemsize, vector_bytes)
    if target == "openmp":
        return next((w for w in _LANES if w * per_point <= _BLOCK_BYTES), 1)
    return 1


class PointPrinter:
    """The body of the per-point program of ``leaves`` (the outputs and batch sums' factors)."""

    def __init__(
        self,
        outputs: Sequence[Node],
        args: Sequence[Var],
        plans: dict[int, batch_sums.Plan],
        leaves: list[Node],
        emitters: Mapping[str, Emitter],
        spelling_keys: tuple[str, ...],
        double: bool = False,
        target: str = "openmp",
        shared: frozenset[int] = frozenset(),
        vector_bytes: int = 32,
    ):
        self.emitters = emitters
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
        self.tiled = target == "openmp" and tiles.wide(nodes, (args[k] for k in shared))
        self.lanes = _lanes(target, self.tiled, per_point, self.itemsize, vector_bytes)
        self.vector = min(self.lanes, _VECTOR_BYTES // self.itemsize)  # values per C vector of lanes
        # a block's arrays past _STACK_BYTES live in per-thread heap scratch, not on the stack
        # (a tiled program's packed matrices are in one scratch that the threads share)
        self.heap = target == "openmp" and (per_point * self.lanes > _STACK_BYTES or self.tiled)
        self.scratch = 0  # elements of the scratch handed out so far
        self.shared_scratch = 0  # elements of the scratch every thread reads (tiled products' packs)
        self.statics: list[str] = []  # file-scope tables and constants
        self.functions: dict[str, str] = {}  # op -> the C source of symgrad's own function it calls
        self.body: list[str] = []  # per point (or per block of points)
        self.prelude: list[str] = []  # per thread, before the loop: what no point changes
        self.names: dict[Node, str] = {}
        self.scalars: dict[Node, str] = {}  # nodes that are one literal
        self.uniform: set[Node] = set()  # nodes every point shares (blocked programs only)
        self.packed: dict[tuple, str] = {}  # tiled products' packed matrices, outer sums' scratch
        self.op_count = 0
        self.lane: str | None = None  # the lane index of the node being printed, if it has lanes
        # elementwise nodes waiting to share one loop, per list of lines (prelude or body)
        self.pending: dict[int, elementwise.Fused] = {}
        self.kept = set(leaves)  # read after the body: outputs and the batch sums' factors
        self.alias_of: dict[Node, Node] = {}  # nodes with their argument's elements, in order
        self.consumers: dict[Node, list[Node]] = {}
        for node in nodes:
            for a in node.args:
                self.consumers.setdefault(a, []).append(node)
        # a tiled program's block arrays reuse the scratch of arrays no node still reads
        self.readers = {node: len(set(readers)) for node, readers in self.consumers.items()}
        self.regions: dict[str, tuple[int, int]] = {}  # a block array's name -> (offset, size)
        self.free: list[tuple[int, int]] = []  # scratch no node still reads
        self._walk(nodes, shared)

    def _walk(self, nodes: list[Node], shared: frozenset[int]) -> None:
        """Name the arguments (shared ones are read once per thread) and print every node."""
        for k, var in enumerate(self.args):
            self.names[var] = f"a{k}"
            if self.lanes > 1 and k in shared:
                self.uniform.add(var)
                self.prelude.append(f"const {self.real} *a{k} = in[{k}];")
        self.reusing = self.tiled
        for node in nodes:
            if node not in self.names:
                self._print(node)
        for lines in (self.prelude, self.body):
            self.flush(lines)
        self.reusing = False  # the driver's arrays (inputs, scratch of sums) are read all along

    def _print(self, node: Node) -> None:
        if isinstance(node, Var):
            raise unbound(node, self.args)
        if isinstance(node, Const):
            self._print_const(node)
            return
        name = f"t{self.op_count}"
        self.op_count += 1
        self.names[node] = name
        uniform = self.lanes > 1 and all(a in self.uniform for a in node.args)
        if uniform:
            self.uniform.add(node)
        self.lane = "b" if self.lanes > 1 and not uniform else None
        body, self.body = self.body, (self.prelude if uniform else self.body)
        self.emitters[lookup(node.op).pattern](self, node, name)
        group = self.pending.get(id(self.body))
        if group is None or node not in group.members:  # printed, not waiting for its loop
            self.printed(node)
        self.body = body

    def _print_const(self, node: Const) -> None:
        values = np.asarray(node.value).ravel()
        if values.size == 1:
            self.scalars[node] = c_literal(values[0], self.real)
            self.names[node] = self.scalars[node]
            self.uniform.add(node)
            return
        name = f"c{len(self.statics)}"
        items = ", ".join(c_literal(v, self.real) for v in values)
        self.statics.append(f"STATIC {self.real} {name}[{values.size}] = {{{items}}};")
        self.names[node] = name
        self.uniform.add(node)

    # ----- what emitters and drivers use -----

    def flush(self, lines: list[str] | None = None) -> None:
        """Print the elementwise loop waiting in ``lines`` (default: the body being printed)."""
        elementwise.flush(self, self.body if lines is None else lines)

    def array(self, name: str, size: int) -> str:
        """The declaration of a per-point array (times the lanes of a blocked node): on the
        stack, or in the thread's heap scratch (in a tiled program, a block array takes scratch
        freed by arrays no node reads any more, and is no ``restrict`` pointer: two names may
        be one place at different times; it is padded by ``_STAGGER_BYTES``)."""
        size *= self.width
        if not self.heap:
            return f"{self.real} {name}[{size}];"
        if self.reusing and self.lane:
            size += _STAGGER_BYTES // self.itemsize
            fits = [region for region in self.free if region[1] >= size]
            if fits:
                offset, room = min(fits, key=lambda region: region[1])
                self.free.remove((offset, room))
                if room > size:
                    self.free.append((offset + size, room - size))
            else:
                offset, self.scratch = self.scratch, self.scratch + size
            self.regions[name] = (offset, size)
            return f"{self.real} *{name} = scratch + {offset};"
        offset, self.scratch = self.scratch, self.scratch + size
        return f"{self.real} *restrict {name} = scratch + {offset};"

    def printed(self, node: Node) -> None:
        """``node``'s lines are printed: its arguments that nothing else will read free their scratch."""
        for arg in set(node.args):
            base = self.alias_of.get(arg, arg)
            self.readers[base] = self.readers.get(base, 1) - 1
            name = self.names.get(base)
            if self.readers[base] <= 0 and base not in self.kept and name in self.regions:
                self.free.append(self.regions.pop(name))

    def another_name(self, node: Node, arg: Node) -> None:
        """``node`` is another name for ``arg``'s elements: arg's scratch lives while node is read."""
        self.alias_of[node] = arg
        self.names[node] = self.names[arg]
        self.readers[arg] = self.readers.get(arg, 0) + self.readers.get(node, 0)
        if node in self.kept:
            self.kept.add(arg)

    @property
    def width(self) -> int:
        """Values per element of the node being printed: its lanes, or 1."""
        return self.lanes if self.lane else 1

    def at(self, node: Node, index: str, lane: str | None = None) -> str:
        """C expression for element ``index`` of ``node`` (at point ``lane`` of a block, if given)."""
        if node in self.scalars:
            return self.scalars[node]
        if lane is None or node in self.uniform:
            return f"{self.names[node]}[{index}]"
        return f"{self.names[node]}[({index}) * {self.lanes} + {lane}]"

    def element(self, name: str, index: str) -> str:
        """The target of element ``index`` of the node being printed (inside its lane loop)."""
        return f"{name}[({index}) * {self.lanes} + b]" if self.lane else f"{name}[{index}]"

    def per_lane(self, statement: str) -> str:
        """``statement`` for each point of the block, when the node being printed has lanes (in a
        tiled program, a loop the compiler is told to vectorize: its many arrays are more than GCC
        checks for overlap at run time, and the points of a block never overlap)."""
        if not self.lane:
            return statement
        simd = "SIMD_LANES " if self.tiled else ""
        return f"{simd}for (int b = 0; b < {self.lanes}; b++) {statement}"

    def pointer(self, node: Node) -> str:
        """A pointer to ``node``'s values (a one-element array for a literal)."""
        if node in self.scalars:
            return f"(const {self.real}[]){{{self.scalars[node]}}}"
        return self.names[node]

    def expression(self, node: Node, reads: list[str]) -> str:
        """The C expression of an elementwise node from its arguments' reads (noting the
        function of symgrad's own it calls, if any)."""
        op = lookup(node.op)
        spelling = op.spelling(*self.spelling_keys)
        if op.c_function and spelling == op.spellings["c"]:
            self.functions[op.name] = op.c_function
        fields = {f"p{i}": c_literal(p, self.real) for i, p in enumerate(node.params)}
        return spelling.format(*reads, **fields)

    def table(self, values) -> str:
        """The name of a file-scope table of the integers ``values``."""
        name = f"c{len(self.statics)}"
        items = ", ".join(str(int(v)) for v in np.asarray(values).ravel())
        self.statics.append(f"STATIC int {name}[{np.asarray(values).size}] = {{{items}}};")
        return name

    def finished(self, lines: list[str]) -> PointProgram:
        """The program whose source is ``lines``."""
        return PointProgram(
            source="\n".join(lines) + "\n",
            real=self.real,
            sizes_out=[size_of(o) for o in self.outputs],
            op_count=self.op_count,
            scratch_bytes=self.scratch * self.itemsize,
            shared_scratch_bytes=self.shared_scratch * self.itemsize,
            lanes=self.lanes,
            tiled=self.tiled,
        )
