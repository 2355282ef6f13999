"""The structural ops that pick and place elements: getitem (basic indexing), scatter (its
transpose: an update placed into zeros) and stack. Each op's shape rule, simplifications, transpose
rule, batched rule, closed form, notation and row sit together; the frameworks' spellings of these
rows are the importers' (``symgrad.importers.aten_structural``, ``lax_structural``)."""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.families.structural.builders import (
    _indexed_shape,
    broadcast_to,
    getitem,
    index_to_python,
    lead_aligned,
    stack,
    zeros_like,
)
from symgrad.core.families.structural.linear import linear
from symgrad.core.graph import Const, Node, const
from symgrad.core.registry import Api, make_node
from symgrad.errors import OpError

# ----- getitem -----


def _simplify_getitem(args, params):
    (x,), (index,) = args, params
    full = all(isinstance(i, tuple) and i == (0, d, 1) for i, d in zip(index, x.shape))
    return x if full else None


def _t_getitem(node, ct):
    return (make_node("scatter", (ct,), (node.params[0], node.args[0].shape)),)


def _b_getitem(node, tangents):
    (g,) = tangents
    return make_node("getitem", (g,), (((0, g.shape[0], 1), *node.params[0]),))


def _show_index(node, args):
    index = ", ".join(
        str(i) if not isinstance(i, tuple) else ":" if i[2] == 1 else f"::{i[2]}" for i in node.params[0]
    )
    return f"{args[0]}[{index}]"


linear(
    "getitem", "getitem", 1,
    lambda args, params: (_indexed_shape(args[0].shape, params[0]), args[0].dtype),
    _t_getitem, lambda arrays, node: arrays[0][index_to_python(node.params[0])],
    batched=_b_getitem,
    numpy="rt.getitem({0}, {p0})", mindspore="rt.getitem({0}, {p0})",
    simplify=_simplify_getitem, notation=_show_index, api=Api(operators=("__getitem__",), generated=False),
)  # fmt: skip


# ----- scatter -----


def _infer_scatter(args, params):
    (x,), (index, shape) = args, params
    if _indexed_shape(shape, index) != x.shape:
        raise OpError(f"scatter: update of shape {x.shape} does not fit index {index} of {shape}")
    return shape, x.dtype


def _t_scatter(node, ct):
    return (make_node("getitem", (ct,), (node.params[0],)),)


def _b_scatter(node, tangents):
    (g,), (index, shape) = tangents, node.params
    return make_node("scatter", (g,), (((0, g.shape[0], 1), *index), (g.shape[0], *shape)))


def _sym_scatter(arrays, node):
    index, shape = node.params
    out = np.full(shape, sympy.Integer(0), dtype=object)
    update = arrays[0]
    # a 0-d object array assigned to one element would be stored as the array itself
    out[index_to_python(index)] = update[()] if update.ndim == 0 else update
    return out


linear(
    "scatter", "scatter", 1, _infer_scatter, _t_scatter, _sym_scatter,
    numpy="rt.scatter({0}, {r0}, {p0}, {p1})", mindspore="rt.scatter({0}, {r0}, {p0}, {p1})",
    batched=_b_scatter,
    api=Api(internal="the transpose of indexing, in reverse-mode derivatives"),
)  # fmt: skip


# ----- stack -----


def _infer_stack(args, params):
    (axis,) = params
    shapes = {a.shape for a in args}
    if not args or len(shapes) != 1:
        raise OpError(f"Stack: all tensors need the same shape, got {[a.shape for a in args]}")
    shape = args[0].shape
    if not -len(shape) - 1 <= axis <= len(shape):
        raise OpError(f"Stack: axis {axis} is out of range for rank {len(shape)}")
    axis %= len(shape) + 1
    dtypes = [a.dtype for a in args if a.dtype is not None]
    return shape[:axis] + (len(args),) + shape[axis:], np.result_type(*dtypes) if dtypes else None


def _t_stack(node, ct):
    axis = node.params[0] % node.ndim
    picks = []
    for k in range(len(node.args)):
        index: list[slice | int] = [slice(None)] * node.ndim
        index[axis] = k
        picks.append(getitem(ct, tuple(index)))
    return tuple(picks)


def _b_stack(node, tangents):
    d = next(g.shape[0] for g in tangents if g is not None)
    axis = node.params[0] % node.ndim
    item = node.shape[:axis] + node.shape[axis + 1 :]
    rows = [
        broadcast_to(zeros_like(a), (d, *item))
        if g is None
        else broadcast_to(lead_aligned(g, len(item)), (d, *item))
        for a, g in zip(node.args, tangents)
    ]
    values = [_constant(r) for r in rows]
    if all(v is not None for v in values):  # constant directions (input seeds) stay one constant
        return const(np.stack(values, axis + 1))
    return stack(rows, axis + 1)


def _constant(node: Node):
    """The array a constant (or a broadcast constant) holds, else None."""
    if node.op == "broadcast_to" and isinstance(node.args[0], Const):
        return np.broadcast_to(node.args[0].value, node.shape)
    return np.asarray(node.value) if isinstance(node, Const) else None


linear(
    "stack", "Stack", None, _infer_stack, _t_stack,
    lambda arrays, node: np.stack(np.broadcast_arrays(*arrays), axis=node.params[0]),
    numpy="rt.stack([{args}], {p0}, {rank})", mindspore="rt.stack([{args}], {p0}, {rank})",
    batched=_b_stack,
    api=Api(("Stack",), ("stack",), generated=False),
)  # fmt: skip
