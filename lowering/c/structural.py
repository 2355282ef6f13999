"""Structural nodes in the per-point C program: sums over axes (REDUCTION) and ops that pick
elements (GATHER: reshape, transpose, getitem, scatter, stack, broadcast).

Both go through index tables computed here, a GATHER's by running the op's own NumPy lowering
on arrays of indices, so no structural op needs a C spelling of its own. A reshape (the same
elements in the same order) prints nothing: it is another name for its argument.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from lowering.c.point_program import size_of
from lowering.printer import fill_template
from lowering.runtime import ArrayRuntime
from symgrad.core.graph import Node

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter

_INDEX_RUNTIME = {"np": np, "xp": np, "rt": ArrayRuntime(np)}


def emit_reduce(printer: PointPrinter, node: Node, name: str) -> None:
    """A sum over ``axes`` (params ``(axes, keepdims)``)."""
    printer.flush()
    (x,), (axes, _keepdims) = node.args, node.params
    size_in, size = size_of(x), size_of(node)
    lead, width = math.prod(x.shape[: len(axes)]), printer.width
    zero = f"{printer.array(name, size)} for (int i = 0; i < {size * width}; i++) {name}[i] = 0;"
    if tuple(axes) == tuple(range(len(axes))):  # leading axes: add whole rows, no index table
        row = size * width  # lanes keep their order within a row
        printer.body.append(
            f"{zero} for (int r = 0; r < {lead}; r++) for (int i = 0; i < {row}; i++) "
            f"{name}[i] += {printer.at(x, f'r * {row} + i')};"
        )
        return
    coords = np.indices(x.shape).reshape(x.ndim, -1)
    kept = [d for d in range(x.ndim) if d not in axes]
    target = (
        np.ravel_multi_index(coords[kept], tuple(x.shape[d] for d in kept))
        if kept
        else np.zeros(coords.shape[1], dtype=np.int64)
    )
    add = f"{printer.element(name, f'{printer.table(target)}[i]')} += {printer.at(x, 'i', printer.lane)};"
    printer.body.append(f"{zero} for (int i = 0; i < {size_in}; i++) {printer.per_lane(add)}")


def emit_gather(printer: PointPrinter, node: Node, name: str) -> None:
    """A linear op that picks elements: copies through tables, or another name (a reshape)."""
    sources = _gather_sources(node)  # per output element: global index + 1, or 0 for zero
    offsets = np.cumsum([0] + [size_of(a) for a in node.args])
    size, lane = size_of(node), printer.lane
    if len(node.args) == 1 and np.array_equal(sources, np.arange(1, size + 1)):
        # the same elements in the same order (a reshape): another name for the argument
        printer.another_name(node, printer.alias_of.get(node.args[0], node.args[0]))
        arg = printer.alias_of[node]
        if arg in printer.scalars:
            printer.scalars[node] = printer.scalars[arg]
        return
    printer.flush()
    parts = [printer.array(name, size)]
    if (sources == 0).any():
        parts.append(f"for (int i = 0; i < {size * printer.width}; i++) {name}[i] = 0;")
    for k, arg in enumerate(node.args):
        mine = (sources > offsets[k]) & (sources <= offsets[k + 1])
        where = np.flatnonzero(mine)
        if where.size == 0:
            continue
        local = sources[where] - 1 - offsets[k]
        if where.size == size:
            copy = f"{printer.element(name, 'i')} = {printer.at(arg, f'{printer.table(local)}[i]', lane)};"
            parts.append(f"for (int i = 0; i < {size}; i++) {printer.per_lane(copy)}")
        else:
            out_t, in_t = printer.table(where), printer.table(local)
            copy = f"{printer.element(name, f'{out_t}[i]')} = {printer.at(arg, f'{in_t}[i]', lane)};"
            parts.append(f"for (int i = 0; i < {where.size}; i++) {printer.per_lane(copy)}")
    printer.body.append(" ".join(parts))


def _gather_sources(node: Node) -> np.ndarray:
    """Run the op's NumPy lowering on index arrays: which argument element each output element is."""
    offsets = np.cumsum([0] + [size_of(a) for a in node.args])
    env = dict(_INDEX_RUNTIME)
    names = []
    for k, arg in enumerate(node.args):
        names.append(f"i{k}")
        env[f"i{k}"] = (np.arange(size_of(arg), dtype=np.int64) + offsets[k] + 1).reshape(arg.shape)
    code = fill_template(node, names, ("numpy",))
    result = np.asarray(eval(code, env))  # noqa: S307 - our own op table's template
    return np.broadcast_to(result, node.shape).ravel().astype(np.int64)
