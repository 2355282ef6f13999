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
_nondiff(
    "greater", "Greater", 2, lambda a, b: sympy.Gt(a, b),
    numpy="np.greater({0}, {1})", c="({0} > {1})", mindspore="ops.gt({0}, {1})",
    infer=_boolean("Greater"), api=Api(("Greater",), ("greater", "gt"), ("__gt__",)), notation="{0} > {1}",
)  # fmt: skip
_nondiff(
    "less", "Less", 2, lambda a, b: sympy.Lt(a, b),
    numpy="np.less({0}, {1})", c="({0} < {1})", mindspore="ops.lt({0}, {1})",
    infer=_boolean("Less"), api=Api(("Less",), ("less", "lt"), ("__lt__",)), notation="{0} < {1}",
)  # fmt: skip
_nondiff(
    "equal", "Equal", 2, lambda a, b: sympy.Eq(a, b),
    numpy="np.equal({0}, {1})", c="({0} == {1})", mindspore="ops.equal({0}, {1})",
    infer=_boolean("Equal"), api=Api(("Equal",), ("equal", "eq"), ("__eq__",)), notation="{0} == {1}",
)  # fmt: skip
_nondiff(
    "not_equal", "NotEqual", 2, lambda a, b: sympy.Ne(a, b),
    numpy="np.not_equal({0}, {1})", c="({0} != {1})", mindspore="ops.ne({0}, {1})",
    infer=_boolean("NotEqual"), api=Api(("NotEqual",), ("not_equal", "ne"), ("__ne__",)), notation="{0} != {1}",
)  # fmt: skip
_nondiff(
    "greater_equal", "GreaterEqual", 2, lambda a, b: sympy.Ge(a, b),
    numpy="np.greater_equal({0}, {1})", c="({0} >= {1})", mindspore="ops.ge({0}, {1})",
    infer=_boolean("GreaterEqual"), api=Api(("GreaterEqual",), ("greater_equal", "ge"), ("__ge__",)),
    notation="{0} >= {1}",
)  # fmt: skip
_nondiff(
    "less_equal", "LessEqual", 2, lambda a, b: sympy.Le(a, b),
    numpy="np.less_equal({0}, {1})", c="({0} <= {1})", mindspore="ops.le({0}, {1})",
    infer=_boolean("LessEqual"), api=Api(("LessEqual",), ("less_equal", "le"), ("__le__",)), notation="{0} <= {1}",
)  # fmt: skip
_nondiff(
    "floor_div", "FloorDiv", 2, lambda a, b: sympy.floor(a / b),
    numpy="np.floor_divide({0}, {1})", c="floor({0} / {1})", mindspore="ops.floor_div({0}, {1})",
    api=Api(("FloorDiv",), ("floor_div", "floordiv"), ("__floordiv__",), ("__rfloordiv__",)), notation="{0} // {1}",
)  # fmt: skip
