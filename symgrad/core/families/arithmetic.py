"""Arithmetic: add, sub, mul, div, pow, neg, square, maximum, minimum, xlogy, select.

Partials receive the arguments then the op's own output ``ans``.
Maximum and minimum split ties 0.5/0.5, as MindSpore and PyTorch do. ``select(cond, a, b)``
(``ops.where``/``ops.Select``) passes the cotangent to ``a`` where ``cond`` holds, else to ``b``.
"""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.families.structural import fold
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
    """ATen's div with a rounding mode: true division, or floor division ('floor')."""
    if rounding_mode is None:
        return apply("div", a, b)
    if rounding_mode == "floor":
        return apply("floor_div", a, b)
    raise OpError(
        f"aten.div: rounding_mode={rounding_mode!r} has no op in symgrad's table (None and 'floor' do)"
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
    float_result=False, kink="ties split 0.5/0.5", imports=(aten("minimum"), lax("min")),
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
        imports=(aten("where.self"), lax("select_n", _select_n)),
    )
)  # fmt: skip
