"""Functional ops (``ops.sin(x)``, ``ops.matmul(a, b)``, ...) over Tensors and numbers.

Ops called on tensors alone are generated from the op table (``Api.functions`` of each
record); ops with MindSpore-specific arguments are written below by hand, and
``tests/contracts/test_op_table.py`` checks that every public name a record declares exists here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from symgrad.autodiff.api import get_grad, grad, jvp, stop_gradient, value_and_grad, vjp  # noqa: F401 - public here too
from symgrad.autodiff.taylor import derivative, jet, linearize  # noqa: F401 - as in mindspore.ops.functional
from symgrad.core.families.linalg import matmul as _matmul_node
from symgrad.core.families.structural import broadcast_to as _broadcast_node
from symgrad.core.families.structural import concatenate as _concatenate_node
from symgrad.core.families.structural import fold as _fold_node
from symgrad.core.families.structural import stack as _stack_node
from symgrad.core.registry import OPS, OpDef
from symgrad.errors import OpError
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


def generated_function(op: OpDef, public_name: str):
    """``public_name(x)`` or ``public_name(x, y)`` applying ``op`` (numbers accepted)."""
    fn: Callable
    if op.arity == 1:

        def unary(x):
            return as_tensor(x, op.display, "x")._op(op.name)

        fn = unary
        fn.__doc__ = f"Elementwise {op.display}."
    elif op.arity == 2:

        def binary(x, y):
            if not isinstance(x, Tensor) and isinstance(y, Tensor):
                return y._rop(op.name, x)
            return as_tensor(x, op.display, "x")._op(op.name, y)

        fn = binary
        fn.__doc__ = f"Elementwise {op.display} with broadcasting."
    else:
        raise TypeError(f"op {op.display}: only unary and binary ops get generated functions")
    fn.__name__ = fn.__qualname__ = public_name
    return fn


GENERATED = {
    name: generated_function(op, name) for op in OPS.values() if op.api.generated for name in op.api.functions
}
globals().update(GENERATED)
if TYPE_CHECKING:  # for type checkers: the functions above (F.sin, F.square, ...) are generated

    def __getattr__(name: str) -> Callable[..., Tensor]: ...


def matmul(x, y, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """Matrix (or vector) product. Operands of rank 1 or 2 are one MatMul; past rank 2 the leading
    axes are batch axes that broadcast, and a rank-1 operand is a vector, as in NumPy's matmul."""
    a, b = as_tensor(x, "MatMul", "x"), as_tensor(y, "MatMul", "y")
    if a.ndim <= 2 and b.ndim <= 2:
        return Tensor._wrap(_matmul_node(a._node, b._node, transpose_a, transpose_b), merge_env(a, b))
    if (a.ndim == 1 and transpose_a) or (b.ndim == 1 and transpose_b):
        raise OpError(f"MatMul: a vector (rank 1) cannot be transposed; shapes {a.shape} and {b.shape}")
    inner_a = a.shape[-2] if transpose_a else a.shape[-1]
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-1] if transpose_b else b.shape[-2]
    if inner_a != inner_b:
        raise OpError(f"MatMul: x {a.shape} and y {b.shape} are not aligned: {inner_a} != {inner_b}")
    product = batch_matmul(a.reshape((1, -1)) if a.ndim == 1 else a, b.reshape((-1, 1)) if b.ndim == 1 else b,
                           transpose_a, transpose_b)  # fmt: skip
    if a.ndim == 1:
        product = product.reshape(product.shape[:-2] + product.shape[-1:])
    if b.ndim == 1:
        product = product.reshape(product.shape[:-1])
    return product


def _swap_last(t: Tensor) -> Tensor:
    return t.transpose(tuple(range(t.ndim - 2)) + (t.ndim - 1, t.ndim - 2))


