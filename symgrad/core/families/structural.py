"""Structural ops: broadcast_to, reduce_sum, reshape, transpose, getitem, scatter, stack.

All are linear, so their forward derivative is the op applied to the tangents and
their reverse derivative is a transpose rule. Backend templates receive the
argument code ``{0}``, params ``{p0}, {p1}``, argument ranks ``{r0}`` and the
output rank ``{rank}``: kernels index from the trailing axes so that any leading
batch axes pass through untouched.
"""

from __future__ import annotations

import math

import numpy as np
import sympy

from symgrad.core.families.conversion import cast
from symgrad.core.graph import Const, Node, const
from symgrad.core.registry import (
    GATHER,
    LINEAR,
    REDUCTION,
    Api,
    OpDef,
    apply,
    aten,
    lax,
    lookup,
    make_node,
    register,
)
from symgrad.errors import OpError

# ----- builders used by rules and front ends -----


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


# ----- ATen's structural ops, written with these (PyTorch's argument conventions) -----


def aten_dims(x: Node, dim) -> tuple[int, ...] | None:
    """ATen's ``dim`` of a reduction as axes (None: every axis); a 0-d tensor has no axis to reduce
    (PyTorch takes dim 0 or -1 there as the tensor itself): ()."""
    if x.ndim == 0:
        return ()
    return (dim,) if isinstance(dim, int) else tuple(dim) if dim else None


def _aten_sum(x: Node, dim=None, keepdim: bool = False, dtype=None) -> Node:
    """aten.sum: over ``dim`` (None or [] means every axis)."""
    return reduce_sum(x, aten_dims(x, dim), keepdim) if x.ndim else x


def _aten_mean(x: Node, dim=None, keepdim: bool = False, dtype=None) -> Node:
    """aten.mean: the sum over ``dim`` divided by the number of its elements."""
    if x.ndim == 0:
        return x
    axes = normalize_axes("mean", aten_dims(x, dim), x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    return apply("div", reduce_sum(x, axes, keepdim), count)


def _aten_var_mean(x: Node, dim=None, correction=None, keepdim: bool = False) -> tuple[Node, Node]:
    """aten.var_mean: the variance (dividing by n - correction, default 1) and the mean over ``dim``
    (``var_mean.default``'s one argument is ``unbiased``: every axis)."""
    if isinstance(dim, bool):
        dim, correction = None, int(dim)
    axes = normalize_axes("var_mean", tuple(dim) if dim else None, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    mean = apply("div", reduce_sum(x, axes, True), count)
    squares = reduce_sum(apply("square", apply("sub", x, mean)), axes, keepdim)
    variance = apply("div", squares, count - (1 if correction is None else correction))
    return variance, mean if keepdim else reshape(mean, variance.shape)


def _aten_expand(x: Node, size, implicit: bool = False) -> Node:
    """aten.expand: broadcast to ``size``; -1 keeps the axis as it is."""
    lead = len(size) - x.ndim
    return broadcast_to(x, tuple(x.shape[i - lead] if d == -1 else d for i, d in enumerate(size)))


def _aten_unsqueeze_all(x: Node, dims) -> Node:
    """New axes of size 1 at each of ``dims`` (positions in the result)."""
    rank = x.ndim + len(dims)
    new = {d % rank for d in dims}
    sizes = iter(x.shape)
    return reshape(x, tuple(1 if i in new else next(sizes) for i in range(rank)))


def _aten_squeeze(x: Node, dim=None) -> Node:
    """aten.squeeze: drop the given axes (every axis without ``dim``) that have size 1."""
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:  # squeeze.dims([]): none
        return x
    axes = normalize_axes("squeeze", dim, x.ndim) if dim is not None else range(x.ndim)
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if not (i in axes and d == 1)))


def along(rank: int, dim: int, item) -> tuple:
    """An index taking ``item`` (an int or a slice) on axis ``dim`` and every other axis whole."""
    at: list = [slice(None)] * rank
    at[dim] = item
    return tuple(at)


def _aten_select(x: Node, dim: int, index: int) -> Node:
    return getitem(x, along(x.ndim, dim, index))


def _aten_slice(x: Node, dim: int = 0, start=None, end=None, step: int = 1) -> Node:
    return getitem(x, along(x.ndim, dim, slice(start, end, step)))


def _diagonal_index(shape, offset: int, dim1: int, dim2: int, i: int) -> tuple:
    """The index of a diagonal's ``i``-th element: ``i`` on ``dim1`` and ``i + offset`` on ``dim2``
    (rows shifted instead for a negative offset), every other axis whole."""
    at: list = [slice(None)] * len(shape)
    at[dim1 % len(shape)] = i - min(offset, 0)
    at[dim2 % len(shape)] = i + max(offset, 0)
    return tuple(at)


