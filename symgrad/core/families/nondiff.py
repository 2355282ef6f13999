"""Ops whose derivative is zero: sign, rounding (floor, ceil, round), heaviside, floor_div, comparisons
(==, !=, <, <=, >, >=), stop_gradient, pow2_scale.

Rounding is piecewise constant: its derivative is zero wherever it exists, and zero at the jumps too,
as PyTorch and JAX take it (so a straight-through estimator ``x + stop_gradient(round(x) - x)`` has
derivative 1). ``round`` rounds half to even, as NumPy, PyTorch and JAX do. PyTorch's and JAX's
rounding ops (integers pass unchanged; ``round.decimals``, ``trunc``) are the importers'
(``symgrad.importers.aten_functions``, ``lax_rows``).

``stop_gradient`` is an ordinary op with a zero rule: its value is its argument,
and both sweeps stop at it, which removes its branch from every derivative.
``heaviside`` (the derivative of ReLU, Maximum and Minimum) is 0 at NaN, as MindSpore's
and JAX's ReLU gradients are.

``pow2_scale(v)`` is a power of two near ``v`` (1 where ``v`` is not positive and finite):
formulas that are the same for every scale ``m`` > 0, such as ``m sqrt((x/m)^2 + (y/m)^2)``
for a 2-norm, divide by it to stay inside float64's range (no overflow at 1e200, no underflow
at 1e-200), and a power of two divides exactly. Because those formulas do not depend on
``m``, its derivative is zero and its SymPy meaning is 1: closed forms show the plain formula.
"""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.registry import (
    NONDIFF,
    Api,
    OpDef,
    aten,
    broadcast_shapes,
    elementwise_infer,
    lax,
    register,
)


def _boolean(display):
    def infer(args, params):
        return broadcast_shapes(display, *(a.shape for a in args)), np.dtype(bool)

    return infer


def _nondiff(name, display, arity, sympy_fn, numpy, c, mindspore, infer=None, api=None, cuda=None, **traits):
    register(
        OpDef(
            name=name,
            display=display,
            kind=NONDIFF,
            arity=arity,
            infer=infer or elementwise_infer(display, float_result=False),
            sympy=sympy_fn,
            spellings={"numpy": numpy, "c": c, "mindspore": mindspore, **({"cuda": cuda} if cuda else {})},
            api=api or Api(classes=(display,), functions=(name,)),
            **traits,
        )
    )


_nondiff(
    "stop_gradient", "stop_gradient", 1, lambda x: x,
    numpy="{0}", c="{0}", mindspore="ops.stop_gradient({0})",
    api=Api(("StopGradient",), ("stop_gradient",), generated=False),  # symgrad.autodiff.api
    passes_value=True, imports=(aten("detach"), aten("detach_copy"), lax("stop_gradient")),
)  # fmt: skip
# 2^floor(log2(v)), held inside the type's normal range so that 1 / scale is finite too
_POW2_SCALE_C = (
    "\n".join(
        f"static inline {real} sg_pow2_scale_{suffix}({real} v) {{ return v > 0 && v <= {top} ? "
        f"exp2{f}(fmin{f}(fmax{f}(floor{f}(log2{f}(v)), {low}), {high})) : 1; }}"
        for real, suffix, f, top, low, high in [
            ("double", "f64", "", "1.7976931348623157e308", "-1022.0", "1023.0"),
            ("float", "f32", "f", "3.40282347e38f", "-126.0f", "127.0f"),
        ]
    )
    + "\n#define sg_pow2_scale(v) _Generic((v), float: sg_pow2_scale_f32, default: sg_pow2_scale_f64)(v)"
)
_nondiff(
    "pow2_scale", "pow2_scale", 1, lambda v: sympy.Integer(1),
    numpy="rt.pow2_scale({0})", c="sg_pow2_scale({0})", c_function=_POW2_SCALE_C,
    cuda="({0} > 0 && {0} <= 1.7976931348623157e308 ? exp2(fmin(fmax(floor(log2((double){0})), -1022.0), 1023.0)) : 1.0)",
    mindspore="ops.where(({0} > 0) & ({0} <= 3.4e38), ops.exp2(ops.floor(ops.log2({0}))), ops.ones_like({0}))",
    infer=elementwise_infer("pow2_scale", float_result=True),
    api=Api(internal="a scale for formulas that do not depend on it (2-norms, atan2's derivative); see above"),
)  # fmt: skip
_nondiff(
    "sign", "Sign", 1, sympy.sign,
    numpy="np.sign({0})", c="(({0} > 0) - ({0} < 0))", mindspore="ops.sign({0})", imports=(aten("sign"), lax("sign")),
)  # fmt: skip


