"""Arithmetic: add, sub, mul, div, pow, neg, square, maximum, minimum, xlogy, select.

Partials receive the arguments then the op's own output ``ans``.
Maximum and minimum split ties 0.5/0.5, as MindSpore and PyTorch do. ``select(cond, a, b)``
(``ops.where``/``ops.Select``) passes the cotangent to ``a`` where ``cond`` holds, else to ``b``.
Picks by comparison (PyTorch's ``max(dim)``, ``sort``, ``topk``, max pooling) are chains of selects,
so the derivative reaches the one element picked, as PyTorch's does.
"""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.families.structural.builders import along, fold, full, getitem, reshape, stack
from symgrad.core.families.structural.windows import adaptive_windows, per_axis, pooling_windows
from symgrad.core.graph import Node
from symgrad.core.registry import (
    ELEMENTWISE,
    Api,
    OpDef,
    apply,
    aten,
    broadcast_shapes,
    is_value,
    lax,
    make_node,
    promote,
    register,
)
from symgrad.errors import OpError


def _same_shape(node: Node, args) -> bool:
    """True if ``node`` can stand for the op's result: same shape and same dtype."""
    try:
        shape = broadcast_shapes("", *(a.shape for a in args))
    except OpError:  # the op's own shape rule reports it, with the op's name
        return False
    return node.shape == shape and node.dtype == promote(args, float_result=False)


def _simplify_add(args, params):
    a, b = args
    if is_value(b, 0) and _same_shape(a, args):
        return a
    if is_value(a, 0) and _same_shape(b, args):
        return b
    return None


def _simplify_sub(args, params):
    a, b = args
    if is_value(b, 0) and _same_shape(a, args):
        return a
    if is_value(a, 0) and _same_shape(b, args):
        return make_node("neg", (b,))
    return None


def _simplify_mul(args, params):
    a, b = args
    for one, other in ((a, b), (b, a)):
        if _same_shape(other, args):
            if is_value(one, 1):
                return other
            if is_value(one, -1):
                return make_node("neg", (other,))
    return None


def _simplify_div(args, params):
    a, b = args
    return a if is_value(b, 1) and _same_shape(a, args) else None


def _simplify_neg(args, params):
    (a,) = args
    return a.args[0] if a.op == "neg" else None


def _simplify_pow(args, params):
    a, b = args
    return a if is_value(b, 1) and _same_shape(a, args) else None


def _scaled(b, alpha):
    """ATen's ``alpha`` argument of add and sub: ``b`` times it."""
    return b if alpha == 1 else apply("mul", alpha, b)


def _aten_div(a, b, rounding_mode=None):
    """ATen's div with a rounding mode: true division, floor division ('floor'), or truncated ('trunc')."""
    if rounding_mode is None:
        return apply("div", a, b)
    if rounding_mode == "floor":
        return apply("floor_div", a, b)
    if rounding_mode == "trunc":  # toward zero: sign(q) floor(|q|)
        quotient = apply("div", a, b)
        return apply("mul", apply("sign", quotient), apply("floor", apply("abs", quotient)))
    raise OpError(
        f"aten.div: rounding_mode={rounding_mode!r} has no op in symgrad's table (None, 'floor', 'trunc' do)"
    )


def _clamp(x, min=None, max=None):  # noqa: A002 (ATen's argument names)
    """ATen's clamp: maximum with ``min``, then minimum with ``max``, each where given."""
    x = x if min is None else apply("maximum", x, min)
    return x if max is None else apply("minimum", x, max)


