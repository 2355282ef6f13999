"""MatMul: a bilinear op with hand-written forward and reverse rules.

Operands have rank 1 or 2 (MindSpore's ``MatMul`` takes matrices; vectors are
accepted as in ``ops.matmul``). ``transpose_a``/``transpose_b`` apply to matrices.
"""

from __future__ import annotations

import math

import numpy as np
import sympy

from symgrad.core.families.structural import concatenate, getitem, normalize_index, reshape, stack, transpose
from symgrad.core.graph import Const, Node
from symgrad.core.registry import (
    CONTRACTION,
    CUSTOM,
    Api,
    OpDef,
    apply,
    aten,
    lax,
    make_node,
    promote,
    register,
)
from symgrad.errors import OpError


def matmul(a: Node, b: Node, transpose_a: bool = False, transpose_b: bool = False) -> Node:
    return make_node("matmul", (a, b), (bool(transpose_a), bool(transpose_b)))


def _effective(shape, transposed):
    return shape[::-1] if transposed and len(shape) == 2 else shape


def _infer(args, params):
    a, b = args
    ta, tb = params
    for name, x in (("x", a), ("y", b)):
        if x.ndim not in (1, 2):
            raise OpError(f"MatMul: {name} must have rank 1 or 2, got shape {x.shape}")
    ea, eb = _effective(a.shape, ta), _effective(b.shape, tb)
    k_a, k_b = ea[-1], eb[0]
    if k_a != k_b:
        raise OpError(
            f"MatMul: x {a.shape} and y {b.shape} are not aligned: {k_a} != {k_b} "
            f"(transpose_a={ta}, transpose_b={tb})"
        )
    return ea[:-1] + eb[1:], promote(args, False)


def _jvp(node, tangents):
    (a, b), (ta, tb) = node.args, node.params
    da, db = tangents
    terms = []
    if da is not None:
        terms.append(matmul(da, b, ta, tb))
    if db is not None:
        terms.append(matmul(a, db, ta, tb))
    return terms[0] if len(terms) == 1 else make_node("add", tuple(terms))


def _batched(node, tangents):
    """The jvp of a batch of tangents (leading axis) where one matmul does it, else None."""
    (a, b), (ta, tb) = node.args, node.params
    da, db = tangents
    terms = []
    if da is not None:
        if a.ndim != 1:
            return None
        terms.append(matmul(da, b, False, tb))  # rows of da are vectors a: (d, k) @ op(b)
    if db is not None:
        if b.ndim != 1:
            return None
        terms.append(
            matmul(db, a, False, not ta) if a.ndim == 2 else matmul(db, a)
        )  # op(a) @ v = v @ op(a)^T
    return terms[0] if len(terms) == 1 else make_node("add", tuple(terms))


def _is_identity(x: Node) -> bool:
    return (
        isinstance(x, Const)
        and x.ndim == 2
        and x.shape[0] == x.shape[1]
        and np.array_equal(x.value, np.eye(x.shape[0]))
    )


def _simplify(args, params):
    """``I @ b = b`` and ``a @ I = a`` (the directions of a Laplacian's inputs are an identity)."""
    (a, b), (ta, tb) = args, params
    if _is_identity(a) and b.dtype == promote(args, False):
        return transpose(b, (1, 0)) if tb and b.ndim == 2 else b
    if _is_identity(b) and a.dtype == promote(args, False):
        return transpose(a, (1, 0)) if ta and a.ndim == 2 else a
    return None


def _as_matrix(x: Node, is_left: bool) -> Node:
    if x.ndim == 2:
        return x
    return reshape(x, (1, x.shape[0]) if is_left else (x.shape[0], 1))


def _vjp(node, ct):
    """C = op(A) @ op(B); cotangents of A and B with the transposes folded in."""
    (a, b), (ta, tb) = node.args, node.params
    ta, tb = ta and a.ndim == 2, tb and b.ndim == 2
    a2, b2 = _as_matrix(a, True), _as_matrix(b, False)
    c2 = reshape(ct, (a2.shape[1] if ta else a2.shape[0], b2.shape[0] if tb else b2.shape[1]))
    if ta:
        da = matmul(b2, c2, tb, True)
    else:
        da = matmul(c2, b2, False, not tb)
    if tb:
        db = matmul(c2, a2, True, ta)
    else:
        db = matmul(a2, c2, not ta, False)
    return reshape(da, a.shape), reshape(db, b.shape)


def _sympy(arrays, node):
    a, b = arrays
    ta, tb = node.params
    a2 = a.reshape(1, -1) if a.ndim == 1 else (a.T if ta else a)
    b2 = b.reshape(-1, 1) if b.ndim == 1 else (b.T if tb else b)
    out = np.empty((a2.shape[0], b2.shape[1]), dtype=object)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = sympy.Add(*(a2[i, k] * b2[k, j] for k in range(a2.shape[1])))
    return out.reshape(node.shape)