def _diagonal_length(shape, offset: int, dim1: int, dim2: int) -> int:
    return max(0, min(shape[dim1] + min(offset, 0), shape[dim2] - max(offset, 0)))


def _aten_diagonal(x: Node, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Node:
    """aten.diagonal: the diagonal of the (dim1, dim2) planes, on a new last axis."""
    n = _diagonal_length(x.shape, offset, dim1, dim2)
    return stack([getitem(x, _diagonal_index(x.shape, offset, dim1, dim2, i)) for i in range(n)], -1)


def _replaced(x: Node, index: tuple, src: Node) -> Node:
    """``x`` with the region ``index`` (ints and slices) replaced by ``src``."""
    at = normalize_index(x.shape, index)
    old = make_node("scatter", (getitem(x, index),), (at, x.shape))
    new = make_node("scatter", (broadcast_to(src, _indexed_shape(x.shape, at)),), (at, x.shape))
    return apply("add", apply("sub", x, old), new)


def _aten_diagonal_scatter(x: Node, src: Node, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Node:
    """aten.diagonal_scatter: ``x`` with that diagonal replaced by ``src`` (diagonal on its last axis)."""
    for i in range(_diagonal_length(x.shape, offset, dim1, dim2)):
        x = _replaced(
            x,
            _diagonal_index(x.shape, offset, dim1, dim2, i),
            getitem(src, (*[slice(None)] * (src.ndim - 1), i)),
        )
    return x


def _aten_slice_scatter(x: Node, src: Node, dim: int = 0, start=None, end=None, step: int = 1) -> Node:
    return _replaced(x, along(x.ndim, dim, slice(start, end, step)), src)


def _aten_select_scatter(x: Node, src: Node, dim: int, index: int) -> Node:
    return _replaced(x, along(x.ndim, dim, index), src)


def _aten_split(x: Node, split_sizes, dim: int = 0) -> tuple[Node, ...]:
    """aten.split_with_sizes: consecutive slices of the given sizes along ``dim``."""
    pieces, start = [], 0
    for size in split_sizes:
        pieces.append(_aten_slice(x, dim, start, start + size))
        start += size
    return tuple(pieces)


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


def _aten_full(size, fill_value, dtype=None, **_placement) -> Node:
    """aten.full (and the constants scalar_tensor and full_like make)."""
    return full(tuple(size), fill_value, dtype or np.float32)


# ----- padding and sliding windows (convolutions, pooling) -----


def padded(x: Node, pads, value: float = 0.0) -> Node:
    """``x`` with ``pads[a] = (before, after)`` elements of ``value`` added on each axis ``a``: a
    scatter into the larger shape, plus a constant border of ``value`` (such as -inf) if not 0."""
    shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, pads))
    if shape == x.shape:
        return x
    at = normalize_index(shape, tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, pads)))
    out = make_node("scatter", (x,), (at, shape))
    if value == 0:
        return out
    border = np.full(shape, value, dtype=x.dtype or np.float64)
    border[index_to_python(at)] = 0
    return apply("add", out, const(border))


def _aten_constant_pad_nd(x: Node, pad, value: float = 0.0) -> Node:
    """aten.constant_pad_nd: ``pad`` holds (before, after) pairs from the last axis backwards; a
    negative amount crops."""
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        pairs[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    x = getitem(x, tuple(slice(max(-lo, 0), d - max(-hi, 0)) for d, (lo, hi) in zip(x.shape, pairs)))
    return padded(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs], value)


def windows(x: Node, kernel, stride, dilation, out) -> list[tuple[tuple[int, ...], Node]]:
    """Each tap of a window sliding over the trailing ``len(kernel)`` axes of ``x`` (in row-major
    order), with the elements it meets at the ``out`` window positions: ``x[..., t*d :: s]``."""
    lead = (slice(None),) * (x.ndim - len(kernel))
    taps = []
    for tap in np.ndindex(*kernel):
        strided = (slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, o, s in zip(tap, dilation, out, stride))
        taps.append((tap, getitem(x, lead + tuple(strided))))
    return taps


def per_axis(value, dims: int) -> tuple[int, ...]:
    """PyTorch's int-or-list argument of a ``dims``-d op as one int per axis."""
    values = (value,) if isinstance(value, int) else tuple(value)
    return values * dims if len(values) == 1 else values


def pool_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """The number of windows PyTorch's pooling fits on an axis of ``n`` (its ``pooling_output_shape``)."""
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= n + p else out


