"""Functional ops (``ops.sin(x)``, ``ops.matmul(a, b)``, ...) over Tensors and numbers."""

from __future__ import annotations

from symgrad.autodiff.api import stop_gradient  # noqa: F401  (MindSpore's F.stop_gradient)
from symgrad.core.families.linalg import matmul as _matmul_node
from symgrad.core.families.structural import broadcast_to as _broadcast_node
from symgrad.core.families.structural import stack as _stack_node
from symgrad.core.registry import lookup
from symgrad.tensor import Tensor, as_operand, merge_env


def as_tensor(value, op: str, arg: str) -> Tensor:
    """``value`` as a Tensor, or a TypeError naming the op and the argument."""
    if isinstance(value, Tensor):
        return value
    try:
        return Tensor._wrap(as_operand(value), {})
    except TypeError:
        raise TypeError(
            f"{op}: argument {arg!r} must be a Tensor or a number, got {type(value).__name__}"
        ) from None


def _unary(name: str):
    display = lookup(name).display

    def fn(x):
        return as_tensor(x, display, "x")._op(name)

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {display}."
    return fn


def _binary(name: str):
    display = lookup(name).display

    def fn(x, y):
        if not isinstance(x, Tensor) and isinstance(y, Tensor):
            return y._rop(name, x)
        return as_tensor(x, display, "x")._op(name, y)

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {display} with broadcasting."
    return fn


add, sub, mul, div, pow, maximum, minimum = (
    _binary(n) for n in ("add", "sub", "mul", "div", "pow", "maximum", "minimum")
)
(
    neg, square, sqrt, exp, log, sin, cos, tan, sinh, cosh, tanh, atanh, asin, acos, atan,
    sigmoid, relu, abs, sign,
) = (
    _unary(n)
    for n in (
        "neg", "square", "sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh",
        "atanh", "asin", "acos", "atan", "sigmoid", "relu", "abs", "sign",
    )
)  # fmt: skip
arcsin, arccos, arctan, arctanh, negative = asin, acos, atan, atanh, neg


def matmul(x, y, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """Matrix (or vector) product; operands of rank 1 or 2."""
    a, b = as_tensor(x, "MatMul", "x"), as_tensor(y, "MatMul", "y")
    return Tensor._wrap(_matmul_node(a._node, b._node, transpose_a, transpose_b), merge_env(a, b))


def reduce_sum(x, axis=(), keep_dims: bool = False) -> Tensor:
    """Sum over ``axis`` (all axes when empty)."""
    return as_tensor(x, "ReduceSum", "x").sum(axis if axis != () else None, keep_dims)


def sum(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - MindSpore's name
    return as_tensor(x, "ReduceSum", "x").sum(axis, keepdims)


def mean(x, axis=None, keep_dims: bool = False) -> Tensor:
    return as_tensor(x, "ReduceMean", "x").mean(axis if axis != () else None, keep_dims)


def reshape(x, shape) -> Tensor:
    return as_tensor(x, "Reshape", "x").reshape(tuple(shape) if not isinstance(shape, int) else (shape,))


def transpose(x, perm) -> Tensor:
    return as_tensor(x, "Transpose", "x").transpose(tuple(perm))


def broadcast_to(x, shape) -> Tensor:
    t = as_tensor(x, "BroadcastTo", "x")
    return Tensor._wrap(_broadcast_node(t._node, tuple(shape)), t._env)


def stack(tensors, axis: int = 0) -> Tensor:
    ts = [as_tensor(t, "Stack", f"tensors[{i}]") for i, t in enumerate(tensors)]
    return Tensor._wrap(_stack_node([t._node for t in ts], axis), merge_env(*ts))


def squeeze(x, axis=None) -> Tensor:
    return as_tensor(x, "Squeeze", "x").squeeze(axis)


def expand_dims(x, axis: int) -> Tensor:
    return as_tensor(x, "ExpandDims", "x").expand_dims(axis)
