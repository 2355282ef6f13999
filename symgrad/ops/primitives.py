"""MindSpore's op classes: ``ops.MatMul()(x, y)``, ``ops.Sin()(x)``, ..."""

from __future__ import annotations

from symgrad.ops import functional as F


class Primitive:
    """An op object: configure in ``__init__``, call on tensors."""

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


def _simple(name: str, fn) -> type:
    """An op class whose call is ``fn`` (so its arguments keep their names, x and y)."""
    call = staticmethod(fn)
    return type(name, (Primitive,), {"__call__": call, "construct": call, "__doc__": fn.__doc__})


Add, Sub, Mul, Div, Pow, Maximum, Minimum = (
    _simple(n, getattr(F, n.lower())) for n in ("Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum")
)
RealDiv = _simple("RealDiv", F.div)
Neg, Square, Sqrt, Exp, Log, Sin, Cos, Tan, Sinh, Cosh, Tanh, Atanh, Asin, Acos, Atan, Sigmoid, Abs, Sign = (
    _simple(n, getattr(F, n.lower()))
    for n in (
        "Neg", "Square", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Tanh",
        "Atanh", "Asin", "Acos", "Atan", "Sigmoid", "Abs", "Sign",
    )
)  # fmt: skip
ReLU = _simple("ReLU", F.relu)


class MatMul(Primitive):
    """``MatMul(transpose_a=False, transpose_b=False)(x, y)``."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        return F.matmul(x, y, self.transpose_a, self.transpose_b)


class ReduceSum(Primitive):
    """``ReduceSum(keep_dims=False)(x, axis=())``: all axes when ``axis`` is empty."""

    def __init__(self, keep_dims: bool = False):
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        return F.reduce_sum(x, axis, self.keep_dims)


class ReduceMean(ReduceSum):
    """``ReduceMean(keep_dims=False)(x, axis=())``."""

    def __call__(self, x, axis=()):
        return F.mean(x, axis, self.keep_dims)


class Transpose(Primitive):
    """``Transpose()(x, perm)``."""

    def __call__(self, x, perm):
        return F.transpose(x, perm)


class Reshape(Primitive):
    """``Reshape()(x, shape)``."""

    def __call__(self, x, shape):
        return F.reshape(x, shape)


class StopGradient(Primitive):
    def __call__(self, x):
        from symgrad.autodiff.api import stop_gradient

        return stop_gradient(x)
