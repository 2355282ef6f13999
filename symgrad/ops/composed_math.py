"""Elementwise functions written with table ops: reciprocal, rsqrt, log2, log10, exp2, hypot,
asinh, acosh, deg2rad, rad2deg; clip (``clamp``); the tests isnan, isinf, isfinite; and the logical ops.

Their derivatives come from the rows they are made of (``log2(x) = log(x) / ln 2``, ...). The
logical ops read a non-bool input as ``x != 0``, as MindSpore does, and return bools.
"""

from __future__ import annotations

import math

from symgrad import dtype as mstype
from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import clamp, select
from symgrad.ops.primitives import generated_class
from symgrad.tensor import Tensor

_G = F.GENERATED


def reciprocal(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """``1 / input``."""
    return _G["div"](1, F.as_tensor(input, "Reciprocal", "input"))


def rsqrt(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """``1 / sqrt(input)``."""
    return reciprocal(_G["sqrt"](input))


def log2(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """The base-2 logarithm, ``log(x) / ln 2``."""
    return _G["log"](input) / math.log(2)


def log10(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """The base-10 logarithm, ``log(x) / ln 10``."""
    return _G["log"](input) / math.log(10)


def exp2(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """``2 ** input`` (float32 for integer input)."""
    t = F.as_tensor(input, "exp2", "input")
    return _G["pow"](2.0, t if t.dtype.np.kind == "f" else t.astype(mstype.float32))


def hypot(input, other) -> Tensor:  # noqa: A002 - MindSpore's name
    """``sqrt(input^2 + other^2)``."""
    return _G["sqrt"](_G["add"](_G["square"](input), _G["square"](other)))


def asinh(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """The inverse hyperbolic sine: ``log1p(a + a^2 / (1 + sqrt(1 + a^2)))`` for ``a = |x|``, with x's sign
    (no cancellation on either side; each side's derivatives are ``1 / sqrt(1 + x^2)``'s)."""
    t = F.as_tensor(input, "Asinh", "input")

    def positive(a: Tensor) -> Tensor:
        square = _G["square"](a)
        return _G["log1p"](a + square / (1 + _G["sqrt"](1 + square)))

    return select(_G["less"](t, 0), -positive(-t), positive(t))


def acosh(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """The inverse hyperbolic cosine (x >= 1): ``log1p((x - 1) + sqrt((x - 1)(x + 1)))``, exact near 1."""
    below = F.as_tensor(input, "Acosh", "input") - 1
    return _G["log1p"](below + _G["sqrt"](below * (below + 2)))


arcsinh, arccosh = asinh, acosh


def deg2rad(x) -> Tensor:
    """Degrees to radians."""
    return _G["mul"](x, math.pi / 180)


def rad2deg(x) -> Tensor:
    """Radians to degrees."""
    return _G["mul"](x, 180 / math.pi)


clip = clamp  # as in MindSpore: the gradient is 1 on the closed interval [min, max]


# ----- tests -----
def isnan(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """True where ``input`` is NaN (``x != x``)."""
    t = F.as_tensor(input, "IsNan", "input")
    return _G["not_equal"](t, t)


def isinf(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """True where ``input`` is +-inf."""
    return _G["equal"](_G["abs"](input), math.inf)


def isfinite(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """True where ``input`` is neither NaN nor +-inf."""
    return _G["less"](_G["abs"](input), math.inf)


# ----- logical -----
def _truth(x, op: str) -> Tensor:
    """``x`` as bools (``x != 0`` unless already bool)."""
    t = F.as_tensor(x, op, "input")
    return t if t.dtype == mstype.bool_ else _G["not_equal"](t, 0)


def logical_and(input, other) -> Tensor:  # noqa: A002 - MindSpore's name
    """Elementwise AND."""
    return select(_truth(input, "LogicalAnd"), _truth(other, "LogicalAnd"), False)


def logical_or(input, other) -> Tensor:  # noqa: A002 - MindSpore's name
    """Elementwise OR."""
    return select(_truth(input, "LogicalOr"), True, _truth(other, "LogicalOr"))


def logical_not(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """Elementwise NOT."""
    return _G["equal"](_truth(input, "LogicalNot"), False)


def logical_xor(input, other) -> Tensor:  # noqa: A002 - MindSpore's name
    """Elementwise XOR."""
    return _G["not_equal"](_truth(input, "LogicalXor"), _truth(other, "LogicalXor"))


CLASSES = {
    name: generated_class(name, fn)
    for name, fn in (
        ("Reciprocal", reciprocal), ("Rsqrt", rsqrt), ("Hypot", hypot), ("Asinh", asinh), ("Acosh", acosh),
        ("IsNan", isnan), ("IsInf", isinf),
        ("IsFinite", isfinite), ("LogicalAnd", logical_and), ("LogicalOr", logical_or),
        ("LogicalNot", logical_not), ("LogicalXor", logical_xor),
    )
}  # fmt: skip
globals().update(CLASSES)

__all__ = sorted(
    [
        *CLASSES,
        "acosh",
        "arccosh",
        "arcsinh",
        "asinh",
        "clip",
        "deg2rad",
        "exp2",
        "hypot",
        "isfinite",
        "isinf",
    ]
    + ["isnan", "log10", "log2"]
    + ["logical_and", "logical_not", "logical_or", "logical_xor", "rad2deg", "reciprocal", "rsqrt"]
)