elementwise(
    "add", "Add", lambda a, b: a + b,
    (lambda a, b, ans: 1, lambda a, b, ans: 1),
    numpy="np.add({0}, {1})", c="({0} + {1})", mindspore="ops.add({0}, {1})",
    float_result=False, simplify=_simplify_add, fold=np.add,
    api=Api(("Add", "TensorAdd"), ("add",), ("__add__",), ("__radd__",)), notation="{0} + {1}", signs=(1, 1),
    imports=(aten("add", lambda a, b, alpha=1: apply("add", a, _scaled(b, alpha))), lax("add"), lax("add_any")),
)  # fmt: skip
elementwise(
    "sub", "Sub", lambda a, b: a - b,
    (lambda a, b, ans: 1, lambda a, b, ans: -1),
    numpy="np.subtract({0}, {1})", c="({0} - {1})", mindspore="ops.sub({0}, {1})",
    float_result=False, simplify=_simplify_sub, fold=np.subtract,
    api=Api(("Sub",), ("sub",), ("__sub__",), ("__rsub__",)), notation="{0} - {1}", signs=(1, -1),
    imports=(aten("sub", lambda a, b, alpha=1: apply("sub", a, _scaled(b, alpha))), lax("sub")),
)  # fmt: skip
elementwise(
    "mul", "Mul", lambda a, b: a * b,
    (lambda a, b, ans: b, lambda a, b, ans: a),
    numpy="np.multiply({0}, {1})", c="({0} * {1})", mindspore="ops.mul({0}, {1})",
    float_result=False, simplify=_simplify_mul, fold=np.multiply,
    api=Api(("Mul",), ("mul",), ("__mul__",), ("__rmul__",)), notation="{0} · {1}", imports=(aten("mul"), lax("mul")),
)  # fmt: skip
elementwise(
    "div", "Div", lambda a, b: a / b,
    (lambda a, b, ans: apply("div", 1, b), lambda a, b, ans: apply("neg", apply("div", ans, b))),
    numpy="np.divide({0}, {1})", c="({0} / {1})", mindspore="ops.div({0}, {1})",
    simplify=_simplify_div, fold=np.true_divide,
    api=Api(("Div", "RealDiv"), ("div",), ("__truediv__",), ("__rtruediv__",)), notation="{0} / {1}",
    imports=(aten("div", _aten_div), aten("reciprocal", lambda x: apply("div", 1, x)), lax("div")),
)  # fmt: skip
elementwise(
    "pow", "Pow", lambda a, b: a**b,
    (
        lambda a, b, ans: apply("mul", b, apply("pow", a, apply("sub", b, 1))),
        lambda a, b, ans: apply("xlogy", ans, a),  # 0 where a = 0 < b, as MindSpore, PyTorch, JAX
    ),
    numpy="np.power({0}, {1})", c="pow({0}, {1})", mindspore="ops.pow({0}, {1})",
    float_result=False, simplify=_simplify_pow, fold=np.power,
    api=Api(("Pow",), ("pow",), ("__pow__",), ("__rpow__",)), notation="{0} ^ {1}", simd="pow",
    imports=(
        aten("pow"),
        aten("exp2", lambda x: apply("pow", 2, x)),
        lax("pow"),
        lax("integer_pow", lambda x, y: apply("pow", x, y)),
        lax("exp2", lambda x: apply("pow", 2, x)),
    ),
)  # fmt: skip
elementwise(
    "neg", "Neg", lambda a: -a,
    (lambda a, ans: -1,),
    numpy="np.negative({0})", c="(-{0})", mindspore="ops.neg({0})",
    float_result=False, simplify=_simplify_neg, fold=np.negative,
    api=Api(("Neg",), ("neg", "negative"), ("__neg__",)), notation="-{0}", signs=(-1,), imports=(aten("neg"), lax("neg")),
)  # fmt: skip
elementwise(
    "square", "Square", lambda a: a**2,
    (lambda a, ans: apply("mul", 2, a),),
    numpy="np.square({0})", c="({0} * {0})", mindspore="ops.square({0})",
    float_result=False, fold=np.square, imports=(aten("square"), lax("square")),
)  # fmt: skip
elementwise(
    "maximum", "Maximum", lambda a, b: sympy.Max(a, b),
    (
        lambda a, b, ans: apply("heaviside", apply("sub", a, b), params=(0.5,)),
        lambda a, b, ans: apply("heaviside", apply("sub", b, a), params=(0.5,)),
    ),
    numpy="np.maximum({0}, {1})", c="({0} > {1} || {0} != {0} ? {0} : {1})", mindspore="ops.maximum({0}, {1})",
    float_result=False, kink="ties split 0.5/0.5",
    imports=(
        aten("maximum"),
        aten("clamp", _clamp),
        aten("hardtanh", lambda x, min_val=-1.0, max_val=1.0: _clamp(x, min_val, max_val)),
        lax("max"),
        lax("clamp", lambda low, x, high: _clamp(x, low, high)),
        # reductions to the largest element: a chain of maximums (ties share the gradient)
        aten("amax", lambda x, dim=(), keepdim=False: fold(x, tuple(dim), keepdim, "maximum")),
        aten("max.default", lambda x: fold(x, None, False, "maximum")),
        lax("reduce_max", lambda x, axes: fold(x, tuple(axes), False, "maximum")),
    ),
)  # fmt: skip
elementwise(
    "minimum", "Minimum", lambda a, b: sympy.Min(a, b),
    (
        lambda a, b, ans: apply("heaviside", apply("sub", b, a), params=(0.5,)),
        lambda a, b, ans: apply("heaviside", apply("sub", a, b), params=(0.5,)),
    ),
    numpy="np.minimum({0}, {1})", c="({0} < {1} || {0} != {0} ? {0} : {1})", mindspore="ops.minimum({0}, {1})",
    float_result=False, kink="ties split 0.5/0.5",
    imports=(
        aten("minimum"),
        lax("min"),
        aten("amin", lambda x, dim=(), keepdim=False: fold(x, tuple(dim), keepdim, "minimum")),
        aten("min.default", lambda x: fold(x, None, False, "minimum")),
        lax("reduce_min", lambda x, axes: fold(x, tuple(axes), False, "minimum")),
    ),
)  # fmt: skip
elementwise(
    "xlogy", "Xlogy", lambda a, b: a * sympy.log(b),
    (lambda a, b, ans: apply("log", b), lambda a, b, ans: apply("div", a, b)),
    numpy="rt.xlogy({0}, {1})", c="({0} == 0 ? ({1} != {1} ? {1} : 0) : {0} * log({1}))", mindspore="ops.xlogy({0}, {1})",
    notation="{0} · log({1})", imports=(aten("xlogy"),),
)  # fmt: skip


