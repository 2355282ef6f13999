"""Builders of the structural ops' nodes and the argument normalisation they share: what rules,
front ends, other families and the importers call to make a broadcast, a sum, a reshape, a slice."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.graph import Node, const
from symgrad.core.registry import apply, make_node
from symgrad.errors import OpError

# ----- the structural ops' nodes -----


def broadcast_to(x: Node, shape) -> Node:
    return make_node("broadcast_to", (x,), (tuple(shape),))


def reduce_sum(x: Node, axes=None, keepdims: bool = False) -> Node:
    return make_node("reduce_sum", (x,), (normalize_axes("ReduceSum", axes, x.ndim), keepdims))


def reshape(x: Node, shape) -> Node:
    return make_node("reshape", (x,), (resolve_shape(x.shape, shape),))


def transpose(x: Node, perm=None) -> Node:
    perm = (
        tuple(reversed(range(x.ndim))) if perm is None else tuple(p % x.ndim if x.ndim else p for p in perm)
    )
    return make_node("transpose", (x,), (perm,))


def getitem(x: Node, index) -> Node:
    return make_node("getitem", (x,), (normalize_index(x.shape, index),))


def stack(xs, axis: int = 0) -> Node:
    xs = tuple(xs)
    if xs and -xs[0].ndim - 1 <= axis < 0:  # stored non-negative: kernels and rules add batch axes in front
        axis += xs[0].ndim + 1
    return make_node("stack", xs, (axis,))


def fold(x: Node, axes, keepdims: bool, combine: str) -> Node:
    """The op ``combine`` chained over the slices along each of ``axes`` (all when None or ()):
    a maximum (``"maximum"``) or a product (``"mul"``) over axes, built from the table's rows. A
    0-d ``x`` is its own fold (PyTorch's dim 0 of a 0-d tensor)."""
    if x.ndim == 0:
        return x
    for a in reversed(normalize_axes(combine, axes, x.ndim)):
        slices = [getitem(x, (slice(None),) * a + (i,)) for i in range(x.shape[a])]
        total = slices[0]
        for piece in slices[1:]:
            total = apply(combine, total, piece)
        x = reshape(total, x.shape[:a] + (1,) + x.shape[a + 1 :]) if keepdims else total
    return x


def full(shape, value, dtype) -> Node:
    """A constant of ``shape`` filled with ``value`` in ``dtype``."""
    return broadcast_to(const(np.asarray(value, dtype=dtype)), tuple(shape))


def zeros_like(x: Node) -> Node:
    return full(x.shape, 0, x.dtype or np.float64)


def unbroadcast(x: Node, shape) -> Node:
    """Sum ``x`` down to ``shape`` (the transpose of broadcasting)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and x.shape[lead + i] != 1
    )
    return reshape(reduce_sum(x, axes), shape)


# ----- argument normalisation -----


def normalize_axes(display: str, axes, ndim: int) -> tuple[int, ...]:
    """Axes as sorted non-negative ints; None or () means all axes (MindSpore)."""
    if axes is None or axes == ():
        return tuple(range(ndim))
    if isinstance(axes, int):
        axes = (axes,)
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise OpError(f"{display}: axis {ax} is out of range for a tensor of rank {ndim}")
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise OpError(f"{display}: repeated axis in {tuple(axes)}")
    return tuple(sorted(out))


def resolve_shape(old, new) -> tuple[int, ...]:
    """A target shape with one ``-1`` resolved; the element count must match."""
    new = (new,) if isinstance(new, int) else tuple(int(d) for d in new)
    size = math.prod(old)
    if new.count(-1) > 1:
        raise OpError(f"Reshape: at most one -1 is allowed in the shape {new}")
    if -1 in new:
        known = math.prod(d for d in new if d != -1)
        if known == 0 or size % known:
            raise OpError(f"Reshape: cannot reshape {tuple(old)} into {new}")
        new = tuple(size // known if d == -1 else d for d in new)
    if math.prod(new) != size:
        raise OpError(f"Reshape: cannot reshape {tuple(old)} ({size} elements) into {new}")
    return new


def normalize_index(shape, index) -> tuple:
    """Basic indexing as a full-length tuple of ints and (start, stop, step) triples."""
    if not isinstance(index, tuple):
        index = (index,)
    if len(index) > len(shape):
        raise OpError(f"getitem: too many indices {index} for a tensor of shape {tuple(shape)}")
    out = []
    for item, dim in zip(index, shape):
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer, slice)):
            raise OpError(
                f"getitem: index {item!r} is not supported (use ints and slices) "
                f"for a tensor of shape {tuple(shape)}"
            )
        if isinstance(item, slice):
            out.append(item.indices(dim))
        elif not -dim <= item < dim:
            raise OpError(f"getitem: index {item} is out of range for an axis of size {dim}")
        else:
            out.append(int(item) % dim)
    out.extend((0, d, 1) for d in shape[len(out) :])
    return tuple(out)


def index_to_python(index: tuple) -> tuple:
    """The normalized index as Python ints and slices.

    ``slice.indices`` gives stop -1 for a reversed slice that runs past the start;
    as a slice bound -1 would mean the last element, so it becomes None.
    """
    return tuple(slice(i[0], None if i[1] < 0 else i[1], i[2]) if isinstance(i, tuple) else i for i in index)


def _indexed_shape(shape, index) -> tuple[int, ...]:
    return tuple(len(range(*i)) for i in index if isinstance(i, tuple))


# ----- axes, joins and running sums that front ends, rules and importers share -----


def aten_dims(x: Node, dim) -> tuple[int, ...] | None:
    """ATen's ``dim`` of a reduction as axes (None: every axis); a 0-d tensor has no axis to reduce
    (PyTorch takes dim 0 or -1 there as the tensor itself): ()."""
    if x.ndim == 0:
        return ()
    return (dim,) if isinstance(dim, int) else tuple(dim) if dim else None


def along(rank: int, dim: int, item) -> tuple:
    """An index taking ``item`` (an int or a slice) on axis ``dim`` and every other axis whole."""
    at: list = [slice(None)] * rank
    at[dim] = item
    return tuple(at)


def concatenate(tensors, dim: int = 0) -> Node:
    """The tensors joined along ``dim``, as a sum of scatters: each piece placed into its slot."""
    pieces = [t for t in tensors if t.shape != (0,)]  # PyTorch skips legacy empty tensors
    dim = dim % pieces[0].ndim
    shape = list(pieces[0].shape)
    shape[dim] = sum(p.shape[dim] for p in pieces)
    placed, start = [], 0
    for p in pieces:
        at = along(len(shape), dim, slice(start, start + p.shape[dim]))
        start += p.shape[dim]
        placed.append(make_node("scatter", (p,), (normalize_index(tuple(shape), at), tuple(shape))))
    total = placed[0]
    for piece in placed[1:]:
        total = apply("add", total, piece)
    return total


def lead_aligned(g: Node, rank: int) -> Node:
    """``g`` (a batch on its leading axis) with ones inserted after that axis, so that each item
    broadcasts against a rank-``rank`` value as NumPy would."""
    missing = rank - (g.ndim - 1)
    return g if missing <= 0 else reshape(g, (g.shape[0],) + (1,) * missing + g.shape[1:])


def running_sum(x: Node, axis: int, exclusive: bool = False, reverse: bool = False) -> Node:
    """Running sums along ``axis`` (``exclusive``: each leaves out its own entry; ``reverse``: from
    the end): one addition per entry, so the gradient is the running sum of the cotangent the
    other way."""
    if x.ndim == 0:  # PyTorch's dim 0 of a 0-d tensor: the tensor itself
        return x
    axis %= x.ndim
    order = range(x.shape[axis] - 1, -1, -1) if reverse else range(x.shape[axis])
    sums: dict[int, Node] = {}
    running = None
    for k in order:
        entry = getitem(x, along(x.ndim, axis, k))
        if exclusive:
            sums[k] = zeros_like(entry) if running is None else running
        running = entry if running is None else apply("add", running, entry)
        if not exclusive:
            sums[k] = running
    return stack([sums[k] for k in range(x.shape[axis])], axis)