def _aten_addmm(bias: Node, a: Node, b: Node, beta=1, alpha=1) -> Node:
    """aten.addmm: beta * bias + alpha * (a @ b)."""
    product = matmul(a, b) if alpha == 1 else apply("mul", alpha, matmul(a, b))
    return apply("add", bias if beta == 1 else apply("mul", beta, bias), product)


def _aten_bmm(a: Node, b: Node) -> Node:
    """aten.bmm: one product for each item of the leading (batch) axis, stacked."""
    return stack([matmul(getitem(a, i), getitem(b, i)) for i in range(a.shape[0])], 0)


def _lax_dot_general(a: Node, b: Node, dimension_numbers) -> Node:
    """lax.dot_general: batch axes first, then a's free axes, then b's; contracted axes summed.

    Each batch item is a matrix product of ``a`` with its free axes in front and its contracted
    ones behind, reshaped to two axes, and ``b`` the other way round."""
    (a_sum, b_sum), (a_batch, b_batch) = dimension_numbers
    a_free = [i for i in range(a.ndim) if i not in a_sum and i not in a_batch]
    b_free = [i for i in range(b.ndim) if i not in b_sum and i not in b_batch]
    a = transpose(a, (*a_batch, *a_free, *a_sum))
    b = transpose(b, (*b_batch, *b_sum, *b_free))
    batch = a.shape[: len(a_batch)]
    free_a, free_b = a.shape[len(a_batch) : len(a_batch) + len(a_free)], b.shape[len(b_batch) + len(b_sum) :]
    inner = math.prod(a.shape[len(a_batch) + len(a_free) :])
    products = []
    for index in np.ndindex(*batch):
        left = reshape(getitem(a, index) if index else a, (math.prod(free_a), inner))
        right = reshape(getitem(b, index) if index else b, (inner, math.prod(free_b)))
        products.append(reshape(matmul(left, right), free_a + free_b))
    if not batch:
        return products[0]
    return reshape(stack(products, 0), batch + free_a + free_b)


def conv2d(x: Node, w: Node, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups: int = 1) -> Node:
    """A 2-D convolution (cross-correlation, NCHW): ``x`` (N, C, H, W), ``w`` (O, C / groups, kh, kw).

    ``padding`` is (top, bottom, left, right) zeros. Written with table ops, as one matrix product
    per kernel tap: w[:, :, i, j] (O, C) times the (C, N * Ho * Wo) window of ``x`` it meets,
    summed over taps, so its derivatives (a transposed convolution for x, a correlation of x
    with the output's cotangent for w) and every backend come from those ops.
    """
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(
            f"Conv2D: x and weight must have rank 4 (NCHW, OIHW), got shapes {x.shape} and {w.shape}"
        )
    (n, c, height, width), (o, cg, kh, kw) = x.shape, w.shape
    if c != cg * groups or o % groups:
        raise OpError(
            f"Conv2D: x has {c} channels and weight {w.shape}: in channels must be weight.shape[1] * groups "
            f"({cg} * {groups}) and out channels a multiple of groups"
        )
    top, bottom, left, right = padding
    if any(padding):
        height, width = height + top + bottom, width + left + right
        index = (slice(None), slice(None), slice(top, top + x.shape[2]), slice(left, left + x.shape[3]))
        shape = (n, c, height, width)
        x = make_node("scatter", (x,), (normalize_index(shape, index), shape))
    (sh, sw), (dh, dw) = stride, dilation
    out_h, out_w = (height - dh * (kh - 1) - 1) // sh + 1, (width - dw * (kw - 1) - 1) // sw + 1
    if out_h < 1 or out_w < 1:
        raise OpError(
            f"Conv2D: a {kh}x{kw} kernel (dilation {dilation}) does not fit the padded input {height}x{width}"
        )
    og = o // groups
    per_group = []
    for g in range(groups):
        taps = []
        for i in range(kh):
            for j in range(kw):
                window = getitem(
                    x,
                    (slice(None), slice(g * cg, (g + 1) * cg),
                     slice(i * dh, i * dh + (out_h - 1) * sh + 1, sh), slice(j * dw, j * dw + (out_w - 1) * sw + 1, sw)),
                )  # fmt: skip
                columns = reshape(transpose(window, (1, 0, 2, 3)), (cg, n * out_h * out_w))
                taps.append(matmul(getitem(w, (slice(g * og, (g + 1) * og), slice(None), i, j)), columns))
        total = taps[0]
        for tap in taps[1:]:
            total = apply("add", total, tap)
        per_group.append(total)
    rows = per_group[0] if groups == 1 else concatenate(per_group, 0)
    return transpose(reshape(rows, (o, n, out_h, out_w)), (1, 0, 2, 3))