def pooling_windows(x: Node, dims: int, kernel, stride, padding, dilation, ceil_mode: bool, fill: float):
    """PyTorch's pooling windows over the last ``dims`` axes of ``x``: their taps (see ``windows``) on
    ``x`` padded with ``fill`` (wider on the right where ``ceil_mode`` keeps a window that runs past
    the end), and their number on each axis."""
    k, p, d = per_axis(kernel, dims), per_axis(padding, dims), per_axis(dilation, dims)
    s = per_axis(stride, dims) if stride else k
    spatial = x.shape[x.ndim - dims :]
    out = tuple(pool_size(*args, ceil_mode) for args in zip(spatial, k, s, p, d))
    if min(out, default=1) < 1:
        raise OpError(f"pooling: a {k} window (padding {p}, dilation {d}) does not fit the input {spatial}")
    right = [
        max(p_, (o - 1) * s_ + d_ * (k_ - 1) + 1 - n - p_)
        for n, k_, s_, p_, d_, o in zip(spatial, k, s, p, d, out)
    ]
    pads = [(0, 0)] * (x.ndim - dims) + list(zip(p, right))
    return windows(padded(x, pads, fill), k, s, d, out), out, (k, s, p)


def _aten_avg_pool(x: Node, kernel_size, stride=(), padding=0, ceil_mode: bool = False,
                   count_include_pad: bool = True, divisor_override=None, *, dims: int) -> Node:  # fmt: skip
    """aten.avg_pool1d/2d/3d: each window's sum divided by its size (with the padding it covers where
    ``count_include_pad``, never past it), or by ``divisor_override``."""
    taps, out, (k, s, p) = pooling_windows(x, dims, kernel_size, stride, padding, 1, ceil_mode, 0.0)
    total = taps[0][1]
    for _, window in taps[1:]:
        total = apply("add", total, window)
    if divisor_override:
        return apply("div", total, divisor_override)
    sizes = []
    for n, o, k_, s_, p_ in zip(x.shape[x.ndim - dims :], out, k, s, p):
        start = np.arange(o) * s_ - p_
        end = np.minimum(start + k_, n + p_)
        sizes.append(end - start if count_include_pad else np.minimum(end, n) - np.maximum(start, 0))
    divisor = np.ones(out)
    for axis, size in enumerate(sizes):
        divisor = divisor * size.reshape([-1 if a == axis else 1 for a in range(dims)])
    return apply("div", total, const(divisor.astype(x.dtype or np.float64)))


def adaptive_windows(n: int, o: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive pooling windows of an axis of ``n`` into ``o``: [floor(i n / o), ceil((i + 1) n / o))."""
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


def _aten_adaptive_avg_pool(x: Node, output_size, *, dims: int) -> Node:
    """aten.adaptive_avg_pool1d/2d/3d: the mean of each adaptive window, taken one axis at a time."""
    for axis, o in zip(range(x.ndim - dims, x.ndim), per_axis(output_size, dims)):
        spans = adaptive_windows(x.shape[axis], o)
        x = stack(
            [
                apply("div", reduce_sum(getitem(x, along(x.ndim, axis, slice(a, b))), axis), b - a)
                for a, b in spans
            ],
            axis,
        )
    return x


# ----- picks by constant integer indices (advanced indexing, index_select, gather, embedding) -----
# One getitem per element of the result, stacked: exact derivatives (repeated picks add up) from
# the rows already there. The indices are data of the program (a buffer, a literal); indices
# computed from the inputs have no row.


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


def _numbers_picked(who: str, pick) -> np.ndarray:
    """``pick()`` on an array of element numbers, its out-of-range indices reported as ``who``'s."""
    try:
        return np.asarray(pick())
    except IndexError as e:
        raise OpError(f"{who}: {e}") from None


def _aten_index(x: Node, indices) -> Node:
    """aten.index.Tensor: ``x[i0, i1, ...]`` with index tensors (None for a whole axis), NumPy's rules."""
    index = tuple(slice(None) if i is None else _constant_indices(i, "aten.index") for i in indices)
    return _picked(x, _numbers_picked("aten.index", lambda: _element_numbers(x.shape)[index]))


def _aten_index_put(x: Node, indices, values: Node, accumulate: bool = False) -> Node:
    """aten.index_put (``x[i0, i1, ...] = values``, ``+=`` with ``accumulate``), constant indices:
    each update lands on the element ``aten.index`` would pick there (``x + M @ updates``, M 0/1)."""
    index = tuple(slice(None) if i is None else _constant_indices(i, "aten.index_put") for i in indices)
    numbers = _numbers_picked("aten.index_put", lambda: _element_numbers(x.shape)[index])
    size = math.prod(x.shape)
    if size * numbers.size > 10**7:
        raise OpError(
            f"aten.index_put: {numbers.size} updates into {size} elements is past symgrad's 10^7 limit"
        )
    landed = np.zeros((size, numbers.size))
    np.add.at(landed, (numbers.ravel(), np.arange(numbers.size)), 1)
    updates = broadcast_to(values, numbers.shape)
    if accumulate:
        return apply("add", x, _landed_updates(x, landed, updates))
    hits = landed.sum(axis=1)
    if (hits > 1).any():
        raise OpError(
            "aten.index_put: two updates land on one element (PyTorch leaves which one wins unspecified)"
        )
    kept = const((1.0 - hits).reshape(x.shape).astype(x.dtype or np.float64))
    return apply("add", apply("mul", x, kept), _landed_updates(x, landed, updates))


def _aten_index_select(x: Node, dim: int, index: Node) -> Node:
    picks = _constant_indices(index, "aten.index_select")
    if x.ndim == 0:  # PyTorch takes a 0-d tensor as one element along dim 0
        return reshape(_picked(reshape(x, (1,)), np.asarray(picks).reshape(-1)), ())
    return _picked(
        x, _numbers_picked("aten.index_select", lambda: np.take(_element_numbers(x.shape), picks, axis=dim))
    )


def _aten_gather(x: Node, dim: int, index: Node, sparse_grad: bool = False) -> Node:
    """aten.gather: ``out[p] = x[p with axis dim replaced by index[p]]`` (index may be shorter on
    the other axes)."""
    picks = _constant_indices(index, "aten.gather")
    dim %= x.ndim
    window = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(picks.shape))
    numbers = _element_numbers(x.shape)[window]
    return _picked(x, _numbers_picked("aten.gather", lambda: np.take_along_axis(numbers, picks, axis=dim)))


