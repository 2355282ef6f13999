"""PyTorch's spellings of the matmul row: ``mm``, ``mv``, ``dot``, ``addmm`` (beta and alpha),
``bmm`` (one product per batch item), ``convolution`` (PyTorch's symmetric padding, transposed or
not, and a bias; the products are ``linalg.convolution``'s) and ``scaled_dot_product_attention``.
``ATEN`` maps the row to them; ``importers.common`` puts them on it (``OpDef.imports``)."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.linalg import convolution, convolution_transpose, matmul
from symgrad.core.families.structural import (
    broadcast_to,
    fold,
    getitem,
    per_axis,
    reduce_sum,
    reshape,
    stack,
    transpose,
)
from symgrad.core.graph import Node, const
from symgrad.core.registry import Imported, apply, aten
from symgrad.errors import OpError
from symgrad.importers.lax_rows import _lax_dot_general

ATEN: dict[str, tuple[Imported, ...]] = {}  # the matmul row's ATen spellings


def _aten_addmm(bias: Node, a: Node, b: Node, beta=1, alpha=1) -> Node:
    """aten.addmm: beta * bias + alpha * (a @ b)."""
    product = matmul(a, b) if alpha == 1 else apply("mul", alpha, matmul(a, b))
    return apply("add", bias if beta == 1 else apply("mul", beta, bias), product)


def _aten_bmm(a: Node, b: Node) -> Node:
    """aten.bmm: one product for each item of the leading (batch) axis, stacked."""
    return stack([matmul(getitem(a, i), getitem(b, i)) for i in range(a.shape[0])], 0)


def _aten_convolution(x, w, bias, stride, padding, dilation, transposed, output_padding, groups) -> Node:
    """aten.convolution, 1-D, 2-D or 3-D (or more): with PyTorch's symmetric padding, or transposed; plus bias."""
    dims = x.ndim - 2
    if dims < 1 or w.ndim != x.ndim:
        raise OpError(
            f"aten.convolution: input {x.shape} and weight {w.shape} need a batch and a channel axis"
        )
    stride, padding, dilation = per_axis(stride, dims), per_axis(padding, dims), per_axis(dilation, dims)
    if transposed:
        out = convolution_transpose(
            x, w, stride, padding, dilation, per_axis(output_padding, dims), groups, f"ConvTranspose{dims}D"
        )
    else:
        out = convolution(x, w, stride, [(p, p) for p in padding], dilation, groups, f"Conv{dims}D")
    return out if bias is None else apply("add", out, reshape(bias, (1, -1, *(1,) * dims)))


def _batched_product(a: Node, b: Node) -> Node:
    """a @ b over the last two axes, for each index of the leading (batch) axes, broadcast."""
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    a, b = (broadcast_to(t, batch + t.shape[-2:]) for t in (a, b))
    axes = tuple(range(len(batch)))
    return _lax_dot_general(a, b, (((a.ndim - 1,), (b.ndim - 2,)), (axes, axes)))


def _aten_scaled_dot_product_attention(q: Node, k: Node, v: Node, attn_mask=None, dropout_p: float = 0.0,
                                       is_causal: bool = False, scale=None, enable_gqa: bool = False) -> Node:  # fmt: skip
    """aten.scaled_dot_product_attention: softmax(q kᵀ scale + mask) v over the last two axes, scale
    1 / sqrt(q.shape[-1]) by default; a boolean mask (and ``is_causal``'s lower triangle) keeps the
    scores where it is True (elsewhere -inf). The softmax's shift by the row's largest score is
    held constant: it changes no value and no derivative."""
    if dropout_p:
        raise OpError(f"aten.scaled_dot_product_attention: dropout_p={dropout_p} (random) has no row; use 0")
    if enable_gqa and q.shape[-3] != k.shape[-3]:
        raise OpError("aten.scaled_dot_product_attention: grouped-query attention (enable_gqa) has no row")
    factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = apply(
        "mul", _batched_product(q, transpose(k, (*range(k.ndim - 2), k.ndim - 1, k.ndim - 2))), factor
    )
    masks = [const(np.tril(np.ones(scores.shape[-2:], bool)))] if is_causal else []
    if attn_mask is not None and attn_mask.dtype == np.dtype(bool):
        masks.append(attn_mask)
    elif attn_mask is not None:
        scores = apply("add", scores, attn_mask)
    for mask in masks:
        scores = apply("select", mask, scores, -math.inf)
    shift = apply("stop_gradient", fold(scores, (scores.ndim - 1,), True, "maximum"))
    exps = apply("exp", apply("sub", scores, shift))
    weights = apply("div", exps, reduce_sum(exps, (exps.ndim - 1,), True))
    return _batched_product(weights, v)


ATEN["matmul"] = (
    aten("mm", matmul),
    aten("mv", matmul),
    aten("dot", matmul),
    aten("addmm", _aten_addmm),
    aten("bmm", _aten_bmm),
    aten("convolution", _aten_convolution),
    aten("scaled_dot_product_attention", _aten_scaled_dot_product_attention),
)
