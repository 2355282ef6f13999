"""A kernel's function run over a batch a chunk of points at a time, so that memory is bounded."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import ModuleType

from symgrad.core.graph import Node, Var


def in_chunks(
    fn: Callable,
    args: Sequence[Var],
    outputs: Sequence[Node],
    reductions: Sequence[str | None],
    values: Sequence,
    consts: list,
    batch: tuple,
    size: int,
    xp: ModuleType,
) -> list:
    """``fn(*values, consts, batch)`` computed ``size`` points at a time (arrays of module ``xp``).

    Values without batch axes (weights) are shared by every chunk; per-point outputs are
    concatenated, batch-reduced outputs (sums: the caller divides a mean) summed over the chunks.
    """
    n = math.prod(batch)
    flat = [
        None
        if value.ndim == var.ndim
        else xp.broadcast_to(value, batch + var.shape).reshape((n,) + var.shape)
        for var, value in zip(args, values)
    ]
    pieces: list[list] = [[] for _ in outputs]
    for start in range(0, n, size):
        stop = min(start + size, n)
        chunk = [v if f is None else f[start:stop] for v, f in zip(values, flat)]
        for k, value in enumerate(fn(*chunk, consts, (stop - start,))):
            pieces[k].append(value)
    out = []
    for node, reduction, parts in zip(outputs, reductions, pieces):
        if reduction is not None:
            out.append(sum(parts[1:], parts[0]))
        else:
            starts = range(0, n, size)
            parts = [xp.broadcast_to(p, (min(s + size, n) - s,) + node.shape) for s, p in zip(starts, parts)]
            out.append(xp.concatenate(parts).reshape(batch + node.shape))
    return out