def _aten_embedding(weight: Node, indices: Node, padding_idx: int = -1, scale_grad_by_freq: bool = False,
                    sparse: bool = False) -> Node:  # fmt: skip
    """aten.embedding: rows of ``weight``; the ``padding_idx`` row passes no gradient, as in PyTorch."""
    if scale_grad_by_freq:
        raise OpError(
            "aten.embedding: scale_grad_by_freq=True (gradients scaled by frequency) is not supported"
        )
    picks = _constant_indices(indices, "aten.embedding")
    rows = _numbers_picked("aten.embedding", lambda: np.take(_element_numbers(weight.shape), picks, axis=0))
    frozen = np.broadcast_to((picks == padding_idx)[..., None], rows.shape) if padding_idx >= 0 else None
    return _picked(weight, rows, frozen)


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


def _aten_cumsum(x: Node, dim: int, dtype=None) -> Node:
    return running_sum(x if dtype is None else cast(x, dtype), dim)


# ----- JAX's structural primitives, written with these (jax.lax's conventions) -----


def _lax_broadcast_in_dim(x: Node, shape, broadcast_dimensions) -> Node:
    """lax.broadcast_in_dim: ``x``'s axis i becomes axis ``broadcast_dimensions[i]`` of ``shape``."""
    placed = [1] * len(shape)
    for axis, dim in zip(broadcast_dimensions, x.shape):
        placed[axis] = dim
    return broadcast_to(reshape(x, tuple(placed)), tuple(shape))


def _lax_iota(dtype, shape, dimension: int) -> Node:
    """lax.iota: 0, 1, 2, ... along ``dimension`` of ``shape`` (a constant)."""
    ramp = np.arange(shape[dimension], dtype=dtype).reshape(
        [-1 if i == dimension else 1 for i in range(len(shape))]
    )
    return broadcast_to(const(ramp), tuple(shape))


def _lax_reshape(x: Node, new_sizes, dimensions=None) -> Node:
    if dimensions is not None:
        x = transpose(x, dimensions)
    return reshape(x, tuple(new_sizes))


def _lax_slice(x: Node, start_indices, limit_indices, strides=None) -> Node:
    steps = strides or (1,) * x.ndim
    return getitem(x, tuple(slice(a, b, c) for a, b, c in zip(start_indices, limit_indices, steps)))


def _reversed(x: Node, dims) -> Node:
    """aten.flip and lax.rev: ``x`` read backwards along ``dims``."""
    flipped = {d % x.ndim for d in dims}
    return getitem(x, tuple(slice(None, None, -1) if d in flipped else slice(None) for d in range(x.ndim)))


def _lax_split(x: Node, sizes, axis: int) -> tuple[Node, ...]:
    return _aten_split(x, [int(s) for s in sizes], axis)


def _lax_cumsum(x: Node, axis: int, reverse: bool = False) -> Node:
    return running_sum(x, axis, reverse=reverse)


def _lax_gather(x: Node, indices: Node, dimension_numbers, slice_sizes, mode=None, fill_value=None,
                **_hints) -> Node:  # fmt: skip
    """lax.gather with constant indices: JAX's own gather run on the element numbers says which
    element each output element is (out of range: clipped, or filled with zeros, as ``mode`` says)."""
    from jax import lax as jax_lax  # only JAX programs have this primitive

    picks = _constant_indices(indices, "lax.gather")
    if fill_value not in (None, 0, 0.0) and not (isinstance(fill_value, float) and math.isnan(fill_value)):
        raise OpError(f"lax.gather: fill_value={fill_value!r} is not supported (zeros are)")
    numbers = np.asarray(jax_lax.gather(
        _element_numbers(x.shape), picks, jax_lax.GatherDimensionNumbers(*dimension_numbers),
        tuple(slice_sizes), mode=mode, fill_value=-1,
    ))  # fmt: skip
    return _picked(x, numbers) if (numbers >= 0).all() else _picked_or_zero(x, numbers)