def _select_n(which, *cases):
    """JAX's select_n: ``cases[which]``; with a boolean ``which``, cases[1] where it holds."""
    if len(cases) != 2 or which.dtype != np.dtype(bool):
        raise OpError(
            f"select_n with {len(cases)} cases and a {which.dtype} selector has no row (2 cases, bool)"
        )
    return apply("select", which, cases[1], cases[0])


def _select_infer(args, params):
    """Shape by broadcasting all three; dtype from the two branches (the condition is boolean)."""
    cond = args[0]
    if cond.dtype is not None and cond.dtype != np.dtype(bool):
        raise OpError(f"Select: argument 'cond' must be a bool tensor, got dtype {cond.dtype}")
    return broadcast_shapes("Select", *(a.shape for a in args)), promote(args[1:], float_result=False)


def _select_sympy(c, a, b):
    """Piecewise on a condition; a constant condition (a number in closed forms) picks its branch."""
    if isinstance(c, sympy.logic.boolalg.Boolean):
        return sympy.Piecewise((a, c), (b, True))
    c = sympy.sympify(c)
    if c.is_number:
        return b if c.is_zero else a
    return sympy.Piecewise((a, sympy.Ne(c, 0)), (b, True))


def _chosen(cond: Node, ans: Node, where_true: bool) -> Node:
    """1 where the branch is chosen, else 0, in the result's dtype."""
    from symgrad.core.families.conversion import cast  # conversion registers after arithmetic

    mask = cast(cond, ans.dtype or np.float32)
    return mask if where_true else apply("sub", 1, mask)


# ----- picks by comparison, as chains of selects -----


def picked(taps: list[Node], numbers: list, largest: bool = True) -> tuple[Node, Node]:
    """The largest (smallest) of ``taps`` elementwise, the first one on ties, NaN if one is NaN (as
    PyTorch's max), and where it came from: the ``numbers`` entry (int, or int array) of its tap."""
    best, index = taps[0], full(taps[0].shape, numbers[0], np.int64)
    for tap, number in zip(taps[1:], numbers[1:]):
        order = apply("greater" if largest else "less", tap, best)
        beats = apply("select", apply("not_equal", tap, tap), True, order)
        best = apply("select", beats, tap, best)
        index = apply("select", beats, full(tap.shape, number, np.int64), index)
    return best, index


def _items(x: Node, dim: int) -> list[Node]:
    return [getitem(x, along(x.ndim, dim, k)) for k in range(x.shape[dim])]


def _kept(x: Node, dim: int, keepdim: bool) -> Node:
    return reshape(x, x.shape[:dim] + (1,) + x.shape[dim:]) if keepdim else x