def batch_matmul(x, y, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """Matrix products over the leading (batch) axes of two tensors of rank >= 3 (batch axes broadcast)."""
    a, b = as_tensor(x, "BatchMatMul", "x"), as_tensor(y, "BatchMatMul", "y")
    if a.ndim < 2 or b.ndim < 2:
        raise OpError(f"BatchMatMul: both arguments need rank >= 2, got shapes {a.shape} and {b.shape}")
    if transpose_a:
        a = _swap_last(a)
    if transpose_b:
        b = _swap_last(b)
    if a.shape[-1] != b.shape[-2]:
        raise OpError(f"BatchMatMul: shapes {a.shape} and {b.shape} do not chain (inner sizes differ)")
    # (..., n, k, 1) * (..., 1, k, m) summed over k
    return reduce_sum(a.expand_dims(a.ndim) * b.expand_dims(b.ndim - 2), -2)


def reduce_sum(x, axis=(), keep_dims: bool = False) -> Tensor:
    """Sum over ``axis`` (all axes when empty)."""
    return as_tensor(x, "ReduceSum", "x").sum(axis if axis != () else None, keep_dims)


def sum(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - MindSpore's name
    """Sum over ``axis`` (all axes when None)."""
    return as_tensor(x, "ReduceSum", "x").sum(axis, keepdims)


def mean(x, axis=None, keep_dims: bool = False) -> Tensor:
    """Mean over ``axis`` (all axes when None or empty): a sum divided by the count."""
    return as_tensor(x, "ReduceMean", "x").mean(axis if axis != () else None, keep_dims)


def reshape(x, shape) -> Tensor:
    """``x`` with a new shape (one ``-1`` allowed)."""
    return as_tensor(x, "Reshape", "x").reshape(tuple(shape) if not isinstance(shape, int) else (shape,))


def transpose(x, perm) -> Tensor:
    """``x`` with its axes permuted by ``perm``."""
    return as_tensor(x, "Transpose", "x").transpose(tuple(perm))


def broadcast_to(x, shape) -> Tensor:
    """``x`` broadcast to ``shape`` (NumPy rules)."""
    t = as_tensor(x, "BroadcastTo", "x")
    return Tensor._wrap(_broadcast_node(t._node, tuple(shape)), t._env)


def stack(tensors, axis: int = 0) -> Tensor:
    """Tensors of one shape stacked along a new ``axis``."""
    ts = [as_tensor(t, "Stack", f"tensors[{i}]") for i, t in enumerate(tensors)]
    return Tensor._wrap(_stack_node([t._node for t in ts], axis), merge_env(*ts))


def cast(x, dtype) -> Tensor:
    """``x`` converted to ``dtype`` (a symgrad/MindSpore dtype, NumPy dtype or name)."""
    return as_tensor(x, "Cast", "input_x").astype(dtype)


def ones_like(x) -> Tensor:
    """A constant of ones with ``x``'s shape and dtype."""
    t = as_tensor(x, "OnesLike", "input")
    return Tensor(np.ones(t.shape, t.dtype.np))


def zeros_like(x) -> Tensor:
    """A constant of zeros with ``x``'s shape and dtype."""
    t = as_tensor(x, "ZerosLike", "input")
    return Tensor(np.zeros(t.shape, t.dtype.np))


def addn(x) -> Tensor:
    """The elementwise sum of a tuple or list of tensors."""
    if not isinstance(x, tuple | list) or not x:
        raise TypeError(f"AddN: argument 'x' must be a non-empty tuple or list of Tensors, got {x!r:.60}")
    total = as_tensor(x[0], "AddN", "x[0]")
    for i, t in enumerate(x[1:], 1):
        total = total + as_tensor(t, "AddN", f"x[{i}]")
    return total


def split(tensor, split_size_or_sections, axis: int = 0) -> tuple:
    """Pieces of ``tensor`` along ``axis``: of one size (an int; the last may be shorter) or the sizes given."""
    t = as_tensor(tensor, "Split", "tensor")
    length = t.shape[axis]
    if isinstance(split_size_or_sections, int):
        sizes = [split_size_or_sections] * (length // split_size_or_sections)
        if length % split_size_or_sections:
            sizes.append(length % split_size_or_sections)
    else:
        sizes = list(split_size_or_sections)
    if sum(sizes) != length:
        raise ValueError(f"Split: sections {sizes} do not add up to axis {axis} of shape {t.shape}")
    pieces, start = [], 0
    for size in sizes:
        index = (slice(None),) * (axis % t.ndim) + (slice(start, start + size),)
        pieces.append(t[index])
        start += size
    return tuple(pieces)


def concat(tensors, axis: int = 0) -> Tensor:
    """Tensors joined along an existing ``axis``; every other axis must agree."""
    ts = [as_tensor(t, "Concat", f"tensors[{i}]") for i, t in enumerate(tensors)]
    if not ts:
        raise OpError("Concat: needs at least one tensor")
    rank = ts[0].ndim
    if rank == 0 or not -rank <= axis < rank:
        raise OpError(f"Concat: axis {axis} is out of range for tensors of shape {ts[0].shape}")
    axis %= rank
    others = {t.shape[:axis] + t.shape[axis + 1 :] if t.ndim == rank else None for t in ts}
    if len(others) != 1 or None in others:
        raise OpError(
            f"Concat: the tensors must agree on every axis but {axis}; got shapes {[t.shape for t in ts]}"
        )
    if len({t.shape for t in ts}) == 1:  # equal pieces: a stack and a reshape reads best in closed forms
        shape = list(ts[0].shape)
        joined = stack(ts, axis)  # (..., k, n, ...) -> (..., k * n, ...)
        return joined.reshape(tuple(shape[:axis] + [len(ts) * shape[axis]] + shape[axis + 1 :]))
    return Tensor._wrap(_concatenate_node([t._node for t in ts], axis), merge_env(*ts))


def reduction_axes(t: Tensor, axis, op: str) -> list[int]:
    """``axis`` (an int, a sequence, or ()/None for all) as sorted distinct non-negative axes of ``t``."""
    if axis in ((), None):
        return list(range(t.ndim))
    axes = np.atleast_1d(axis).tolist()
    for a in axes:
        if not -t.ndim <= a < max(t.ndim, 1):
            raise OpError(f"{op}: axis {a} is out of range for a tensor of shape {t.shape}")
    return sorted({a % max(t.ndim, 1) for a in axes})


def fold_axes(t: Tensor, axis, combine: str, keep_dims: bool, op: str) -> Tensor:
    """The op ``combine`` chained over the slices along each axis in ``axis`` (all when empty), e.g. a maximum."""
    axes = tuple(reduction_axes(t, axis, op))
    return Tensor._wrap(_fold_node(t._node, axes, keep_dims, combine), t._env)


def reduce_max(x, axis=(), keep_dims: bool = False) -> Tensor:
    """The maximum over ``axis`` (all axes when empty), as a chain of Maximum ops (ties share the gradient)."""
    return fold_axes(as_tensor(x, "ReduceMax", "x"), axis, "maximum", keep_dims, "ReduceMax")


def vmap(fn, in_axes=0, out_axes=0):
    """``fn`` mapped over an axis of its inputs: one traced call per example, results stacked on ``out_axes``."""

    def mapped(*args):
        axes = in_axes if isinstance(in_axes, tuple | list) else (in_axes,) * len(args)
        sizes = {a.shape[ax] for a, ax in zip(args, axes) if ax is not None and isinstance(a, Tensor)}
        if len(sizes) != 1:
            raise ValueError(f"vmap: the mapped axes of the inputs must have one size, got {sorted(sizes)}")
        results = []
        for i in range(sizes.pop()):
            example = [a if ax is None else a[(slice(None),) * ax + (i,)] for a, ax in zip(args, axes)]
            results.append(fn(*example))
        if isinstance(results[0], tuple | list):
            return tuple(stack([r[k] for r in results], out_axes) for k in range(len(results[0])))
        return stack(results, out_axes)

    return mapped


def squeeze(x, axis=None) -> Tensor:
    """``x`` without its size-1 axes (those in ``axis`` when given): a reshape."""
    return as_tensor(x, "Squeeze", "x").squeeze(axis)


def expand_dims(x, axis: int) -> Tensor:
    """``x`` with a size-1 axis inserted at ``axis``: a reshape."""
    return as_tensor(x, "ExpandDims", "x").expand_dims(axis)


__all__ = sorted(
    [
        *GENERATED,
        "addn",
        "batch_matmul",
        "broadcast_to",
        "cast",
        "concat",
        "expand_dims",
        "matmul",
        "mean",
        "reduce_sum",
        "reshape",
        "squeeze",
    ]
    + [
        "get_grad",
        "ones_like",
        "reduce_max",
        "split",
        "vmap",
        "stack",
        "stop_gradient",
        "sum",
        "transpose",
        "zeros_like",
    ]
    + ["derivative", "grad", "jet", "jvp", "linearize", "value_and_grad", "vjp"]
)
