"""Structural ops: broadcast_to, reduce_sum, reshape, transpose, getitem, scatter, stack.

All are linear, so their forward derivative is the op applied to the tangents and
their reverse derivative is a transpose rule. Backend templates receive the
argument code ``{0}``, params ``{p0}, {p1}``, argument ranks ``{r0}`` and the
output rank ``{rank}``: kernels index from the trailing axes so that any leading
batch axes pass through untouched.
"""

from __future__ import annotations

import math

import numpy as np
import sympy

from symgrad.core.graph import Const, Node, const
from symgrad.core.registry import GATHER, LINEAR, REDUCTION, Api, OpDef, make_node, register
from symgrad.errors import OpError

# ----- builders used by rules and front ends -----


def broadcast_to(x: Node, shape) -> Node:
    return make_node("broadcast_to", (x,), (tuple(shape),))


def reduce_sum(x: Node, axes=None, keepdims: bool = False) -> Node:
    return make_node("reduce_sum", (x,), (normalize_axes("ReduceSum", axes, x.ndim), keepdims))


def reshape(x: Node, shape) -> Node:
    return make_node("reshape", (x,), (resolve_shape(x.shape, shape),))


def transpose(x: Node, perm=None) -> Node:
    perm = tuple(reversed(range(x.ndim))) if perm is None else tuple(perm)
    return make_node("transpose", (x,), (perm,))


def getitem(x: Node, index) -> Node:
    return make_node("getitem", (x,), (normalize_index(x.shape, index),))


def stack(xs, axis: int = 0) -> Node:
    xs = tuple(xs)
    if xs and -xs[0].ndim - 1 <= axis < 0:  # stored non-negative: kernels and rules add batch axes in front
        axis += xs[0].ndim + 1
    return make_node("stack", xs, (axis,))


def full(shape, value, dtype) -> Node:
    """A constant of ``shape`` filled with ``value`` in ``dtype``."""
    return broadcast_to(const(np.asarray(value, dtype=dtype)), tuple(shape))


def zeros_like(x: Node) -> Node:
    return full(x.shape, 0, x.dtype or np.float64)


