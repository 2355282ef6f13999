"""MatMul: a bilinear op with hand-written forward and reverse rules.

Operands have rank 1 or 2 (MindSpore's ``MatMul`` takes matrices; vectors are
accepted as in ``ops.matmul``). ``transpose_a``/``transpose_b`` apply to matrices. N-d
convolutions and transposed convolutions are written with it (one product per kernel tap).
PyTorch's and JAX's products (``addmm``, ``bmm``, ``convolution``, ``dot_general``...), with their
argument conventions, are the importers' (``symgrad.importers.aten_matmul``, ``lax_rows``).
"""

from __future__ import annotations

import math

import numpy as np
import sympy

from symgrad.core.families.structural.builders import (
    concatenate,
    getitem,
    normalize_index,
    reshape,
    transpose,
)
from symgrad.core.families.structural.windows import padded, windows
from symgrad.core.graph import Const, Node
from symgrad.core.registry import (
    CONTRACTION,
    CUSTOM,
    Api,
    OpDef,
    apply,
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


def convolution(x: Node, w: Node, stride, padding, dilation, groups: int = 1, display: str = "Conv") -> Node:
    """An N-d convolution (cross-correlation, channels first): ``x`` (N, C, *spatial), ``w``
    (O, C / groups, *kernel); ``padding`` is one (before, after) pair of zeros per spatial axis.

    Written with table ops, as one matrix product per kernel tap: the tap of ``w`` (O, C) times the
    (C, N * outputs) window of ``x`` it meets, summed over taps, so its derivatives (a transposed
    convolution for x, a correlation of x with the output's cotangent for w) and every backend
    come from those ops.
    """
    (n, c, *_), (o, cg, *kernel) = x.shape, w.shape
    if c != cg * groups or o % groups:
        raise OpError(
            f"{display}: x has {c} channels and weight {w.shape}: in channels must be weight.shape[1] * groups "
            f"({cg} * {groups}) and out channels a multiple of groups"
        )
    x = padded(x, [(0, 0), (0, 0), *padding])
    sizes = x.shape[2:]
    out = tuple((m - d * (k - 1) - 1) // s + 1 for m, k, s, d in zip(sizes, kernel, stride, dilation))
    if min(out) < 1:
        raise OpError(
            f"{display}: a {'x'.join(map(str, kernel))} kernel (dilation {tuple(dilation)}) does not fit the "
            f"padded input {'x'.join(map(str, sizes))}"
        )
    og, axes = o // groups, tuple(range(2, 2 + len(out)))
    per_group: list[Node | None] = [None] * groups
    for tap, window in windows(x, kernel, stride, dilation, out):
        for g in range(groups):
            group = getitem(window, (slice(None), slice(g * cg, (g + 1) * cg)))
            columns = reshape(transpose(group, (1, 0, *axes)), (cg, n * math.prod(out)))
            term = matmul(getitem(w, (slice(g * og, (g + 1) * og), slice(None), *tap)), columns)
            total = per_group[g]
            per_group[g] = term if total is None else apply("add", total, term)
    rows = [r for r in per_group if r is not None]  # every group has a term per tap
    return transpose(reshape(rows[0] if groups == 1 else concatenate(rows, 0), (o, n, *out)), (1, 0, *axes))


def conv2d(x: Node, w: Node, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups: int = 1) -> Node:
    """A 2-D convolution (NCHW, ``w`` OIHW) with ``padding`` (top, bottom, left, right) zeros."""
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(
            f"Conv2D: x and weight must have rank 4 (NCHW, OIHW), got shapes {x.shape} and {w.shape}"
        )
    top, bottom, left, right = padding
    return convolution(x, w, stride, ((top, bottom), (left, right)), dilation, groups, "Conv2D")


def convolution_transpose(x: Node, w: Node, stride, padding, dilation, output_padding, groups: int = 1,
                          display: str = "ConvTranspose") -> Node:  # fmt: skip
    """The transposed N-d convolution (PyTorch's ``conv_transpose``; ``x`` (N, C, *spatial), ``w``
    (C, O / groups, *kernel)): each input element times each kernel tap, added at ``stride * position
    + dilation * tap``, then ``padding`` cropped from each side. One matrix product and one scatter
    per tap, so its derivatives (a convolution for x, a correlation for w) come from those ops."""
    if x.ndim != w.ndim or x.ndim < 3 or x.shape[1] != w.shape[0] or x.shape[1] % groups:
        raise OpError(
            f"{display}: x {x.shape} and weight {w.shape}: need (N, C, *spatial) and (C, O / groups, *kernel) "
            f"with C = x.shape[1] divisible by groups = {groups}"
        )
    (n, c, *spatial), (_, og, *kernel) = x.shape, w.shape
    axes = tuple(range(2, x.ndim))
    full = (n, og, *((m - 1) * s + d * (k - 1) + 1 + e
                     for m, k, s, d, e in zip(spatial, kernel, stride, dilation, output_padding)))  # fmt: skip
    cg = c // groups
    per_group = []
    for g in range(groups):
        group = getitem(x, (slice(None), slice(g * cg, (g + 1) * cg)))
        columns = reshape(transpose(group, (1, 0, *axes)), (cg, n * math.prod(spatial)))
        total = None
        for tap in np.ndindex(*kernel):
            weights = transpose(getitem(w, (slice(g * cg, (g + 1) * cg), slice(None), *tap)), (1, 0))
            piece = transpose(reshape(matmul(weights, columns), (og, n, *spatial)), (1, 0, *axes))
            at = (slice(None), slice(None), *(slice(t * d, t * d + (m - 1) * s + 1, s)
                                              for t, d, m, s in zip(tap, dilation, spatial, stride)))  # fmt: skip
            placed = make_node("scatter", (piece,), (normalize_index(full, at), full))
            total = placed if total is None else apply("add", total, placed)
        assert total is not None  # a kernel has at least one tap
        per_group.append(total)
    result = per_group[0] if groups == 1 else concatenate(per_group, 1)
    out = tuple(m - 2 * p for m, p in zip(full[2:], padding))
    if min(out) < 1:
        raise OpError(
            f"{display}: padding {tuple(padding)} leaves no output of the {'x'.join(map(str, full[2:]))} result"
        )
    return getitem(result, (slice(None), slice(None), *(slice(p, p + m) for p, m in zip(padding, out))))


def conv_transpose2d(x: Node, w: Node, stride=(1, 1), padding=(0, 0), dilation=(1, 1), output_padding=(0, 0),
                     groups: int = 1) -> Node:  # fmt: skip
    """The transposed 2-D convolution (NCHW, ``w`` (C, O / groups, kh, kw))."""
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(f"ConvTranspose2D: x {x.shape} and weight {w.shape} must have rank 4")
    return convolution_transpose(x, w, stride, padding, dilation, output_padding, groups, "ConvTranspose2D")


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
        # mm, addmm, bmm, convolution, attention, dot_general: importers.aten_matmul, lax_rows
    )
)
