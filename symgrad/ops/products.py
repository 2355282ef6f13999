"""Products that contract axes: dot, inner, outer, tensor_dot, each one matrix product (MatMul)
between reshaped operands, so their derivatives are MatMul's."""

from __future__ import annotations

import math

from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.tensor import Tensor


def _contract(a: Tensor, b: Tensor, axes_a: tuple[int, ...], axes_b: tuple[int, ...], op: str) -> Tensor:
    """Sum over ``axes_a`` of ``a`` paired with ``axes_b`` of ``b``; the result keeps a's other axes, then b's."""
    axes_a, axes_b = tuple(x % a.ndim for x in axes_a), tuple(x % b.ndim for x in axes_b)
    if [a.shape[x] for x in axes_a] != [b.shape[x] for x in axes_b]:
        raise OpError(f"{op}: shapes {a.shape} and {b.shape} are not aligned on axes {axes_a} and {axes_b}")
    keep_a = tuple(x for x in range(a.ndim) if x not in axes_a)
    keep_b = tuple(x for x in range(b.ndim) if x not in axes_b)
    inner = math.prod(a.shape[x] for x in axes_a)
    left = a.transpose(keep_a + axes_a).reshape((-1, inner))
    right = b.transpose(axes_b + keep_b).reshape((inner, -1))
    return F.matmul(left, right).reshape(
        tuple(a.shape[x] for x in keep_a) + tuple(b.shape[x] for x in keep_b)
    )


def dot(input, other) -> Tensor:  # noqa: A002 - MindSpore's name
    """NumPy's dot: the last axis of ``input`` with the second-to-last of ``other`` (its only one for 1-D)."""
    a, b = F.as_tensor(input, "dot", "input"), F.as_tensor(other, "dot", "other")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return _contract(a, b, (-1,), (-1 if b.ndim == 1 else -2,), "dot")


def inner(input, other) -> Tensor:  # noqa: A002 - MindSpore's name
    """The last axes of both summed together (a product for 0-d operands)."""
    a, b = F.as_tensor(input, "inner", "input"), F.as_tensor(other, "inner", "other")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return _contract(a, b, (-1,), (-1,), "inner")


def outer(input, vec2) -> Tensor:  # noqa: A002 - MindSpore's name
    """Every product ``input[i] * vec2[j]`` (both flattened)."""
    a, b = F.as_tensor(input, "outer", "input"), F.as_tensor(vec2, "outer", "vec2")
    return a.reshape((-1, 1)) * b.reshape((1, -1))


def tensor_dot(x1, x2, axes) -> Tensor:
    """Sum over axis pairs: ``axes`` an int n (the last n of x1 with the first n of x2) or two sequences."""
    a, b = F.as_tensor(x1, "tensor_dot", "x1"), F.as_tensor(x2, "tensor_dot", "x2")
    if isinstance(axes, int):
        of_a, of_b = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        of_a, of_b = ((x,) if isinstance(x, int) else tuple(x) for x in axes)
    if not of_a and not of_b:
        return a.reshape(a.shape + (1,) * b.ndim) * b
    return _contract(a, b, of_a, of_b, "tensor_dot")


__all__ = ["dot", "inner", "outer", "tensor_dot"]
