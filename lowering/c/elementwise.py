"""Elementwise (MAP) nodes in the per-point C program.

Consecutive elementwise nodes of one size share one loop, in which a value that only the
loop reads is a local, not an array. A node whose arguments broadcast gets a loop of its own:
two nested loops when every argument is whole, one value, or the outer or inner block of
its shape, else one loop reading through an index table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lowering.c.point_program import size_of
from symgrad.core.graph import Node

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter


@dataclass
class Fused:
    """Elementwise nodes of ``size`` elements (with ``lane``, if they have lanes) printed as one loop."""

    size: int
    lane: str | None
    members: list[Node] = field(default_factory=list)


def emit(printer: PointPrinter, node: Node, name: str) -> None:
    """Queue ``node`` for the loop it shares with its neighbours, or print its own loop."""
    if _fuse(printer, node):
        return
    printer.flush()
    size = size_of(node)
    cut = _outer_inner_cut(node)
    reads = [_broadcast_read(printer, a, node, cut, printer.lane) for a in node.args]
    expr = printer.expression(node, reads)
    if cut is None:
        printer.body.append(
            f"{printer.array(name, size)} for (int i = 0; i < {size}; i++) "
            + printer.per_lane(f"{printer.element(name, 'i')} = {expr};")
        )
        return
    # every argument is whole, a scalar, the outer or the inner block: two loops, no tables
    outer, inner = math.prod(node.shape[:cut]), math.prod(node.shape[cut:])
    printer.body.append(
        f"{printer.array(name, size)} for (int r = 0; r < {outer}; r++) for (int c = 0; c < {inner}; c++) "
        f"{{ int i = r * {inner} + c; " + printer.per_lane(f"{printer.element(name, 'i')} = {expr};") + " }"
    )


def flush(printer: PointPrinter, lines: list[str]) -> None:
    """Print the queued elementwise nodes of ``lines`` as one loop over their elements (and
    lanes). A node read only inside the loop is a local value there, not an array."""
    group = printer.pending.pop(id(lines), None)
    if group is None:
        return
    members = set(group.members)
    local = {m for m in group.members if _read_only_by(printer, m, members)}
    lane, printer.lane = printer.lane, group.lane  # the arrays of the loop have the group's lanes
    declarations, statements = [], []
    for node in group.members:
        name = printer.names[node]
        expr = printer.expression(node, [_fused_read(printer, a, local) for a in node.args])
        if node in local:
            statements.append(f"{printer.real} {name} = {expr};")
        else:
            declarations.append(printer.array(name, group.size))
            statements.append(f"{printer.element(name, 'i')} = {expr};")
    loop = f"for (int i = 0; i < {group.size}; i++) " + printer.per_lane(f"{{ {' '.join(statements)} }}")
    lines.append(" ".join([*declarations, loop]))
    printer.lane = lane
    for node in group.members:
        printer.printed(node)


def _fuse(printer: PointPrinter, node: Node) -> bool:
    """Queue an elementwise node for the loop it shares with its neighbours, if each of its
    arguments is one value or has its shape; False if it needs a loop of its own."""
    if not all(a in printer.scalars or size_of(a) == 1 or a.shape == node.shape for a in node.args):
        return False
    group = printer.pending.get(id(printer.body))
    if group and (group.size, group.lane) != (size_of(node), printer.lane):
        printer.flush()
        group = None
    if group is None:
        group = printer.pending[id(printer.body)] = Fused(size_of(node), printer.lane)
    group.members.append(node)
    return True


def _read_only_by(printer: PointPrinter, node: Node, members: set[Node]) -> bool:
    """Whether only ``members`` read ``node`` (directly or under another name)."""
    if node in printer.kept:
        return False
    return all(  # another name for a prefix (x[0] of a vector) is read as element 0, not i
        c in members
        or (c in printer.alias_of and size_of(c) == size_of(node) and _read_only_by(printer, c, members))
        for c in printer.consumers.get(node, ())
    )


def _fused_read(printer: PointPrinter, arg: Node, local: set[Node]) -> str:
    """Element ``i`` (of lane ``b``, in a loop with lanes) of ``arg`` in a fused loop."""
    if printer.alias_of.get(arg, arg) in local:
        return printer.names[arg]
    return printer.at(arg, "0" if size_of(arg) == 1 else "i", printer.lane)


def _broadcast_read(
    printer: PointPrinter, arg: Node, node: Node, cut: int | None = None, lane: str | None = None
) -> str:
    """Element ``i`` of ``node``'s shape read from ``arg`` (NumPy broadcasting); with a ``cut``
    (see :func:`_outer_inner_cut`), element ``(r, c)`` of the outer and inner blocks."""
    if arg in printer.scalars or size_of(arg) == 1:
        return printer.at(arg, "0", lane)
    if arg.shape == node.shape:
        return printer.at(arg, "i", lane)
    if cut is not None:
        return printer.at(arg, "c" if _reads_inner(arg.shape, node.shape, cut) else "r", lane)
    table = np.broadcast_to(np.arange(size_of(arg)).reshape(arg.shape), node.shape).ravel()
    return printer.at(arg, f"{printer.table(table)}[i]", lane)


def _outer_inner_cut(node: Node) -> int | None:
    """An axis splitting ``node``'s shape so that every argument is whole, one element, the
    outer axes (ones after) or the inner axes (ones before); None if there is none or no need."""
    shape = node.shape
    if all(a.shape == shape or size_of(a) == 1 for a in node.args):
        return None  # the flat loop already reads without tables
    for cut in range(1, len(shape)):
        if all(
            a.shape == shape
            or size_of(a) == 1
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
