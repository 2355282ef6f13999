"""``CupyPrinter``: the array program for CuPy, each run of elementwise ops one CUDA kernel.

Printed one op a line, a CuPy program makes a pass over an N x H array per elementwise op (each a
kernel launch and a round trip through GPU memory). Consecutive elementwise nodes of one shape
become one ``rt.fused(operation, ...)`` line instead: a ``cupy.ElementwiseKernel`` whose
operation is the ops' C spellings, with the values that only the run reads as locals.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Sequence

from lowering.c.point_program import c_literal
from lowering.printer import NumpyPrinter, Program
from symgrad.core.graph import Const, Node
from symgrad.core.registry import MAP, lookup

Body = list[tuple[str, str, list[str]]]
_SPELLINGS = ("cuda", "c")


class CupyPrinter(NumpyPrinter):
    """The NumPy printer's program, with runs of float elementwise nodes fused."""

    def print_program(self, outputs, args, reductions=None) -> Program:
        """Printed by a fresh copy: the run and the consumers are one program's state, and the
        backend's printer is shared (kernels may be built on several threads at once)."""
        return NumpyPrinter.print_program(copy.copy(self), outputs, args, reductions)

    def start(self, nodes: list[Node], kept: Sequence[Node]) -> list[Node]:
        self.kept = set(kept)
        self.consumers: dict[Node, set[Node]] = {}
        for node in nodes:
            for a in node.args:
                self.consumers.setdefault(a, set()).add(node)
        self.run: list[Node] = []
        return self.schedule(nodes)

    def schedule(self, nodes: list[Node]) -> list[Node]:
        """``nodes`` reordered so that fusable nodes of one shape come together where the graph
        allows: after a fusable node, the next is a ready fusable node of its shape if there is
        one; otherwise the first ready node in the given order."""
        position = {node: k for k, node in enumerate(nodes)}
        waiting = [sum(1 for a in set(node.args) if a in position) for node in nodes]
        ready = [k for k, count in enumerate(waiting) if count == 0]  # heaps of positions
        ready_fusable: dict[tuple, list[int]] = {}
        for k in ready:
            if fusable(nodes[k]):
                heapq.heappush(ready_fusable.setdefault(nodes[k].shape, []), k)
        heapq.heapify(ready)
        done = [False] * len(nodes)
        order: list[Node] = []
        while len(order) < len(nodes):
            last = order[-1] if order else None
            same = ready_fusable.get(last.shape, []) if last is not None and fusable(last) else []
            while same and done[same[0]]:  # entries already printed from the other heap
                heapq.heappop(same)
            heap = same or ready
            k = heapq.heappop(heap)
            if done[k]:
                continue
            done[k] = True
            order.append(nodes[k])
            for consumer in self.consumers.get(nodes[k], ()):
                c = position.get(consumer)
                if c is not None:
                    waiting[c] -= 1
                    if waiting[c] == 0:
                        heapq.heappush(ready, c)
                        if fusable(consumer):
                            heapq.heappush(ready_fusable.setdefault(consumer.shape, []), c)
        return order

    def emit(self, node: Node, code: dict[Node, str], body: Body) -> None:
        if not fusable(node):
            self.flush(code, body)
            super().emit(node, code, body)
            return
        if self.run and self.run[0].shape != node.shape:
            self.flush(code, body)
        self.run.append(node)

    def flush(self, code: dict[Node, str], body: Body) -> None:
        run, self.run = self.run, []
        inputs = list(dict.fromkeys(a for n in run for a in n.args if a not in run and not _inline(a)))
        if len(run) < 2 or not inputs:
            for node in run:
                super().emit(node, code, body)
            return
        members = set(run)
        names = {a: f"in{k}" for k, a in enumerate(inputs)}
        statements, results = [], []
        for node in run:
            reads = [names.get(a) or _read(a, code) for a in node.args]
            fields = {f"p{i}": _c_number(p) for i, p in enumerate(node.params)}
            statements.append(
                f"T {code[node]} = {lookup(node.op).spelling(*_SPELLINGS).format(*reads, **fields)};"
            )
            if node in self.kept or not self.consumers.get(node, set()) <= members:
                results.append(node)
        statements += [f"out{j} = {code[n]};" for j, n in enumerate(results)]
        arrays = [self.argument(run[0], a, code[a]) for a in inputs]
        arrays = [
            f"rt.lift({text}, {a.ndim}, {run[0].ndim})" if a.ndim < run[0].ndim else text
            for a, text in zip(inputs, arrays)
        ]
        call = f"rt.fused({' '.join(statements)!r}, {len(results)}, {', '.join(arrays)})"
        targets = ", ".join(code[n] for n in results)
        body.append((targets, call if len(results) > 1 else f"{call}[0]", [code[a] for a in inputs]))


def fusable(node: Node) -> bool:
    """A float elementwise node whose op has a C spelling that CUDA compiles as it is (not one of
    symgrad's own C functions, nor a cast), every argument a float value."""
    if not node.args or isinstance(node, Const):
        return False
    op = lookup(node.op)
    if op.pattern != MAP or not set(_SPELLINGS) & set(op.spellings) or node.op == "cast":
        return False
    if op.c_function and "cuda" not in op.spellings:
        return False
    if not all(isinstance(p, int | float) and not isinstance(p, bool) for p in node.params):
        return False
    return all(n.dtype is None or n.dtype.kind == "f" for n in (node, *node.args))


def _read(arg: Node, code: dict[Node, str]) -> str:
    """A run member's local, or a weakly typed number as a literal of ``T``."""
    return _c_number(arg.value) if isinstance(arg, Const) and _inline(arg) else code[arg]


def _inline(node: Node) -> bool:
    """A weakly typed number, written into the operation as a literal."""
    return isinstance(node, Const) and node.is_weak and node.ndim == 0


def _c_number(value) -> str:
    """A number of the kernel's type ``T`` (float or double, chosen by CuPy from the arrays)."""
    return f"((T){c_literal(value, 'double')})"