def _lax_scatter_add(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
    """lax.scatter-add with constant indices (``x.at[i].add(v)``): JAX's own scatter-add of each
    one-hot update says where that update lands, so the result is ``x + M @ updates`` with M a
    constant 0/1 matrix (dropped updates land nowhere); its derivative is M's transpose."""
    landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, "lax.scatter-add")
    return apply("add", x, _landed_updates(x, landed, updates))


def _constant_starts(starts, shape, sizes, who: str) -> tuple:
    """lax's dynamic start indices as constants, clamped as JAX clamps them (the slice fits)."""
    values = [_constant_indices(s if isinstance(s, Node) else const(np.asarray(s)), who) for s in starts]
    return tuple(int(np.clip(int(v), 0, dim - size)) for v, dim, size in zip(values, shape, sizes))


def _lax_dynamic_slice(x: Node, *starts, slice_sizes) -> Node:
    """lax.dynamic_slice at constant starts (a loop counter, once unrolled): a slice."""
    at = _constant_starts(starts, x.shape, slice_sizes, "lax.dynamic_slice")
    return getitem(x, tuple(slice(a, a + n) for a, n in zip(at, slice_sizes)))


def _lax_dynamic_update_slice(x: Node, update: Node, *starts) -> Node:
    """lax.dynamic_update_slice at constant starts: ``x`` with that block replaced by ``update``."""
    at = _constant_starts(starts, x.shape, update.shape, "lax.dynamic_update_slice")
    return _replaced(x, tuple(slice(a, a + n) for a, n in zip(at, update.shape)), update)


def _lax_scatter(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
    """lax.scatter (``x.at[i].set(v)``) with constant indices: where each update lands, found by
    JAX's own scatter-add of one-hot updates; those elements of ``x`` are replaced."""
    landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, "lax.scatter")
    hits = landed.sum(axis=1)
    if (hits > 1).any():
        raise OpError("lax.scatter: two updates land on one element (JAX leaves which one wins unspecified)")
    kept = const((1.0 - hits).reshape(x.shape).astype(x.dtype or np.float64))
    return apply("add", apply("mul", x, kept), _landed_updates(x, landed, updates))


def _landed_updates(x: Node, landed: np.ndarray, updates: Node) -> Node:
    """The updates placed where ``landed`` (x's size by the updates' count, 0/1) puts them, in x's shape."""
    matrix = const(landed.astype(x.dtype or np.float64))
    return reshape(
        make_node("matmul", (matrix, reshape(updates, (landed.shape[1],))), (False, False)), x.shape
    )


def _landing_matrix(x: Node, indices: Node, updates: Node, dimension_numbers, mode, who: str) -> np.ndarray:
    """(size of x, number of updates): 1 where an update lands, by JAX's own scatter-add."""
    import jax
    from jax import lax as jax_lax  # only JAX programs have these primitives

    picks = _constant_indices(indices, who)
    size, count = math.prod(x.shape), math.prod(updates.shape)
    if size * count > 10**7:
        raise OpError(f"{who}: {count} updates into {size} elements is past symgrad's 10^7 limit")
    numbers = jax_lax.ScatterDimensionNumbers(*dimension_numbers)
    one_hot = np.eye(count).reshape((count, *updates.shape))
    landed = jax.vmap(lambda e: jax_lax.scatter_add(np.zeros(x.shape), picks, e, numbers, mode=mode))(one_hot)
    return np.asarray(landed).reshape(count, size).T


def _picked_or_zero(x: Node, numbers: np.ndarray) -> Node:
    """``_picked`` with zeros where ``numbers`` is negative (a gather's dropped indices)."""
    mask = numbers >= 0
    picked = _picked(x, np.where(mask, numbers, 0))
    return apply("mul", picked, const(mask.astype(x.dtype or np.float64)))


# ----- shape inference -----


def _infer_broadcast(args, params):
    (x,), (shape,) = args, params
    try:
        ok = tuple(np.broadcast_shapes(x.shape, shape)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise OpError(f"broadcast_to: cannot broadcast {x.shape} to {shape}")
    return shape, x.dtype


def _infer_reduce(args, params):
    (x,), (axes, keepdims) = args, params
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(x.shape)), x.dtype
    return tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype


def _infer_transpose(args, params):
    (x,), (perm,) = args, params
    if sorted(perm) != list(range(x.ndim)):
        raise OpError(f"Transpose: perm {perm} is not a permutation of the {x.ndim} axes of {x.shape}")
    return tuple(x.shape[p] for p in perm), x.dtype


