"""Activations: sigmoid, relu, abs, softplus, silu, gelu, leaky_relu, elu.

At the kink, ReLU'(0) = 0 and Abs'(0) = 0, as in MindSpore and PyTorch. LeakyReLU'(0) is
(1 + alpha) / 2, as MindSpore's (it computes maximum(alpha x, x), whose ties split), and
ELU'(0) = alpha (the left derivative), as MindSpore's and PyTorch's. PyTorch's spellings with its
arguments (``gelu``'s ``approximate``, ``leaky_relu``'s ``negative_slope``, ``elu``'s scales) are
the importers' (``symgrad.importers.aten_functions``).
"""

from __future__ import annotations

import math

import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.graph import Node
from symgrad.core.registry import Api, apply, aten, lax
from symgrad.errors import OpError


def gelu(x: Node, approximate: str = "none") -> Node:
    """GeLU: the erf form (this row), or its tanh approximation (``approximate="tanh"``) written
    out as MindSpore and PyTorch compute it: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x x x)))."""
    if approximate == "none":
        return apply("gelu", x)
    if approximate != "tanh":
        raise OpError(f"GeLU: approximate must be 'none' or 'tanh', got {approximate!r}")
    cube = apply("mul", apply("mul", x, x), x)
    inner = apply("mul", math.sqrt(2 / math.pi), apply("add", x, apply("mul", 0.044715, cube)))
    return apply("mul", apply("mul", 0.5, x), apply("add", 1, apply("tanh", inner)))


elementwise(
    "sigmoid", "Sigmoid", lambda x: 1 / (1 + sympy.exp(-x)),
    # sigmoid' = s (1 - s) = s sigmoid(-x): 1 - s cancels to 0 for x > 37 (sigmoid'(40) = 4.2e-18)
    (lambda x, ans: apply("mul", ans, apply("sigmoid", apply("neg", x))),),
    numpy="rt.sigmoid({0})", c="(1 / (1 + exp(-{0})))", mindspore="ops.sigmoid({0})", imports=(aten("sigmoid"), lax("logistic")),
)  # fmt: skip
elementwise(
    "relu", "ReLU", lambda x: sympy.Max(x, 0),
    (lambda x, ans: apply("heaviside", x, params=(0.0,)),),
    numpy="rt.relu({0})", c="({0} > 0 || {0} != {0} ? {0} : 0)", mindspore="ops.relu({0})",
    float_result=False, kink="ReLU'(0) = 0", imports=(aten("relu"),),
)  # fmt: skip
elementwise(
    "abs", "Abs", sympy.Abs,
    (lambda x, ans: apply("sign", x),),
    numpy="np.abs({0})", c="fabs({0})", mindspore="ops.abs({0})",
    float_result=False, kink="Abs'(0) = 0", api=Api(("Abs",), ("abs",), operators=("__abs__",)),
    imports=(aten("abs"), lax("abs")),
)  # fmt: skip
elementwise(
    "softplus", "Softplus", lambda x: sympy.log(1 + sympy.exp(x)),
    (lambda x, ans: apply("sigmoid", x),),
    numpy="rt.softplus({0})", c="({0} > 0 ? {0} + log1p(exp(-{0})) : log1p(exp({0})))",
    mindspore="ops.softplus({0})",
)  # fmt: skip
elementwise(
    "silu", "SiLU", lambda x: x / (1 + sympy.exp(-x)),
    # silu' = s + x s (1 - s) = s + ans (1 - s), s = sigmoid(x)
    (lambda x, ans: apply("add", apply("sigmoid", x), apply("mul", ans, apply("sub", 1, apply("sigmoid", x)))),),
    numpy="rt.silu({0})", c="({0} / (1 + exp(-{0})))", mindspore="ops.silu({0})",
    api=Api(("SiLU",), ("silu", "swish")),
)  # fmt: skip
elementwise(
    "gelu", "GeLU", lambda x: x * (1 + sympy.erf(x / sympy.sqrt(2))) / 2,
    # gelu' = Phi(x) + x phi(x), Phi the normal CDF and phi its density
    (lambda x, ans: apply(
        "add",
        apply("mul", 0.5, apply("add", 1, apply("erf", apply("mul", 1 / math.sqrt(2), x)))),
        apply("mul", apply("mul", 1 / math.sqrt(2 * math.pi), x), apply("exp", apply("mul", -0.5, apply("square", x)))),
    ),),
    numpy="rt.gelu({0})", c="(0.5 * {0} * (1 + erf({0} * 0.70710678118654752440)))", mindspore="ops.gelu({0})",
    api=Api(("GeLU",), ("gelu",), generated=False),  # ops.gelu(x, approximate) and GeLU() in symgrad.ops
)  # fmt: skip
elementwise(
    "leaky_relu", "LeakyReLU", lambda x, alpha: sympy.Piecewise((x, x > 0), (alpha * x, True)),
    (lambda x, ans, alpha: apply("add", alpha, apply("mul", 1 - alpha, apply("heaviside", x, params=(0.5,)))),),
    numpy="rt.leaky_relu({0}, {p0})", c="({0} > 0 ? {0} : {p0} * {0})", mindspore="ops.leaky_relu({0}, {p0})",
    float_result=False, kink="LeakyReLU'(0) = (1 + alpha) / 2",
    api=Api((), ("leaky_relu",), generated=False),  # takes alpha; nn.LeakyReLU is the cell
)  # fmt: skip
elementwise(
    "elu", "ELU", lambda x, alpha: sympy.Piecewise((x, x > 0), (alpha * (sympy.exp(x) - 1), True)),
    # elu' = 1 for x > 0, else alpha exp(x), as exp(x (1 - h)) (h = heaviside(x)): exp never
    # overflows where it is not used, and ans + alpha would cancel to 0 for x < -37
    (lambda x, ans, alpha: apply(
        "add",
        apply("heaviside", x, params=(0.0,)),
        apply("mul", apply("mul", alpha, apply("sub", 1, apply("heaviside", x, params=(0.0,)))),
              apply("exp", apply("mul", x, apply("sub", 1, apply("heaviside", x, params=(0.0,)))))),
    ),),
    numpy="rt.elu({0}, {p0})", c="({0} > 0 ? {0} : {p0} * expm1({0}))", mindspore="ops.elu({0}, {p0})",
    kink="ELU'(0) = alpha",
    api=Api(("Elu",), ("elu",), generated=False),  # takes alpha
)  # fmt: skip
