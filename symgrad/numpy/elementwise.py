"""Elementwise functions of ``mindspore.numpy``: each is the ``symgrad.ops`` op of that meaning,
with NumPy's name (``arcsin`` is ``ops.asin``) and the optional ``dtype`` of the result.

Lists and arrays become Tensors as ``asarray`` makes them; Python numbers next to a Tensor take
its dtype. ``divide`` works in float32 unless an operand is float16 or float32, as in MindSpore.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.numpy.creation import asarray
from symgrad.tensor import Tensor


def operand(x):
    """``x`` ready for an op: Tensors and Python numbers as they are, anything else through ``asarray``."""
    return x if isinstance(x, Tensor | bool | int | float) else asarray(x)


def cast_to(result: Tensor, dtype) -> Tensor:
    """``result`` in ``dtype`` (unchanged when None)."""
    return result if dtype is None else result.astype(dtype)


def _unary(name: str, op: Callable) -> Callable:
    def fn(x, dtype=None) -> Tensor:
        return cast_to(op(asarray(x)), dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (``symgrad.ops.{op.__name__}``), in ``dtype`` when given."
    return fn


def _binary(name: str, op: Callable) -> Callable:
    def fn(x1, x2, dtype=None) -> Tensor:
        a, b = operand(x1), operand(x2)
        return cast_to(op(a if isinstance(a, Tensor) or isinstance(b, Tensor) else asarray(a), b), dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"Elementwise ``{name}`` with broadcasting (``symgrad.ops.{op.__name__}``), in ``dtype`` when given."
    )
    return fn


UNARY = {
    "abs": ops.abs, "absolute": ops.abs, "negative": ops.neg, "square": ops.square, "sqrt": ops.sqrt,
    "reciprocal": ops.reciprocal, "exp": ops.exp, "exp2": ops.exp2, "expm1": ops.expm1, "log": ops.log,
    "log2": ops.log2, "log10": ops.log10, "log1p": ops.log1p, "sin": ops.sin, "cos": ops.cos, "tan": ops.tan,
    "arcsin": ops.asin, "arccos": ops.acos, "arctan": ops.atan, "sinh": ops.sinh, "cosh": ops.cosh,
    "tanh": ops.tanh, "arctanh": ops.atanh, "arcsinh": ops.asinh, "arccosh": ops.acosh, "sign": ops.sign, "floor": ops.floor, "ceil": ops.ceil,
    "rint": ops.round, "deg2rad": ops.deg2rad, "radians": ops.deg2rad, "rad2deg": ops.rad2deg,
    "isnan": ops.isnan, "isinf": ops.isinf, "isfinite": ops.isfinite, "logical_not": ops.logical_not,
}  # fmt: skip
BINARY = {
    "add": ops.add, "subtract": ops.sub, "multiply": ops.mul, "floor_divide": ops.floor_div, "power": ops.pow,
    "maximum": ops.maximum, "minimum": ops.minimum, "arctan2": ops.atan2, "hypot": ops.hypot,
    "equal": ops.equal, "not_equal": ops.not_equal, "greater": ops.greater, "greater_equal": ops.greater_equal,
    "less": ops.less, "less_equal": ops.less_equal, "logical_and": ops.logical_and, "logical_or": ops.logical_or,
    "logical_xor": ops.logical_xor,
}  # fmt: skip
globals().update({name: _unary(name, op) for name, op in UNARY.items()})
globals().update({name: _binary(name, op) for name, op in BINARY.items()})


def _is_float32_or_less(x) -> bool:
    return isinstance(x, float) or (isinstance(x, Tensor) and x.dtype in (mstype.float16, mstype.float32))


def divide(x1, x2, dtype=None) -> Tensor:
    """``x1 / x2``; both are cast to float32 first unless one is float16 or float32 (as MindSpore does,
    so float64 operands give float32)."""
    a, b = asarray(operand(x1)), operand(x2)
    if not _is_float32_or_less(a) and not _is_float32_or_less(b):
        a, b = a.astype(mstype.float32), asarray(b).astype(mstype.float32)
    return cast_to(ops.div(a, b), dtype)


true_divide = divide


def positive(a, dtype=None) -> Tensor:
    """``+a``."""
    return cast_to(+asarray(a), dtype)


def clip(x, xmin, xmax, dtype=None) -> Tensor:
    """``x`` limited to [xmin, xmax] (either may be None, not both): ``ops.clip_by_value``, whose
    minimum and maximum give a value on a bound half the gradient, as mindspore.numpy's."""
    if xmin is None and xmax is None:
        raise ValueError("clip: one of xmin and xmax must be given")
    return cast_to(ops.clip_by_value(asarray(x), xmin, xmax), dtype)


def isin(element, test_elements, invert: bool = False) -> Tensor:
    """A bool Tensor of ``element``'s shape: True where the entry occurs in ``test_elements``
    (False with ``invert``); a comparison, so nothing differentiates through it."""
    if not isinstance(invert, bool):
        raise TypeError(f"isin: invert must be a bool, got {type(invert).__name__}")
    a, b = operand(element), operand(test_elements)
    values = [t.asnumpy() if isinstance(t, Tensor) else np.asarray(t) for t in (a, b)]
    return Tensor(np.isin(values[0], values[1], invert=invert))


__all__ = sorted([*UNARY, *BINARY, "clip", "divide", "isin", "positive", "true_divide"])