def _infer_scatter(args, params):
    (x,), (index, shape) = args, params
    if _indexed_shape(shape, index) != x.shape:
        raise OpError(f"scatter: update of shape {x.shape} does not fit index {index} of {shape}")
    return shape, x.dtype


def _infer_stack(args, params):
    (axis,) = params
    shapes = {a.shape for a in args}
    if not args or len(shapes) != 1:
        raise OpError(f"Stack: all tensors need the same shape, got {[a.shape for a in args]}")
    shape = args[0].shape
    if not -len(shape) - 1 <= axis <= len(shape):
        raise OpError(f"Stack: axis {axis} is out of range for rank {len(shape)}")
    axis %= len(shape) + 1
    dtypes = [a.dtype for a in args if a.dtype is not None]
    return shape[:axis] + (len(args),) + shape[axis:], np.result_type(*dtypes) if dtypes else None


# ----- simplifications -----


def _simplify_reshape(args, params):
    (x,), (shape,) = args, params
    if x.shape == shape:
        return x
    if x.op == "reshape":
        return reshape(x.args[0], shape)
    return None


def _simplify_transpose(args, params):
    (x,), (perm,) = args, params
    return x if perm == tuple(range(x.ndim)) else None


def _simplify_broadcast(args, params):
    (x,), (shape,) = args, params
    if x.shape == shape:
        return x
    if x.op == "broadcast_to":
        return broadcast_to(x.args[0], shape)
    return None


def _simplify_reduce(args, params):
    (x,), (axes, _) = args, params
    return x if not axes else None


def _simplify_getitem(args, params):
    (x,), (index,) = args, params
    full = all(isinstance(i, tuple) and i == (0, d, 1) for i, d in zip(index, x.shape))
    return x if full else None


# ----- transpose rules (reverse mode) -----


def _t_broadcast(node, ct):
    return (unbroadcast(ct, node.args[0].shape),)


def _t_reduce(node, ct):
    x = node.args[0]
    axes, keepdims = node.params
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return (broadcast_to(reshape(ct, kept), x.shape),)


def _t_reshape(node, ct):
    return (reshape(ct, node.args[0].shape),)


def _t_transpose(node, ct):
    return (transpose(ct, tuple(np.argsort(node.params[0]).tolist())),)


def _t_getitem(node, ct):
    return (make_node("scatter", (ct,), (node.params[0], node.args[0].shape)),)


def _t_scatter(node, ct):
    return (make_node("getitem", (ct,), (node.params[0],)),)


def _t_stack(node, ct):
    axis = node.params[0] % node.ndim
    picks = []
    for k in range(len(node.args)):
        index: list[slice | int] = [slice(None)] * node.ndim
        index[axis] = k
        picks.append(getitem(ct, tuple(index)))
    return tuple(picks)


# ----- batched rules (a batch of tangents on a new leading axis; forward Laplacian) -----


def lead_aligned(g: Node, rank: int) -> Node:
    """``g`` (a batch on its leading axis) with ones inserted after that axis, so that each item
    broadcasts against a rank-``rank`` value as NumPy would."""
    missing = rank - (g.ndim - 1)
    return g if missing <= 0 else reshape(g, (g.shape[0],) + (1,) * missing + g.shape[1:])


def _b_broadcast(node, tangents):
    (g,), (shape,) = tangents, node.params
    return broadcast_to(lead_aligned(g, len(shape)), (g.shape[0], *shape))


def _b_reduce(node, tangents):
    (g,), (axes, keepdims) = tangents, node.params
    return make_node("reduce_sum", (g,), (tuple(a + 1 for a in axes), keepdims))


def _b_reshape(node, tangents):
    (g,) = tangents
    return reshape(g, (g.shape[0], *node.shape))


def _b_transpose(node, tangents):
    (g,) = tangents
    return transpose(g, (0, *(p + 1 for p in node.params[0])))


def _b_getitem(node, tangents):
    (g,) = tangents
    return make_node("getitem", (g,), (((0, g.shape[0], 1), *node.params[0]),))


def _b_scatter(node, tangents):
    (g,), (index, shape) = tangents, node.params
    return make_node("scatter", (g,), (((0, g.shape[0], 1), *index), (g.shape[0], *shape)))


def _b_stack(node, tangents):
    d = next(g.shape[0] for g in tangents if g is not None)
    axis = node.params[0] % node.ndim
    item = node.shape[:axis] + node.shape[axis + 1 :]
    rows = [
        broadcast_to(zeros_like(a), (d, *item))
        if g is None
        else broadcast_to(lead_aligned(g, len(item)), (d, *item))
        for a, g in zip(node.args, tangents)
    ]
    values = [_constant(r) for r in rows]
    if all(v is not None for v in values):  # constant directions (input seeds) stay one constant
        return const(np.stack(values, axis + 1))
    return stack(rows, axis + 1)