def _aten_max_dim(x: Node, dim: int, keepdim: bool = False, largest: bool = True) -> tuple[Node, Node]:
    """aten.max.dim (min.dim with ``largest=False``): the values and their indices along ``dim``."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    values, indices = picked(_items(x, dim), list(range(x.shape[dim])), largest)
    return _kept(values, dim, keepdim), _kept(indices, dim, keepdim)


def _aten_argmax(x: Node, dim=None, keepdim: bool = False, largest: bool = True) -> Node:
    """aten.argmax (argmin): the index of the first largest (smallest) element, over all when ``dim`` is None."""
    if dim is None:
        index = _aten_max_dim(reshape(x, (-1,)), 0, False, largest)[1]
        return reshape(index, (1,) * x.ndim) if keepdim else index
    return _aten_max_dim(x, dim, keepdim, largest)[1]


SORT_LENGTH_LIMIT = 128  # 0.5 s of graph building at 128; 2.5 s at 256, growing as n^2


def _aten_sort(x: Node, dim: int = -1, descending: bool = False, stable=None) -> tuple[Node, Node]:
    """aten.sort: odd-even transposition sort along ``dim`` (n rounds of compare-and-swap of
    neighbours, a pair swapped only when strictly out of order, so equal elements keep their order:
    a stable sort). NaN is not placed last as PyTorch places it."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    if x.shape[dim] > SORT_LENGTH_LIMIT:
        raise OpError(
            f"aten.sort: {x.shape[dim]} elements along dim {dim} of a {x.shape} tensor; symgrad sorts at "
            f"most {SORT_LENGTH_LIMIT} (a compare-and-swap network of n^2/2 steps, each a graph node)"
        )
    items = _items(x, dim)
    numbers = [full(items[0].shape, k, np.int64) for k in range(len(items))]
    for step in range(len(items)):
        for i in range(step % 2, len(items) - 1, 2):
            a, b = items[i], items[i + 1]
            swap = apply("greater" if descending else "less", b, a)
            items[i], items[i + 1] = apply("select", swap, b, a), apply("select", swap, a, b)
            m, n = numbers[i], numbers[i + 1]
            numbers[i], numbers[i + 1] = apply("select", swap, n, m), apply("select", swap, m, n)
    return stack(items, dim), stack(numbers, dim)


def _aten_topk(
    x: Node,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,  # noqa: A002 (ATen's name)
) -> tuple[Node, Node]:
    """aten.topk: the first ``k`` of the sort, largest first (smallest first with ``largest=False``)."""
    if not sorted:
        raise OpError(
            "aten.topk: sorted=False (an order PyTorch leaves unspecified) has no row; sorted=True has"
        )
    values, indices = _aten_sort(x, dim, largest)
    if x.ndim == 0:
        return values, indices
    first = along(x.ndim, dim % x.ndim, slice(0, k))
    return getitem(values, first), getitem(indices, first)


def _aten_max_pool(x: Node, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False, *,
                   dims: int) -> tuple[Node, Node]:  # fmt: skip
    """aten.max_pool1d/2d/3d_with_indices: the first largest element of each window (padding is
    -inf) and its index in the flattened input plane, as PyTorch's."""
    taps, out, (_, s, p) = pooling_windows(
        x, dims, kernel_size, stride, padding, dilation, ceil_mode, -np.inf
    )
    spatial, d = x.shape[x.ndim - dims :], per_axis(dilation, dims)
    numbers = []
    for tap, _ in taps:  # each tap's element as a position in the input plane (row-major)
        position = np.zeros(out, np.int64)
        for axis, (o, s_, p_, d_, t) in enumerate(zip(out, s, p, d, tap)):
            along_axis = (np.arange(o) * s_ - p_ + t * d_).reshape(
                [-1 if a == axis else 1 for a in range(dims)]
            )
            position = position * spatial[axis] + along_axis
        numbers.append(position)
    return picked([window for _, window in taps], numbers)