def conv_transpose2d(x: Node, w: Node, stride=(1, 1), padding=(0, 0), dilation=(1, 1), output_padding=(0, 0),
                     groups: int = 1) -> Node:  # fmt: skip
    """The transposed 2-D convolution (PyTorch's ``conv_transpose2d``; NCHW, ``w`` (C, O / groups, kh, kw)):
    each input pixel times each kernel tap, added at ``stride * pixel + dilation * tap``, then
    ``padding`` cropped from each side. One matrix product and one scatter per tap, so its derivatives
    (a convolution for x, a correlation for w) come from those ops."""
    if x.ndim != 4 or w.ndim != 4 or x.shape[1] != w.shape[0] or x.shape[1] % groups:
        raise OpError(
            f"ConvTranspose2D: x {x.shape} and weight {w.shape}: need NCHW and (C, O / groups, kh, kw) with C "
            f"= x.shape[1] divisible by groups = {groups}"
        )
    (n, c, height, width), (_, og, kh, kw) = x.shape, w.shape
    (sh, sw), (dh, dw), (ph, pw), (oh, ow) = stride, dilation, padding, output_padding
    full = (n, og, (height - 1) * sh + dh * (kh - 1) + 1 + oh, (width - 1) * sw + dw * (kw - 1) + 1 + ow)
    cg = c // groups
    per_group = []
    for g in range(groups):
        group = getitem(x, (slice(None), slice(g * cg, (g + 1) * cg)))
        columns = reshape(transpose(group, (1, 0, 2, 3)), (cg, n * height * width))
        total = None
        for i in range(kh):
            for j in range(kw):
                tap = transpose(getitem(w, (slice(g * cg, (g + 1) * cg), slice(None), i, j)), (1, 0))
                piece = transpose(reshape(matmul(tap, columns), (og, n, height, width)), (1, 0, 2, 3))
                at = (slice(None), slice(None), slice(i * dh, i * dh + (height - 1) * sh + 1, sh),
                      slice(j * dw, j * dw + (width - 1) * sw + 1, sw))  # fmt: skip
                placed = make_node("scatter", (piece,), (normalize_index(full, at), full))
                total = placed if total is None else apply("add", total, placed)
        assert total is not None  # a kernel has at least one tap
        per_group.append(total)
    out = per_group[0] if groups == 1 else concatenate(per_group, 1)
    out_h, out_w = full[2] - 2 * ph, full[3] - 2 * pw
    if out_h < 1 or out_w < 1:
        raise OpError(
            f"ConvTranspose2D: padding {padding} leaves no output of the {full[2]}x{full[3]} result"
        )
    return getitem(out, (slice(None), slice(None), slice(ph, ph + out_h), slice(pw, pw + out_w)))


def _aten_convolution(x, w, bias, stride, padding, dilation, transposed, output_padding, groups) -> Node:
    """aten.convolution, 2-D: conv2d with PyTorch's symmetric padding (or its transpose), plus bias."""
    if x.ndim != 4:
        raise OpError(f"aten.convolution: only 2-D convolutions (NCHW input) have a row; input {x.shape}")
    if transposed:
        out = conv_transpose2d(
            x, w, tuple(stride), tuple(padding), tuple(dilation), tuple(output_padding), groups
        )
    else:
        out = conv2d(
            x, w, tuple(stride), (padding[0], padding[0], padding[1], padding[1]), tuple(dilation), groups
        )
    return out if bias is None else apply("add", out, reshape(bias, (1, -1, 1, 1)))


register(
    OpDef(
        name="matmul",
        display="MatMul",
        kind=CUSTOM,
        arity=2,
        infer=_infer,
        sympy=_sympy,
        jvp=_jvp,
        vjp=_vjp,
        batched=_batched,
        simplify=_simplify,
        pattern=CONTRACTION,
        spellings={
            "numpy": "rt.matmul({0}, {1}, {r0}, {r1}, {p0}, {p1})",
            "mindspore": "rt.matmul({0}, {1}, {r0}, {r1}, {p0}, {p1})",
        },
        notation=lambda node, args: (
            f"{args[0]}{'ᵀ' if node.params[0] else ''} @ {args[1]}{'ᵀ' if node.params[1] else ''}"
        ),
        api=Api(("MatMul",), ("matmul",), ("__matmul__",), ("__rmatmul__",), generated=False),
        imports=(
            aten("mm", matmul),
            aten("mv", matmul),
            aten("dot", matmul),
            aten("addmm", _aten_addmm),
            aten("bmm", _aten_bmm),
            aten("convolution", _aten_convolution),
            lax("dot_general", _lax_dot_general),
        ),
    )
)