def unbroadcast(x: Node, shape) -> Node:
    """Sum ``x`` down to ``shape`` (the transpose of broadcasting)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and x.shape[lead + i] != 1
    )
    return reshape(reduce_sum(x, axes), shape)


# ----- argument normalisation -----


def normalize_axes(display: str, axes, ndim: int) -> tuple[int, ...]:
    """Axes as sorted non-negative ints; None or () means all axes (MindSpore)."""
    if axes is None or axes == ():
        return tuple(range(ndim))
    if isinstance(axes, int):
        axes = (axes,)
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise OpError(f"{display}: axis {ax} is out of range for a tensor of rank {ndim}")
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise OpError(f"{display}: repeated axis in {tuple(axes)}")
    return tuple(sorted(out))


def resolve_shape(old, new) -> tuple[int, ...]:
    """A target shape with one ``-1`` resolved; the element count must match."""
    new = (new,) if isinstance(new, int) else tuple(int(d) for d in new)
    size = math.prod(old)
    if new.count(-1) > 1:
        raise OpError(f"Reshape: at most one -1 is allowed in the shape {new}")
    if -1 in new:
        known = math.prod(d for d in new if d != -1)
        if known == 0 or size % known:
            raise OpError(f"Reshape: cannot reshape {tuple(old)} into {new}")
        new = tuple(size // known if d == -1 else d for d in new)
    if math.prod(new) != size:
        raise OpError(f"Reshape: cannot reshape {tuple(old)} ({size} elements) into {new}")
    return new


def normalize_index(shape, index) -> tuple:
    """Basic indexing as a full-length tuple of ints and (start, stop, step) triples."""
    if not isinstance(index, tuple):
        index = (index,)
    if len(index) > len(shape):
        raise OpError(f"getitem: too many indices {index} for a tensor of shape {tuple(shape)}")
    out = []
    for item, dim in zip(index, shape):
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer, slice)):
            raise OpError(
                f"getitem: index {item!r} is not supported (use ints and slices) "
                f"for a tensor of shape {tuple(shape)}"
            )
        if isinstance(item, slice):
            out.append(item.indices(dim))
        elif not -dim <= item < dim:
            raise OpError(f"getitem: index {item} is out of range for an axis of size {dim}")
        else:
            out.append(int(item) % dim)
    out.extend((0, d, 1) for d in shape[len(out) :])
    return tuple(out)


def index_to_python(index: tuple) -> tuple:
    """The normalized index as Python ints and slices.

    ``slice.indices`` gives stop -1 for a reversed slice that runs past the start;
    as a slice bound -1 would mean the last element, so it becomes None.
    """
    return tuple(slice(i[0], None if i[1] < 0 else i[1], i[2]) if isinstance(i, tuple) else i for i in index)


def _indexed_shape(shape, index) -> tuple[int, ...]:
    return tuple(len(range(*i)) for i in index if isinstance(i, tuple))


# ----- shape inference -----


def _infer_broadcast(args, params):
    (x,), (shape,) = args, params
    try:
        ok = tuple(np.broadcast_shapes(x.shape, shape)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise OpError(f"broadcast_to: cannot broadcast {x.shape} to {shape}")
    return shape, x.dtype


def _infer_reduce(args, params):
    (x,), (axes, keepdims) = args, params
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(x.shape)), x.dtype
    return tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype


def _infer_transpose(args, params):
    (x,), (perm,) = args, params
    if sorted(perm) != list(range(x.ndim)):
        raise OpError(f"Transpose: perm {perm} is not a permutation of the {x.ndim} axes of {x.shape}")
    return tuple(x.shape[p] for p in perm), x.dtype


def _infer_scatter(args, params):
    (x,), (index, shape) = args, params
    if _indexed_shape(shape, index) != x.shape:
        raise OpError(f"scatter: update of shape {x.shape} does not fit index {index} of {shape}")
    return shape, x.dtype


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


# ----- simplifications -----


def _simplify_reshape(args, params):
    (x,), (shape,) = args, params
    if x.shape == shape:
        return x
    if x.op == "reshape":
        return reshape(x.args[0], shape)
    return None


def _simplify_transpose(args, params):
    (x,), (perm,) = args, params
    return x if perm == tuple(range(x.ndim)) else None


def _simplify_broadcast(args, params):
    (x,), (shape,) = args, params
    if x.shape == shape:
        return x
    if x.op == "broadcast_to":
        return broadcast_to(x.args[0], shape)
    return None


def _simplify_reduce(args, params):
    (x,), (axes, _) = args, params
    return x if not axes else None


def _simplify_getitem(args, params):
    (x,), (index,) = args, params
    full = all(isinstance(i, tuple) and i == (0, d, 1) for i, d in zip(index, x.shape))
    return x if full else None


# ----- transpose rules (reverse mode) -----


def _t_broadcast(node, ct):
    return (unbroadcast(ct, node.args[0].shape),)


def _t_reduce(node, ct):
    x = node.args[0]
    axes, keepdims = node.params
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return (broadcast_to(reshape(ct, kept), x.shape),)


def _t_reshape(node, ct):
    return (reshape(ct, node.args[0].shape),)


def _t_transpose(node, ct):
    return (transpose(ct, tuple(np.argsort(node.params[0]).tolist())),)


def _t_getitem(node, ct):
    return (make_node("scatter", (ct,), (node.params[0], node.args[0].shape)),)


def _t_scatter(node, ct):
    return (make_node("getitem", (ct,), (node.params[0],)),)


def _t_stack(node, ct):
    axis = node.params[0] % node.ndim
    picks = []
    for k in range(len(node.args)):
        index: list[slice | int] = [slice(None)] * node.ndim
        index[axis] = k
        picks.append(getitem(ct, tuple(index)))
    return tuple(picks)


# ----- batched rules (a batch of tangents on a new leading axis; forward Laplacian) -----


def lead_aligned(g: Node, rank: int) -> Node:
    """``g`` (a batch on its leading axis) with ones inserted after that axis, so that each item
    broadcasts against a rank-``rank`` value as NumPy would."""
    missing = rank - (g.ndim - 1)
    return g if missing <= 0 else reshape(g, (g.shape[0],) + (1,) * missing + g.shape[1:])


def _b_broadcast(node, tangents):
    (g,), (shape,) = tangents, node.params
    return broadcast_to(lead_aligned(g, len(shape)), (g.shape[0], *shape))


def _b_reduce(node, tangents):
    (g,), (axes, keepdims) = tangents, node.params
    return make_node("reduce_sum", (g,), (tuple(a + 1 for a in axes), keepdims))


def _b_reshape(node, tangents):
    (g,) = tangents
    return reshape(g, (g.shape[0], *node.shape))


def _b_transpose(node, tangents):
    (g,) = tangents
    return transpose(g, (0, *(p + 1 for p in node.params[0])))


def _b_getitem(node, tangents):
    (g,) = tangents
    return make_node("getitem", (g,), (((0, g.shape[0], 1), *node.params[0]),))


def _b_scatter(node, tangents):
    (g,), (index, shape) = tangents, node.params
    return make_node("scatter", (g,), (((0, g.shape[0], 1), *index), (g.shape[0], *shape)))


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


# ----- closed forms on object arrays -----


def _sym_reduce(arrays, node):
    (x,) = arrays
    axes, keepdims = node.params
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(axes)] + (-1,))
    out = np.empty(flat.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sympy.Add(*flat[idx])
    return out.reshape(node.shape)


def _sym_scatter(arrays, node):
    index, shape = node.params
    out = np.full(shape, sympy.Integer(0), dtype=object)
    update = arrays[0]
    # a 0-d object array assigned to one element would be stored as the array itself
    out[index_to_python(index)] = update[()] if update.ndim == 0 else update
    return out


# ----- how explanations write them -----


def _show_index(node, args):
    index = ", ".join(
        str(i) if not isinstance(i, tuple) else ":" if i[2] == 1 else f"::{i[2]}" for i in node.params[0]
    )
    return f"{args[0]}[{index}]"


def _show_with_shape(node, args):
    return f"{node.op}({args[0]}, {node.shape})"


def _linear(name, display, arity, infer, transpose_rule, sympy_fn, numpy, mindspore, **traits):
    """A linear op: no C spelling (the C printer lowers it by its pattern, GATHER by default)."""
    register(
        OpDef(
            name=name,
            display=display,
            kind=LINEAR,
            arity=arity,
            infer=infer,
            sympy=sympy_fn,
            transpose=transpose_rule,
            spellings={"numpy": numpy, "mindspore": mindspore},
            pattern=traits.pop("pattern", GATHER),
            **traits,
        )
    )


_linear(
    "broadcast_to", "BroadcastTo", 1, _infer_broadcast, _t_broadcast,
    lambda arrays, node: np.broadcast_to(arrays[0], node.shape),
    numpy="rt.broadcast_to({0}, {r0}, {p0})", mindspore="rt.broadcast_to({0}, {r0}, {p0})",
    simplify=_simplify_broadcast, notation=_show_with_shape,
    batched=_b_broadcast,
    api=Api(("BroadcastTo",), ("broadcast_to",), generated=False),
)  # fmt: skip
_linear(
    "reduce_sum", "ReduceSum", 1, _infer_reduce, _t_reduce, _sym_reduce,
    numpy="rt.reduce_sum({0}, {r0}, {p0}, {p1})",
    mindspore="rt.reduce_sum({0}, {r0}, {p0}, {p1})", simplify=_simplify_reduce, pattern=REDUCTION,
    notation=lambda node, args: f"Σ_{list(node.params[0])} {args[0]}",
    batched=_b_reduce,
    api=Api(("ReduceSum",), ("reduce_sum", "sum"), generated=False),
)  # fmt: skip
_linear(
    "reshape", "Reshape", 1,
    lambda args, params: (params[0], args[0].dtype), _t_reshape,
    lambda arrays, node: arrays[0].reshape(node.shape),
    numpy="rt.reshape({0}, {r0}, {p0})", mindspore="rt.reshape({0}, {r0}, {p0})",
    simplify=_simplify_reshape, keeps_order=True, notation=_show_with_shape,
    batched=_b_reshape,
    api=Api(("Reshape",), ("reshape",), generated=False),
)  # fmt: skip
_linear(
    "transpose", "Transpose", 1, _infer_transpose, _t_transpose,
    lambda arrays, node: np.transpose(arrays[0], node.params[0]),
    numpy="rt.transpose({0}, {p0})", mindspore="rt.transpose({0}, {p0})",
    simplify=_simplify_transpose, notation=lambda node, args: f"{args[0]}ᵀ{list(node.params[0])}",
    batched=_b_transpose,
    api=Api(("Transpose",), ("transpose",), generated=False),
)  # fmt: skip
_linear(
    "getitem", "getitem", 1,
    lambda args, params: (_indexed_shape(args[0].shape, params[0]), args[0].dtype),
    _t_getitem, lambda arrays, node: arrays[0][index_to_python(node.params[0])],
    batched=_b_getitem,
    numpy="rt.getitem({0}, {p0})", mindspore="rt.getitem({0}, {p0})",
    simplify=_simplify_getitem, notation=_show_index, api=Api(operators=("__getitem__",), generated=False),
)  # fmt: skip
_linear(
    "scatter", "scatter", 1, _infer_scatter, _t_scatter, _sym_scatter,
    numpy="rt.scatter({0}, {r0}, {p0}, {p1})", mindspore="rt.scatter({0}, {r0}, {p0}, {p1})",
    batched=_b_scatter,
    api=Api(internal="the transpose of indexing, in reverse-mode derivatives"),
)  # fmt: skip
_linear(
    "stack", "Stack", None, _infer_stack, _t_stack,
    lambda arrays, node: np.stack(np.broadcast_arrays(*arrays), axis=node.params[0]),
    numpy="rt.stack([{args}], {p0}, {rank})", mindspore="rt.stack([{args}], {p0}, {rank})",
    batched=_b_stack,
    api=Api(("Stack",), ("stack",), generated=False),
)  # fmt: skip