def _aten_kthvalue(x: Node, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Node, Node]:
    """aten.kthvalue: the ``k``-th smallest element along ``dim`` and its index (the sort's)."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    values, indices = _aten_sort(x, dim)
    at = along(x.ndim, dim, k - 1)
    return _kept(getitem(values, at), dim, keepdim), _kept(getitem(indices, at), dim, keepdim)


def _aten_median(x: Node, dim: int | None = None, keepdim: bool = False):
    """aten.median: the lower median ((n + 1) // 2-th smallest), with its index along ``dim``;
    over all elements (the value alone) without one."""
    if dim is None:
        flat = reshape(x, (-1,))
        return _aten_kthvalue(flat, (flat.shape[0] + 1) // 2, 0)[0]
    return _aten_kthvalue(x, (x.shape[dim] + 1) // 2 if x.ndim else 1, dim, keepdim)


def _aten_adaptive_max_pool(x: Node, output_size, *, dims: int) -> tuple[Node, Node]:
    """aten.adaptive_max_pool1d/2d/3d: the first largest element of each of PyTorch's adaptive
    windows (see ``adaptive_windows``) and its index in the flattened input plane."""
    lead, spatial, out = x.ndim - dims, x.shape[x.ndim - dims :], per_axis(output_size, dims)
    spans = [adaptive_windows(n, o) for n, o in zip(spatial, out)]
    numbers = np.arange(int(np.prod(spatial))).reshape(spatial)
    values, indices = [], []
    for position in np.ndindex(*out):
        box = tuple(slice(*spans[axis][i]) for axis, i in enumerate(position))
        region = getitem(x, (slice(None),) * lead + box)
        taps = [getitem(region, (slice(None),) * lead + e) for e in np.ndindex(*region.shape[lead:])]
        value, index = picked(taps, [int(k) for k in numbers[box].ravel()])
        values.append(value)
        indices.append(index)
    shape = x.shape[:lead] + tuple(out)
    return reshape(stack(values, lead), shape), reshape(stack(indices, lead), shape)


def _aten_prelu(x: Node, weight: Node) -> Node:
    """aten.prelu: ``x`` where positive, else ``weight * x``, one weight per channel (axis 1) or one for all."""
    if weight.ndim == 1 and weight.shape[0] > 1 and x.ndim >= 2:
        weight = reshape(weight, (1, -1) + (1,) * (x.ndim - 2))
    elif weight.ndim == 1 and weight.shape[0] == 1:
        weight = reshape(weight, ())
    return _prelu_kernel(x, weight)


def _prelu_kernel(x: Node, weight: Node) -> Node:
    """x where positive, else weight x (weight already broadcasts): PReLU'(0) is the weight, as PyTorch's."""
    return apply("select", apply("greater", x, 0), x, apply("mul", weight, x))


register(
    OpDef(
        name="select", display="Select", kind=ELEMENTWISE, arity=3, infer=_select_infer,
        sympy=_select_sympy,
        partials=(
            lambda c, a, b, ans: 0,
            lambda c, a, b, ans: _chosen(c, ans, True),
            lambda c, a, b, ans: _chosen(c, ans, False),
        ),
        spellings={"numpy": "np.where({0}, {1}, {2})", "c": "({0} ? {1} : {2})", "mindspore": "ops.where({0}, {1}, {2})"},
        api=Api(("Select",), ("select", "where"), generated=False),
        notation="({1} if {0} else {2})",
        imports=(
            aten("where.self"),
            lax("select_n", _select_n),
            aten("max.dim", _aten_max_dim),
            aten("min.dim", lambda x, dim, keepdim=False: _aten_max_dim(x, dim, keepdim, largest=False)),
            aten("argmax", _aten_argmax),
            aten("argmin", lambda x, dim=None, keepdim=False: _aten_argmax(x, dim, keepdim, largest=False)),
            aten("sort", _aten_sort),
            aten("topk", _aten_topk),
            aten("kthvalue", _aten_kthvalue),
            aten("median", _aten_median),
            *(aten(f"max_pool{n}d_with_indices", lambda *a, n=n, **k: _aten_max_pool(*a, **k, dims=n))
              for n in (1, 2, 3)),  # fmt: skip
            *(aten(f"max_pool{n}d", lambda *a, n=n, **k: _aten_max_pool(*a, **k, dims=n)[0]) for n in (1, 2, 3)),
            *(aten(f"adaptive_max_pool{n}d", lambda x, size, n=n: _aten_adaptive_max_pool(x, size, dims=n))
              for n in (1, 2, 3)),  # fmt: skip
            aten("prelu", _aten_prelu),
            aten("_prelu_kernel", _prelu_kernel),
        ),
    )
)  # fmt: skip