def _constant(node: Node):
    """The array a constant (or a broadcast constant) holds, else None."""
    if node.op == "broadcast_to" and isinstance(node.args[0], Const):
        return np.broadcast_to(node.args[0].value, node.shape)
    return np.asarray(node.value) if isinstance(node, Const) else None


# ----- closed forms on object arrays -----


def _sym_reduce(arrays, node):
    (x,) = arrays
    axes, keepdims = node.params
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(axes)] + (-1,))
    out = np.empty(flat.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sympy.Add(*flat[idx])
    return out.reshape(node.shape)


def _sym_scatter(arrays, node):
    index, shape = node.params
    out = np.full(shape, sympy.Integer(0), dtype=object)
    update = arrays[0]
    # a 0-d object array assigned to one element would be stored as the array itself
    out[index_to_python(index)] = update[()] if update.ndim == 0 else update
    return out


# ----- how explanations write them -----


def _show_index(node, args):
    index = ", ".join(
        str(i) if not isinstance(i, tuple) else ":" if i[2] == 1 else f"::{i[2]}" for i in node.params[0]
    )
    return f"{args[0]}[{index}]"


def _show_with_shape(node, args):
    return f"{node.op}({args[0]}, {node.shape})"


def _linear(name, display, arity, infer, transpose_rule, sympy_fn, numpy, mindspore, **traits):
    """A linear op: no C spelling (the C printer lowers it by its pattern, GATHER by default)."""
    register(
        OpDef(
            name=name,
            display=display,
            kind=LINEAR,
            arity=arity,
            infer=infer,
            sympy=sympy_fn,
            transpose=transpose_rule,
            spellings={"numpy": numpy, "mindspore": mindspore},
            pattern=traits.pop("pattern", GATHER),
            **traits,
        )
    )


_linear(
    "broadcast_to", "BroadcastTo", 1, _infer_broadcast, _t_broadcast,
    lambda arrays, node: np.broadcast_to(arrays[0], node.shape),
    numpy="rt.broadcast_to({0}, {r0}, {p0})", mindspore="rt.broadcast_to({0}, {r0}, {p0})",
    simplify=_simplify_broadcast, notation=_show_with_shape,
    batched=_b_broadcast,
    api=Api(("BroadcastTo",), ("broadcast_to",), generated=False),
    imports=(
        aten("expand", _aten_expand),
        aten("full", _aten_full),
        aten("full_like", lambda x, fill_value, dtype=None, **_kw: _aten_full(x.shape, fill_value, dtype or x.dtype)),
        aten("scalar_tensor", lambda s, dtype=None, **_kw: _aten_full((), s, dtype)),
        aten("_efficientzerotensor", lambda size, dtype=None, **_kw: _aten_full(size, 0, dtype)),
        # storage a program fills before it reads it (its values are unspecified; zeros here)
        aten("empty", lambda size, dtype=None, **_kw: _aten_full(size, 0, dtype)),
        aten("expand_copy", _aten_expand),
        # copy(self, src): src's values (broadcast) in self's shape and dtype
        aten("copy", lambda x, src, non_blocking=False: broadcast_to(cast(src, x.dtype or np.float32), x.shape)),
        lax("broadcast_in_dim", _lax_broadcast_in_dim),
        lax("iota", _lax_iota),
    ),
)  # fmt: skip
_linear(
    "reduce_sum", "ReduceSum", 1, _infer_reduce, _t_reduce, _sym_reduce,
    numpy="rt.reduce_sum({0}, {r0}, {p0}, {p1})",
    mindspore="rt.reduce_sum({0}, {r0}, {p0}, {p1})", simplify=_simplify_reduce, pattern=REDUCTION,
    notation=lambda node, args: f"Σ_{list(node.params[0])} {args[0]}",
    batched=_b_reduce,
    api=Api(("ReduceSum",), ("reduce_sum", "sum"), generated=False),
    imports=(
        aten("sum", _aten_sum),
        aten("mean", _aten_mean),
        aten("var_mean", _aten_var_mean),
        aten("var", lambda *a, **k: _aten_var_mean(*a, **k)[0]),
        aten("cumsum", _aten_cumsum),
        *(aten(f"avg_pool{n}d", lambda *a, n=n, **k: _aten_avg_pool(*a, **k, dims=n)) for n in (1, 2, 3)),
        *(aten(f"{prefix}adaptive_avg_pool{n}d", lambda x, size, n=n: _aten_adaptive_avg_pool(x, size, dims=n))
          for prefix, n in (("", 1), ("", 2), ("", 3), ("_", 2), ("_", 3))),  # fmt: skip
        lax("reduce_sum", lambda x, axes: reduce_sum(x, tuple(axes))),
        lax("cumsum", _lax_cumsum),
    ),
)  # fmt: skip
_linear(
    "reshape", "Reshape", 1,
    lambda args, params: (params[0], args[0].dtype), _t_reshape,
    lambda arrays, node: arrays[0].reshape(node.shape),
    numpy="rt.reshape({0}, {r0}, {p0})", mindspore="rt.reshape({0}, {r0}, {p0})",
    simplify=_simplify_reshape, keeps_order=True, notation=_show_with_shape,
    batched=_b_reshape,
    api=Api(("Reshape",), ("reshape",), generated=False),
    imports=(
        *(aten(name, reshape) for name in ("view", "_unsafe_view", "reshape", "view_copy")),
        aten("unsqueeze", lambda x, dim: _aten_unsqueeze_all(x, (dim,))),
        aten("squeeze", _aten_squeeze),
        # copies (values unchanged): the same shape
        *(aten(name, lambda x, **_format: x) for name in ("clone", "alias", "lift_fresh_copy")),
        lax("reshape", _lax_reshape),
        lax("squeeze", lambda x, dimensions: _aten_squeeze(x, list(dimensions))),
        lax("expand_dims", lambda x, dimensions: _aten_unsqueeze_all(x, dimensions)),
        *(lax(name, lambda x: x) for name in ("copy", "copy_p")),
    ),
)  # fmt: skip
_linear(
    "transpose", "Transpose", 1, _infer_transpose, _t_transpose,
    lambda arrays, node: np.transpose(arrays[0], node.params[0]),
    numpy="rt.transpose({0}, {p0})", mindspore="rt.transpose({0}, {p0})",
    simplify=_simplify_transpose, notation=lambda node, args: f"{args[0]}ᵀ{list(node.params[0])}",
    batched=_b_transpose,
    api=Api(("Transpose",), ("transpose",), generated=False),
    imports=(
        aten("permute", transpose),
        aten("permute_copy", transpose),
        aten("t", transpose),
        lax("transpose", lambda x, permutation: transpose(x, permutation)),
    ),
)  # fmt: skip
_linear(
    "getitem", "getitem", 1,
    lambda args, params: (_indexed_shape(args[0].shape, params[0]), args[0].dtype),
    _t_getitem, lambda arrays, node: arrays[0][index_to_python(node.params[0])],
    batched=_b_getitem,
    numpy="rt.getitem({0}, {p0})", mindspore="rt.getitem({0}, {p0})",
    simplify=_simplify_getitem, notation=_show_index, api=Api(operators=("__getitem__",), generated=False),
    imports=(
        aten("select.int", _aten_select),
        aten("select_copy.int", _aten_select),
        aten("slice.Tensor", _aten_slice),
        aten("slice_copy.Tensor", _aten_slice),
        aten("diagonal", _aten_diagonal),
        aten("diagonal_copy", _aten_diagonal),
        aten("split_with_sizes", _aten_split),
        aten("index.Tensor", _aten_index),
        aten("index_select", _aten_index_select),
        aten("gather", _aten_gather),
        aten("embedding", _aten_embedding),
        aten("flip", _reversed),
        lax("slice", _lax_slice),
        lax("split", _lax_split),
        lax("gather", _lax_gather),
        lax("rev", lambda x, dimensions: _reversed(x, dimensions)),
        lax("dynamic_slice", _lax_dynamic_slice),
    ),
)  # fmt: skip
_linear(
    "scatter", "scatter", 1, _infer_scatter, _t_scatter, _sym_scatter,
    numpy="rt.scatter({0}, {r0}, {p0}, {p1})", mindspore="rt.scatter({0}, {r0}, {p0}, {p1})",
    batched=_b_scatter,
    api=Api(internal="the transpose of indexing, in reverse-mode derivatives"),
    imports=(
        aten("cat", concatenate),
        aten("diagonal_scatter", _aten_diagonal_scatter),
        aten("slice_scatter", _aten_slice_scatter),
        aten("select_scatter", _aten_select_scatter),
        aten("constant_pad_nd", _aten_constant_pad_nd),
        aten("index_put", _aten_index_put),
        lax("concatenate", lambda *xs, dimension: concatenate(xs, dimension)),
        lax("scatter-add", _lax_scatter_add),
        lax("scatter", _lax_scatter),
        lax("dynamic_update_slice", _lax_dynamic_update_slice),
    ),
)  # fmt: skip
_linear(
    "stack", "Stack", None, _infer_stack, _t_stack,
    lambda arrays, node: np.stack(np.broadcast_arrays(*arrays), axis=node.params[0]),
    numpy="rt.stack([{args}], {p0}, {rank})", mindspore="rt.stack([{args}], {p0}, {rank})",
    batched=_b_stack,
    api=Api(("Stack",), ("stack",), generated=False),
    imports=(aten("stack", lambda tensors, dim=0: stack(tensors, dim)), lax("stack", lambda *xs, axis: stack(xs, axis))),
)  # fmt: skip
