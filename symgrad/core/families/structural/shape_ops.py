"""The structural ops that move or sum a tensor's elements without picking them: broadcast_to,
reduce_sum, reshape and transpose. Each op's shape rule, simplifications, transpose rule (reverse
mode), batched rule (a batch of tangents on a new leading axis, for the forward Laplacian), closed
form on object arrays, notation and row sit together; the frameworks' spellings of these rows are
the importers' (``symgrad.importers.aten_structural``, ``lax_structural``)."""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.families.structural.builders import (
    broadcast_to,
    lead_aligned,
    reshape,
    transpose,
    unbroadcast,
)
from symgrad.core.families.structural.linear import linear, show_with_shape
from symgrad.core.registry import REDUCTION, Api, make_node
from symgrad.errors import OpError

# ----- broadcast_to -----


def _infer_broadcast(args, params):
    (x,), (shape,) = args, params
    try:
        ok = tuple(np.broadcast_shapes(x.shape, shape)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise OpError(f"broadcast_to: cannot broadcast {x.shape} to {shape}")
    return shape, x.dtype


def _simplify_broadcast(args, params):
    (x,), (shape,) = args, params
    if x.shape == shape:
        return x
    if x.op == "broadcast_to":
        return broadcast_to(x.args[0], shape)
    return None


def _t_broadcast(node, ct):
    return (unbroadcast(ct, node.args[0].shape),)


def _b_broadcast(node, tangents):
    (g,), (shape,) = tangents, node.params
    return broadcast_to(lead_aligned(g, len(shape)), (g.shape[0], *shape))


linear(
    "broadcast_to", "BroadcastTo", 1, _infer_broadcast, _t_broadcast,
    lambda arrays, node: np.broadcast_to(arrays[0], node.shape),
    numpy="rt.broadcast_to({0}, {r0}, {p0})", mindspore="rt.broadcast_to({0}, {r0}, {p0})",
    simplify=_simplify_broadcast, notation=show_with_shape,
    batched=_b_broadcast,
    api=Api(("BroadcastTo",), ("broadcast_to",), generated=False),
)  # fmt: skip


# ----- reduce_sum -----


def _infer_reduce(args, params):
    (x,), (axes, keepdims) = args, params
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(x.shape)), x.dtype
    return tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype


def _simplify_reduce(args, params):
    (x,), (axes, _) = args, params
    return x if not axes else None


def _t_reduce(node, ct):
    x = node.args[0]
    axes, keepdims = node.params
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return (broadcast_to(reshape(ct, kept), x.shape),)


def _b_reduce(node, tangents):
    (g,), (axes, keepdims) = tangents, node.params
    return make_node("reduce_sum", (g,), (tuple(a + 1 for a in axes), keepdims))


def _sym_reduce(arrays, node):
    (x,) = arrays
    axes, keepdims = node.params
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(axes)] + (-1,))
    out = np.empty(flat.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sympy.Add(*flat[idx])
    return out.reshape(node.shape)


linear(
    "reduce_sum", "ReduceSum", 1, _infer_reduce, _t_reduce, _sym_reduce,
    numpy="rt.reduce_sum({0}, {r0}, {p0}, {p1})",
    mindspore="rt.reduce_sum({0}, {r0}, {p0}, {p1})", simplify=_simplify_reduce, pattern=REDUCTION,
    notation=lambda node, args: f"Σ_{list(node.params[0])} {args[0]}",
    batched=_b_reduce,
    api=Api(("ReduceSum",), ("reduce_sum", "sum"), generated=False),
)  # fmt: skip


# ----- reshape -----


def _simplify_reshape(args, params):
    (x,), (shape,) = args, params
    if x.shape == shape:
        return x
    if x.op == "reshape":
        return reshape(x.args[0], shape)
    return None


def _t_reshape(node, ct):
    return (reshape(ct, node.args[0].shape),)


def _b_reshape(node, tangents):
    (g,) = tangents
    return reshape(g, (g.shape[0], *node.shape))


linear(
    "reshape", "Reshape", 1,
    lambda args, params: (params[0], args[0].dtype), _t_reshape,
    lambda arrays, node: arrays[0].reshape(node.shape),
    numpy="rt.reshape({0}, {r0}, {p0})", mindspore="rt.reshape({0}, {r0}, {p0})",
    simplify=_simplify_reshape, keeps_order=True, notation=show_with_shape,
    batched=_b_reshape,
    api=Api(("Reshape",), ("reshape",), generated=False),
)  # fmt: skip


# ----- transpose -----


def _infer_transpose(args, params):
    (x,), (perm,) = args, params
    if sorted(perm) != list(range(x.ndim)):
        raise OpError(f"Transpose: perm {perm} is not a permutation of the {x.ndim} axes of {x.shape}")
    return tuple(x.shape[p] for p in perm), x.dtype


def _simplify_transpose(args, params):
    (x,), (perm,) = args, params
    return x if perm == tuple(range(x.ndim)) else None


def _t_transpose(node, ct):
    return (transpose(ct, tuple(np.argsort(node.params[0]).tolist())),)


def _b_transpose(node, tangents):
    (g,) = tangents
    return transpose(g, (0, *(p + 1 for p in node.params[0])))


linear(
    "transpose", "Transpose", 1, _infer_transpose, _t_transpose,
    lambda arrays, node: np.transpose(arrays[0], node.params[0]),
    numpy="rt.transpose({0}, {p0})", mindspore="rt.transpose({0}, {p0})",
    simplify=_simplify_transpose, notation=lambda node, args: f"{args[0]}ᵀ{list(node.params[0])}",
    batched=_b_transpose,
    api=Api(("Transpose",), ("transpose",), generated=False),
)  # fmt: skip
