"""What a tensor is (dtype, shape, size, rank) and MindSpore's ordering helpers (depend, print_).

None of these adds a node to the graph: they read a tensor's static facts or pass it through.
"""

from __future__ import annotations

from symgrad.dtype import DType as _DTypeValue
from symgrad.ops.functional import as_tensor
from symgrad.ops.hooks import Print
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor


def dtype(input) -> _DTypeValue:  # noqa: A002 - MindSpore's name
    """The dtype of ``input`` (``ops.dtype(x) == mstype.float32``)."""
    return as_tensor(input, "DType", "input").dtype


def shape(input_x) -> tuple[int, ...]:
    """The shape of ``input_x`` as a tuple of ints."""
    return as_tensor(input_x, "Shape", "input_x").shape


def size(input_x) -> int:
    """The number of elements of ``input_x``."""
    return as_tensor(input_x, "Size", "input_x").size


def rank(input_x) -> int:
    """The number of axes of ``input_x``."""
    return as_tensor(input_x, "Rank", "input_x").ndim


def depend(value, expr):
    """``value`` unchanged: MindSpore's graph-mode ordering hint (``expr`` runs first; here it already has)."""
    return value


def print_(*input_x) -> None:
    """Print strings and tensors, as ``ops.Print()``."""
    Print()(*input_x)


class DType(Primitive):
    """``DType()(x)``: the dtype of ``x``."""

    def __call__(self, x) -> _DTypeValue:
        return dtype(x)


class Rank(Primitive):
    """``Rank()(x)``: the number of axes."""

    def __call__(self, x) -> int:
        return rank(x)


class Size(Primitive):
    """``Size()(x)``: the number of elements."""

    def __call__(self, input_x) -> int:
        return size(input_x)


class Depend(Primitive):
    """``Depend()(value, expr)``: ``value``."""

    def __call__(self, value, expr) -> Tensor:
        return depend(value, expr)


__all__ = sorted(["dtype", "depend", "print_", "rank", "shape", "size", "DType", "Depend", "Rank", "Size"])
