"""Picks by constant integer indices (advanced indexing, index_select, gather, embedding, JAX's
gathers and scatters): one getitem per element of the result, stacked, so exact derivatives
(repeated picks add up) come from the rows already there. The indices are data of the program (a
buffer, a literal); at indices computed from the inputs (``x[argmax(y)]``, a row permutation) a
pick is the constant pick at each value they can take, chosen where they take it
(:func:`chosen_by_value`)."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import broadcast_to, full, getitem, reduce_sum, reshape, stack
from symgrad.core.graph import Const, Node, const
from symgrad.core.registry import LINEAR, apply, lookup, make_node
from symgrad.errors import OpError


def _constant_indices(index: Node, who: str) -> np.ndarray:
    value = constant_value(index)
    kind = (index.dtype or np.asarray(value).dtype).kind if value is not None else ""  # a literal: its own
    if value is None or kind not in ("i", "u", "b"):
        raise OpError(
            f"{who}: the indices must be integer constants of the program (a buffer, a literal, or "
            f"a slice, view or reshape of one); got {index} (indices computed from the inputs are not supported)"
        )
    return value


def constant_value(node: Node) -> np.ndarray | None:
    """The value of a constant, or of structural ops (slices, views, detach) of constants; else None."""
    if isinstance(node, Const):
        return np.asarray(node.value)
    if not node.args:  # an input
        return None
    op = lookup(node.op)
    if op.passes_value:  # stop_gradient (PyTorch's detach of a literal)
        return constant_value(node.args[0])
    if op.kind != LINEAR:
        return None
    values = [constant_value(a) for a in node.args]
    if any(v is None for v in values):
        return None
    return np.asarray(op.sympy(values, node))


def _element_numbers(shape) -> np.ndarray:
    """Each element's position in the flat order, laid out in ``shape``."""
    return np.arange(math.prod(shape)).reshape(shape)


MAX_PICKS = 100_000  # elements a pick builds one node each for (past it: an error, not a long wait)


def _picked(x: Node, sources: np.ndarray, frozen: np.ndarray | None = None) -> Node:
    """The node whose element at each position of ``sources`` is element ``sources[...]`` of flat
    ``x``; where ``frozen`` holds, that element passes no gradient (stop_gradient)."""
    if sources.size > MAX_PICKS:
        raise OpError(
            f"a pick of {sources.size} elements (shape {sources.shape}) from a tensor of shape {x.shape}: "
            f"symgrad builds one node per picked element, at most {MAX_PICKS}"
        )
    if sources.size == 0:
        return full(sources.shape, 0, x.dtype or np.float64)
    flat = reshape(x, (math.prod(x.shape),))
    items = [getitem(flat, (int(k),)) for k in sources.ravel()]
    if frozen is not None:
        items = [apply("stop_gradient", item) if f else item for item, f in zip(items, frozen.ravel())]
    return reshape(stack(items, 0), sources.shape)


def _picked_or_zero(x: Node, numbers: np.ndarray) -> Node:
    """``_picked`` with zeros where ``numbers`` is negative (a gather's dropped indices)."""
    mask = numbers >= 0
    picked = _picked(x, np.where(mask, numbers, 0))
    return apply("mul", picked, const(mask.astype(x.dtype or np.float64)))


def _numbers_picked(who: str, pick) -> np.ndarray:
    """``pick()`` on an array of element numbers, its out-of-range indices reported as ``who``'s."""
    try:
        return np.asarray(pick())
    except IndexError as e:
        raise OpError(f"{who}: {e}") from None


def _landed_updates(x: Node, landed: np.ndarray, updates: Node) -> Node:
    """The updates placed where ``landed`` (x's size by the updates' count, 0/1) puts them, in x's shape."""
    matrix = const(landed.astype(x.dtype or np.float64))
    return reshape(
        make_node("matmul", (matrix, reshape(updates, (landed.shape[1],))), (False, False)), x.shape
    )


# ----- picks at indices computed from the inputs -----

MAX_CHOICES = 1_000_000  # candidate index values times picked elements, for computed indices


def computed(index) -> bool:
    """Whether integer ``index`` is computed from the inputs (not a constant of the program)."""
    return (
        isinstance(index, Node)
        and constant_value(index) is None
        and (index.dtype is not None and index.dtype.kind in "iu")
    )


def chosen_by_value(
    indices: list[Node], ranges: list[int], build, place, default: Node | None, who: str
) -> Node:
    """A pick at ``indices`` computed from the inputs (ints, each taking values in
    ``range(ranges[k])``): ``build(values)``, the pick at those constant values, for each tuple
    of values, chosen (select) where every index equals its value (``place`` puts that mask, in
    the indices' shape, in the pick's); ``default`` where none does (None: the first pick). So the
    derivative reaches the picked elements only, as the framework's own does."""
    count = math.prod(ranges)
    values = list(np.ndindex(*ranges))
    if not values:  # an axis of length 0: every index is out of range
        if default is None:
            raise OpError(f"{who}: indices computed from the inputs into an axis of length 0")
        return default
    first = build(values[0])
    if count * math.prod(first.shape) > MAX_CHOICES:
        raise OpError(
            f"{who}: indices computed from the inputs take {count} values, each a pick of "
            f"{math.prod(first.shape)} elements; symgrad builds at most {MAX_CHOICES} picked elements"
        )
    chosen = (
        first if default is None else apply("select", place(equal_to(indices, values[0])), first, default)
    )
    for value in values[1:]:
        chosen = apply("select", place(equal_to(indices, value)), build(value), chosen)
    return chosen


def equal_to(nodes: list[Node], values) -> Node:
    """Where every one of ``nodes`` equals its entry of ``values`` (their broadcast shape)."""
    hits = [apply("equal", n, const(np.asarray(v, n.dtype))) for n, v in zip(nodes, values)]
    where = hits[0]
    for hit in hits[1:]:
        where = apply("select", where, hit, False)
    return where


def clamped(v: Node, top: int) -> Node:
    """``v`` clamped into [0, top] (JAX's clip of an index)."""
    low = apply("select", apply("less", v, 0), const(np.asarray(0, v.dtype)), v)
    return apply("select", apply("greater", low, top), const(np.asarray(top, v.dtype)), low)


def wrapped(v: Node, size: int) -> Node:
    """``v`` with a negative index counted from the end (PyTorch's and NumPy's rule)."""
    return apply("select", apply("less", v, 0), apply("add", v, const(np.asarray(size, v.dtype))), v)


def nan_where_outside(result: Node, indices: list[Node], sizes: list[int]) -> Node:
    """``result``, NaN everywhere where an element of one of ``indices`` (negatives already
    counted from the end) lies outside ``[0, size)``: where PyTorch raises."""
    inside = [
        apply("select", apply("less", i, 0), False, apply("less", i, const(np.asarray(n, i.dtype))))
        for i, n in zip(indices, sizes)
    ]
    outside = apply("equal", equal_to(inside, [True] * len(inside)), False)
    some = apply("greater", reduce_sum(cast(outside, np.int64)), 0)
    return apply("add", result, apply("select", some, math.nan, 0.0))


def placed(mask: Node, shape: tuple, axes: list[int]) -> Node:
    """``mask`` on ``axes`` of ``shape`` (its axes in order), broadcast over the others."""
    inner = iter(mask.shape)
    return broadcast_to(
        reshape(mask, tuple(next(inner) if d in axes else 1 for d in range(len(shape)))), shape
    )
