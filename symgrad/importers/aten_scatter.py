"""ATen's scatters and masked picks with constant indices and masks: ``scatter`` (src and value),
``scatter_add``, ``scatter_reduce`` (sum, prod, mean, amax, amin), ``index_reduce``, ``put``,
``masked_scatter`` and ``masked_select``; ``scatter_add`` at indices computed from the inputs too.

Where each source element lands is found in NumPy from the indices (a constant of the program);
the result is then built from rows: a sum lands as ``x + M @ sources`` (M a constant 0/1 matrix,
its transpose the derivative), a product, maximum or minimum as a chain over the sources landing
on each element, so derivatives come from those rows.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.structural import broadcast_to, full, reshape
from symgrad.core.graph import Node, const
from symgrad.core.registry import Imported, apply, aten
from symgrad.errors import OpError
from symgrad.importers.picks import (
    _constant_indices,
    _landed_updates,
    _picked,
    _picked_or_zero,
    computed,
    nan_where_outside,
    wrapped,
)

_COMBINE = {"prod": "mul", "multiply": "mul", "amax": "maximum", "amin": "minimum"}


def _flat(x: Node) -> Node:
    return reshape(x, (max(math.prod(x.shape), 1),)) if x.ndim else reshape(x, (1,))


def _landed(x: Node, targets: np.ndarray, values: Node, reduce: str, include_self: bool, who: str) -> Node:
    """``x`` with source value ``values[k]`` landing on flat element ``targets[k]``, combined by
    ``reduce``: "set" (one value per element at most), "sum", "mean", "prod", "amax" or "amin";
    ``include_self`` False leaves the old value out where something lands."""
    size, count = max(math.prod(x.shape), 1), targets.size
    if size * count > 10**7:
        raise OpError(f"{who}: {count} sources into {size} elements is past symgrad's 10^7 limit")
    landing = np.zeros((size, count))
    landing[targets, np.arange(count)] = 1
    hits = landing.sum(axis=1)
    dtype = x.dtype or np.float64
    if reduce == "set" and (hits > 1).any():
        raise OpError(f"{who}: two sources land on one element (PyTorch leaves which one wins unspecified)")
    if count == 0:
        return x
    kept = _constant((hits == 0) | (include_self and reduce != "set"), x.shape, dtype)
    if reduce in ("set", "sum", "add", "mean"):
        total = apply("add", apply("mul", x, kept), _landed_updates(x, landing, values))
        if reduce != "mean":
            return total
        counts = np.where(hits == 0, 1, hits + (1 if include_self else 0))
        return apply("div", total, _constant(counts, x.shape, dtype))
    if reduce not in _COMBINE:
        raise OpError(f"{who}: reduce={reduce!r} has no row (sum, prod, mean, amax, amin do)")
    order = [np.flatnonzero(landing[t]) for t in range(size)]  # the sources of each element, in order
    flat_x = _flat(x)
    acc = flat_x
    for layer in range(int(hits.max(initial=0))):
        numbers = np.array([o[layer] if layer < len(o) else -1 for o in order])
        picks = _picked_or_zero(values, numbers)
        combined = picks if layer == 0 and not include_self else apply(_COMBINE[reduce], acc, picks)
        acc = apply("select", _constant(numbers >= 0, flat_x.shape, bool), combined, acc)
    return reshape(acc, x.shape)


def _constant(values, shape: tuple, dtype) -> Node:
    """A constant of ``shape`` holding ``values`` (as many, in flat order)."""
    return const(np.asarray(values, dtype=dtype).reshape(shape))


def _along(x: Node, dim: int, index: np.ndarray, who: str) -> np.ndarray:
    """The flat element of ``x`` each entry of ``index`` names: its own position, with axis ``dim``
    replaced by the entry (negative entries counted from the end)."""
    if x.ndim == 0:
        return np.zeros(index.size, np.int64)
    dim %= x.ndim
    grid: list[np.ndarray] = list(np.indices(index.shape))
    if index.size and (index.min() < -x.shape[dim] or index.max() >= x.shape[dim]):
        raise OpError(f"{who}: an index is out of range for axis {dim} of size {x.shape[dim]}")
    grid[dim] = index % x.shape[dim]
    if any(g.size and g.max() >= n for g, n in zip(grid, x.shape)):
        raise OpError(f"{who}: the index of shape {index.shape} is larger than the tensor {x.shape}")
    return np.ravel_multi_index(tuple(grid), x.shape).ravel() if index.size else np.zeros(0, np.int64)


def _sources(src: Node, shape: tuple) -> Node:
    """The source elements at the positions of an index of ``shape`` (src may be larger), flat."""
    if src.ndim == 0:
        return broadcast_to(reshape(src, (1,)), (max(math.prod(shape), 1),))
    numbers = (
        np.ravel_multi_index(tuple(np.indices(shape)), src.shape) if math.prod(shape) else np.zeros(0, int)
    )
    return _picked(src, np.asarray(numbers).reshape(-1))


def _scatter(x: Node, dim: int, index: Node, src, reduce: str = "set", include_self: bool = True,
             who: str = "aten.scatter") -> Node:  # fmt: skip
    src = src if isinstance(src, Node) else full((), src, x.dtype or np.float64)
    if computed(index):
        if reduce not in ("sum", "add") or not include_self or x.ndim == 0:
            raise OpError(
                f"{who}: reduce={reduce!r} at indices computed from the inputs has no row (a sum, "
                "scatter_add, has: two sources may land on one element)"
            )
        return _computed_sum(x, dim % x.ndim, index, src, who)
    picks = np.asarray(_constant_indices(index, who))
    values = _sources(src, picks.shape) if src.ndim else broadcast_to(reshape(src, (1,)), (picks.size,))
    return _landed(x, _along(x, dim, picks, who), values, reduce, include_self, who)


def _computed_sum(x: Node, dim: int, index: Node, src: Node, who: str) -> Node:
    """scatter_add at an index computed from the inputs (``max_pool``'s backward): for each value
    v along ``dim``, the sources whose index is v added to slice v; NaN everywhere where an index
    is out of range (PyTorch raises)."""
    n, count, size = x.shape[dim], max(math.prod(index.shape), 1), max(math.prod(x.shape), 1)
    if n * count * size > 10**7:
        raise OpError(
            f"{who}: {count} sources at computed indices into {size} elements is past symgrad's 10^7 limit"
        )
    values = reshape(_sources(src, index.shape) if src.ndim else broadcast_to(src, index.shape), index.shape)
    at = wrapped(index, n)
    total = x
    for v in range(n):
        chosen = apply("select", apply("equal", at, const(np.asarray(v, at.dtype))), values, 0.0)
        total = _landed(total, _along(x, dim, np.full(index.shape, v), who), _flat(chosen), "sum", True, who)
    return nan_where_outside(total, [at], [n])


def _scatter_reduce(
    x: Node, dim: int, index: Node, src: Node, reduce: str, include_self: bool = True
) -> Node:
    return _scatter(x, dim, index, src, reduce, include_self, "aten.scatter_reduce")


def _index_reduce(
    x: Node, dim: int, index: Node, source: Node, reduce: str, include_self: bool = True
) -> Node:
    """aten.index_reduce: source's slice k along ``dim`` lands on x's slice index[k]."""
    picks = np.asarray(_constant_indices(index, "aten.index_reduce")).reshape(-1)
    dim %= max(x.ndim, 1)
    full_index = picks[np.indices(source.shape)[dim]] if source.ndim else picks
    targets = _along(x, dim, full_index, "aten.index_reduce")
    return _landed(x, targets, _flat(source), reduce, include_self, "aten.index_reduce")


def _put(x: Node, index: Node, source: Node, accumulate: bool = False) -> Node:
    """aten.put: source's elements land on x's flat elements ``index`` (negative from the end)."""
    size = max(math.prod(x.shape), 1)
    picks = np.asarray(_constant_indices(index, "aten.put")).reshape(-1)
    if picks.size and (picks.min() < -size or picks.max() >= size):
        raise OpError(f"aten.put: an index is out of range for {size} elements")
    return _landed(x, picks % size, _flat(source), "sum" if accumulate else "set", True, "aten.put")


def _mask(mask: Node, shape: tuple, who: str) -> np.ndarray:
    return np.broadcast_to(np.asarray(_constant_indices(mask, who), dtype=bool), shape)


def _masked_scatter(x: Node, mask: Node, source: Node) -> Node:
    """aten.masked_scatter: source's first elements, in order, where the mask holds."""
    targets = np.flatnonzero(_mask(mask, x.shape, "aten.masked_scatter"))
    if targets.size > max(math.prod(source.shape), 1 if source.ndim == 0 else 0):
        raise OpError(
            f"aten.masked_scatter: the mask holds at {targets.size} elements, more than the source has"
        )
    values = (
        _picked(source, np.arange(targets.size)) if targets.size else full((0,), 0, x.dtype or np.float64)
    )
    return _landed(x, targets, values, "set", True, "aten.masked_scatter")


def _masked_select(x: Node, mask: Node) -> Node:
    """aten.masked_select: the elements where the (constant) mask holds, in order, as one axis."""
    shape = tuple(np.broadcast_shapes(x.shape, np.shape(_constant_indices(mask, "aten.masked_select"))))
    picks = np.flatnonzero(_mask(mask, shape, "aten.masked_select"))
    return _picked(broadcast_to(x, shape), picks)


ATEN: tuple[Imported, ...] = (
    aten("scatter.src", _scatter),
    aten("scatter.value", _scatter),
    aten("scatter.reduce", lambda x, dim, index, src, reduce: _scatter(x, dim, index, src, reduce)),
    aten("scatter.value_reduce", lambda x, dim, index, value, reduce: _scatter(x, dim, index, value, reduce)),
    aten(
        "scatter_add",
        lambda x, dim, index, src: _scatter(x, dim, index, src, "sum", True, "aten.scatter_add"),
    ),
    aten("scatter_reduce.two", _scatter_reduce),
    aten("index_reduce", _index_reduce),
    aten("put", _put),
    aten("masked_scatter", _masked_scatter),
    aten("masked_select", _masked_select),
)
