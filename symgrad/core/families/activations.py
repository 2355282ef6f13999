"""Activations: sigmoid, relu, abs.

At the kink, ReLU'(0) = 0 and Abs'(0) = 0, as in MindSpore and PyTorch.
"""

from __future__ import annotations

import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.registry import Api, apply

elementwise(
    "sigmoid", "Sigmoid", lambda x: 1 / (1 + sympy.exp(-x)),
    (lambda x, ans: apply("mul", ans, apply("sub", 1, ans)),),
    numpy="rt.sigmoid({0})", c="(1 / (1 + exp(-{0})))", mindspore="ops.sigmoid({0})",
)  # fmt: skip
elementwise(
    "relu", "ReLU", lambda x: sympy.Max(x, 0),
    (lambda x, ans: apply("heaviside", x, params=(0.0,)),),
    numpy="rt.relu({0})", c="({0} > 0 || {0} != {0} ? {0} : 0)", mindspore="ops.relu({0})",
    float_result=False, kink="ReLU'(0) = 0",
)  # fmt: skip
elementwise(
    "abs", "Abs", sympy.Abs,
    (lambda x, ans: apply("sign", x),),
    numpy="np.abs({0})", c="fabs({0})", mindspore="ops.abs({0})",
    float_result=False, kink="Abs'(0) = 0", api=Api(("Abs",), ("abs",), operators=("__abs__",)),
)  # fmt: skip
