"""Jacobian blocks as graph nodes: one sweep per output element (reverse) or input element (forward)."""

from __future__ import annotations

import numpy as np

from symgrad.autodiff.engine import jvp_sweep, vjp_sweep
from symgrad.core.families.structural import full, reshape, stack, zeros_like
from symgrad.core.graph import Node, Var, const


def one_hot(shape, index, dtype) -> Node:
    arr = np.zeros(shape, dtype=dtype)
    arr[index] = 1
    return const(arr)


def jacobian_node(out: Node, x: Var, mode: str | None = None) -> Node:
    """d out / d x with shape ``out.shape + x.shape``.

    ``mode`` is "rev" (one reverse sweep per output element), "fwd" (one forward sweep
    per input element) or None (whichever needs fewer sweeps).
    """
    if 0 in out.shape or 0 in x.shape:  # nothing to differentiate: an empty block
        return full(out.shape + x.shape, 0, out.dtype or x.dtype)
    if mode is None:
        mode = "rev" if np.prod(out.shape) <= np.prod(x.shape) else "fwd"
    if mode == "rev":
        dtype = out.dtype or x.dtype
        parts = [vjp_sweep([(out, one_hot(out.shape, i, dtype))], [x])[0] for i in np.ndindex(out.shape)]
        parts = [zeros_like(x) if p is None else p for p in parts]
        return reshape(stack(parts, 0), out.shape + x.shape)
    parts = [jvp_sweep([out], {x: one_hot(x.shape, i, x.dtype)})[0] for i in np.ndindex(x.shape)]
    parts = [zeros_like(out) if p is None else p for p in parts]
    return reshape(stack(parts, out.ndim), out.shape + x.shape)