def _round_half_even(x):
    """The nearest integer to ``x``, the even one on a tie (k + 1/2)."""
    nearest = sympy.floor(x + sympy.Rational(1, 2))
    tie = sympy.And(sympy.Eq(x + sympy.Rational(1, 2), nearest), sympy.Eq(sympy.Mod(nearest, 2), 1))
    return sympy.Piecewise((nearest - 1, tie), (nearest, True))


_nondiff(
    "floor", "Floor", 1, sympy.floor,
    numpy="np.floor({0})", c="floor({0})", mindspore="ops.floor({0})",
    # floor, trunc, fix (integers pass): importers.aten_functions, lax_rows
)  # fmt: skip
_nondiff(
    "ceil", "Ceil", 1, sympy.ceiling,
    numpy="np.ceil({0})", c="ceil({0})", mindspore="ops.ceil({0})",
    # ceil (integers pass): importers.aten_functions, lax_rows
)  # fmt: skip
_nondiff(
    "round", "Round", 1, _round_half_even,
    numpy="np.round({0})", c="rint({0})", mindspore="ops.round({0})",
    # round, round.decimals, lax.round's two methods: importers.aten_functions, lax_rows
)  # fmt: skip
_nondiff(
    "heaviside", "Heaviside", 1, lambda x, h0: sympy.Heaviside(x, h0),
    numpy="rt.heaviside({0}, {p0})", c="({0} > 0 ? 1 : ({0} == 0 ? {p0} : 0))",
    mindspore="ops.where({0} != {0}, ops.zeros_like({0}), ops.heaviside({0}, ops.full_like({0}, {p0})))",
    api=Api(internal="the derivative of ReLU, Maximum and Minimum (its value at 0 is a parameter)"),
)  # fmt: skip


def _comparison(name, display, symbol, sympy_fn, short, mindspore):
    """An elementwise comparison: Bool result, the C operator ``symbol`` as spelling and notation,
    public as ``display``, ``name``, ``short`` and the Tensor operator of the same name."""
    _nondiff(
        name, display, 2, sympy_fn,
        numpy=f"np.{name}({{0}}, {{1}})", c=f"({{0}} {symbol} {{1}})", mindspore=f"ops.{mindspore}({{0}}, {{1}})",
        infer=_boolean(display), api=Api((display,), (name, short), (f"__{short}__",)), notation=f"{{0}} {symbol} {{1}}",
        imports=(aten(short), lax(short)),
    )  # fmt: skip


_comparison("greater", "Greater", ">", sympy.Gt, "gt", "gt")
_comparison("less", "Less", "<", sympy.Lt, "lt", "lt")
_comparison("equal", "Equal", "==", sympy.Eq, "eq", "equal")  # JAX's is_finite: importers.lax_rows
_comparison("not_equal", "NotEqual", "!=", sympy.Ne, "ne", "ne")
_comparison("greater_equal", "GreaterEqual", ">=", sympy.Ge, "ge", "ge")
_comparison("less_equal", "LessEqual", "<=", sympy.Le, "le", "le")
_nondiff(
    "floor_div", "FloorDiv", 2, lambda a, b: sympy.floor(a / b),
    numpy="np.floor_divide({0}, {1})", c="floor({0} / {1})", mindspore="ops.floor_div({0}, {1})",
    api=Api(("FloorDiv",), ("floor_div", "floordiv"), ("__floordiv__",), ("__rfloordiv__",)), notation="{0} // {1}",
    imports=(aten("floor_divide"),),
)  # fmt: skip
