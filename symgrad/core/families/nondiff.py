"""Ops whose derivative is zero: sign, heaviside, floor_div, comparisons (==, !=, <, <=, >, >=), stop_gradient.

``stop_gradient`` is an ordinary op with a zero rule: its value is its argument,
and both sweeps stop at it, which removes its branch from every derivative.
``heaviside`` (the derivative of ReLU, Maximum and Minimum) is 0 at NaN, as MindSpore's
and JAX's ReLU gradients are.
"""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.registry import NONDIFF, Api, OpDef, broadcast_shapes, elementwise_infer, register


def _boolean(display):
    def infer(args, params):
        return broadcast_shapes(display, *(a.shape for a in args)), np.dtype(bool)

    return infer


def _nondiff(name, display, arity, sympy_fn, numpy, c, mindspore, infer=None, api=None, **traits):
    register(
        OpDef(
            name=name,
            display=display,
            kind=NONDIFF,
            arity=arity,
            infer=infer or elementwise_infer(display, float_result=False),
            sympy=sympy_fn,
            spellings={"numpy": numpy, "c": c, "mindspore": mindspore},
            api=api or Api(classes=(display,), functions=(name,)),
            **traits,
        )
    )


_nondiff(
    "stop_gradient", "stop_gradient", 1, lambda x: x,
    numpy="{0}", c="{0}", mindspore="ops.stop_gradient({0})",
    api=Api(("StopGradient",), ("stop_gradient",), generated=False),  # symgrad.autodiff.api
    passes_value=True,
)  # fmt: skip
_nondiff(
    "sign", "Sign", 1, sympy.sign,
    numpy="np.sign({0})", c="(({0} > 0) - ({0} < 0))", mindspore="ops.sign({0})",
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
    )  # fmt: skip


_comparison("greater", "Greater", ">", sympy.Gt, "gt", "gt")
_comparison("less", "Less", "<", sympy.Lt, "lt", "lt")
_comparison("equal", "Equal", "==", sympy.Eq, "eq", "equal")
_comparison("not_equal", "NotEqual", "!=", sympy.Ne, "ne", "ne")
_comparison("greater_equal", "GreaterEqual", ">=", sympy.Ge, "ge", "ge")
_comparison("less_equal", "LessEqual", "<=", sympy.Le, "le", "le")
_nondiff(
    "floor_div", "FloorDiv", 2, lambda a, b: sympy.floor(a / b),
    numpy="np.floor_divide({0}, {1})", c="floor({0} / {1})", mindspore="ops.floor_div({0}, {1})",
    api=Api(("FloorDiv",), ("floor_div", "floordiv"), ("__floordiv__",), ("__rfloordiv__",)), notation="{0} // {1}",
)  # fmt: skip
