"""Arithmetic: add, sub, mul, div, pow, neg, square, maximum, minimum, xlogy, select.

Partials receive the arguments then the op's own output ``ans``.
Maximum and minimum split ties 0.5/0.5, as MindSpore and PyTorch do. ``select(cond, a, b)``
(``ops.where``/``ops.Select``) passes the cotangent to ``a`` where ``cond`` holds, else to ``b``.
Picks by comparison (``picked``; PyTorch's ``max(dim)``, ``sort``, ``topk``, max pooling) are chains
of selects, so the derivative reaches the one element picked, as PyTorch's does. The spellings
with PyTorch's or JAX's argument conventions are the importers' (``symgrad.importers.aten_arithmetic``,
``lax_rows``); the rows keep the plain ones (``aten("mul")``).
"""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.families.structural.builders import full
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


elementwise(
    "add", "Add", lambda a, b: a + b,
    (lambda a, b, ans: 1, lambda a, b, ans: 1),
    numpy="np.add({0}, {1})", c="({0} + {1})", mindspore="ops.add({0}, {1})",
    float_result=False, simplify=_simplify_add, fold=np.add,
    api=Api(("Add", "TensorAdd"), ("add",), ("__add__",), ("__radd__",)), notation="{0} + {1}", signs=(1, 1),
    imports=(lax("add"), lax("add_any")),  # aten.add (alpha): importers.aten_arithmetic
)  # fmt: skip
elementwise(
    "sub", "Sub", lambda a, b: a - b,
    (lambda a, b, ans: 1, lambda a, b, ans: -1),
    numpy="np.subtract({0}, {1})", c="({0} - {1})", mindspore="ops.sub({0}, {1})",
    float_result=False, simplify=_simplify_sub, fold=np.subtract,
    api=Api(("Sub",), ("sub",), ("__sub__",), ("__rsub__",)), notation="{0} - {1}", signs=(1, -1),
    imports=(lax("sub"),),  # aten.sub (alpha): importers.aten_arithmetic
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
    imports=(lax("div"),),  # aten.div (rounding modes), reciprocal: importers.aten_arithmetic
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
    imports=(aten("pow"), lax("pow")),  # exp2, integer_pow: importers.aten_arithmetic, lax_rows
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
    imports=(aten("maximum"), lax("max")),  # clamps and amax: importers.aten_arithmetic, lax_rows
)  # fmt: skip
elementwise(
    "minimum", "Minimum", lambda a, b: sympy.Min(a, b),
    (
        lambda a, b, ans: apply("heaviside", apply("sub", b, a), params=(0.5,)),
        lambda a, b, ans: apply("heaviside", apply("sub", a, b), params=(0.5,)),
    ),
    numpy="np.minimum({0}, {1})", c="({0} < {1} || {0} != {0} ? {0} : {1})", mindspore="ops.minimum({0}, {1})",
    float_result=False, kink="ties split 0.5/0.5",
    imports=(aten("minimum"), lax("min")),  # amin: importers.aten_arithmetic, lax_rows
)  # fmt: skip
elementwise(
    "xlogy", "Xlogy", lambda a, b: a * sympy.log(b),
    (lambda a, b, ans: apply("log", b), lambda a, b, ans: apply("div", a, b)),
    numpy="rt.xlogy({0}, {1})", c="({0} == 0 ? ({1} != {1} ? {1} : 0) : {0} * log({1}))", mindspore="ops.xlogy({0}, {1})",
    notation="{0} · log({1})", imports=(aten("xlogy"),),
)  # fmt: skip


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
        # max.dim, argmax, sort, topk, max pooling, prelu (PyTorch's picks), select_n (JAX's):
        # importers.aten_arithmetic, lax_rows
        imports=(aten("where.self"),),
    )
)  # fmt: skip
