"""Functional ops (``ops.sin(x)``, ``ops.matmul(a, b)``, ...) over Tensors and numbers.

Ops called on tensors alone are generated from the op table (``Api.functions`` of each
record); ops with MindSpore-specific arguments are written below by hand, and
``tests/test_op_table.py`` checks that every public name a record declares exists here.
"""

from __future__ import annotations

from symgrad.autodiff.api import stop_gradient  # noqa: F401 - public here, defined with the API
from symgrad.core.families.linalg import matmul as _matmul_node
from symgrad.core.families.structural import broadcast_to as _broadcast_node
from symgrad.core.families.structural import stack as _stack_node
from symgrad.core.registry import OPS, OpDef
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
    if op.arity == 1:

        def fn(x):
            return as_tensor(x, op.display, "x")._op(op.name)

        fn.__doc__ = f"Elementwise {op.display}."
    elif op.arity == 2:

        def fn(x, y):
            if not isinstance(x, Tensor) and isinstance(y, Tensor):
                return y._rop(op.name, x)
            return as_tensor(x, op.display, "x")._op(op.name, y)

        fn.__doc__ = f"Elementwise {op.display} with broadcasting."
    else:
        raise TypeError(f"op {op.display}: only unary and binary ops get generated functions")
    fn.__name__ = fn.__qualname__ = public_name
    return fn


GENERATED = {
    name: generated_function(op, name) for op in OPS.values() if op.api.generated for name in op.api.functions
}
globals().update(GENERATED)


def matmul(x, y, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """Matrix (or vector) product; operands of rank 1 or 2."""
    a, b = as_tensor(x, "MatMul", "x"), as_tensor(y, "MatMul", "y")
    return Tensor._wrap(_matmul_node(a._node, b._node, transpose_a, transpose_b), merge_env(a, b))


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


def squeeze(x, axis=None) -> Tensor:
    """``x`` without its size-1 axes (those in ``axis`` when given): a reshape."""
    return as_tensor(x, "Squeeze", "x").squeeze(axis)


def expand_dims(x, axis: int) -> Tensor:
    """``x`` with a size-1 axis inserted at ``axis``: a reshape."""
    return as_tensor(x, "ExpandDims", "x").expand_dims(axis)


__all__ = sorted(
    [*GENERATED, "broadcast_to", "expand_dims", "matmul", "mean", "reduce_sum", "reshape", "squeeze"]
    + ["stack", "stop_gradient", "sum", "transpose"]
)
