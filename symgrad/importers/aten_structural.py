"""PyTorch's spellings of the structural rows (broadcast_to, reduce_sum, reshape, transpose,
getitem, scatter, stack), each with the ``build`` that turns ATen's arguments into the row's:
``expand``'s -1 sizes, ``sum``'s ``dim`` and ``keepdim``, ``constant_pad_nd``'s pairs from the
last axis backwards. ``ATEN`` maps each row to its ATen spellings; ``importers.common`` puts them on
the rows (``OpDef.imports``), where ``imports_of`` and the importer find them."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import (
    adaptive_windows,
    along,
    aten_dims,
    broadcast_to,
    concatenate,
    full,
    getitem,
    normalize_axes,
    normalize_index,
    padded,
    per_axis,
    pooling_windows,
    reduce_sum,
    reshape,
    running_sum,
    stack,
    transpose,
)
from symgrad.core.families.structural.builders import _indexed_shape
from symgrad.core.graph import Node, const
from symgrad.core.registry import Imported, apply, aten, make_node
from symgrad.errors import OpError
from symgrad.importers.picks import (
    _constant_indices,
    _element_numbers,
    _landed_updates,
    _numbers_picked,
    _picked,
    chosen_by_value,
    computed,
    equal_to,
    nan_where_outside,
    placed,
    wrapped,
)

ATEN: dict[str, tuple[Imported, ...]] = {}  # each structural row's ATen spellings, section by section

# ----- broadcast_to: expand, and the constants PyTorch fills -----


def _aten_expand(x: Node, size, implicit: bool = False) -> Node:
    """aten.expand: broadcast to ``size``; -1 keeps the axis as it is."""
    lead = len(size) - x.ndim
    return broadcast_to(x, tuple(x.shape[i - lead] if d == -1 else d for i, d in enumerate(size)))


def _aten_full(size, fill_value, dtype=None, **_placement) -> Node:
    """aten.full (and the constants scalar_tensor and full_like make)."""
    return full(tuple(size), fill_value, dtype or np.float32)


ATEN["broadcast_to"] = (
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
)  # fmt: skip


# ----- reduce_sum: sums, means, variances, running sums, average pooling -----


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


def _aten_cumsum(x: Node, dim: int, dtype=None) -> Node:
    return running_sum(x if dtype is None else cast(x, dtype), dim)


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


ATEN["reduce_sum"] = (
    aten("sum", _aten_sum),
    aten("mean", _aten_mean),
    aten("var_mean", _aten_var_mean),
    aten("var", lambda *a, **k: _aten_var_mean(*a, **k)[0]),
    aten("cumsum", _aten_cumsum),
    *(aten(f"avg_pool{n}d", lambda *a, n=n, **k: _aten_avg_pool(*a, **k, dims=n)) for n in (1, 2, 3)),
    *(aten(f"{prefix}adaptive_avg_pool{n}d", lambda x, size, n=n: _aten_adaptive_avg_pool(x, size, dims=n))
      for prefix, n in (("", 1), ("", 2), ("", 3), ("_", 2), ("_", 3))),  # fmt: skip
)  # fmt: skip


# ----- reshape: views, unsqueeze, squeeze, copies -----


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


ATEN["reshape"] = (
    *(aten(name, reshape) for name in ("view", "_unsafe_view", "reshape", "view_copy")),
    aten("unsqueeze", lambda x, dim: _aten_unsqueeze_all(x, (dim,))),
    aten("squeeze", _aten_squeeze),
    # copies (values unchanged): the same shape
    *(aten(name, lambda x, **_format: x) for name in ("clone", "alias", "lift_fresh_copy")),
)  # fmt: skip


# ----- transpose: permute -----


ATEN["transpose"] = (
    aten("permute", transpose),
    aten("permute_copy", transpose),
    aten("t", transpose),
)


# ----- getitem: select, slice, diagonal, split, flip, and picks by constant indices -----


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


def _aten_split(x: Node, split_sizes, dim: int = 0) -> tuple[Node, ...]:
    """aten.split_with_sizes: consecutive slices of the given sizes along ``dim``."""
    pieces, start = [], 0
    for size in split_sizes:
        pieces.append(_aten_slice(x, dim, start, start + size))
        start += size
    return tuple(pieces)


def _reversed(x: Node, dims) -> Node:
    """aten.flip and lax.rev: ``x`` read backwards along ``dims``."""
    flipped = {d % x.ndim for d in dims}
    return getitem(x, tuple(slice(None, None, -1) if d in flipped else slice(None) for d in range(x.ndim)))


def _aten_index(x: Node, indices) -> Node:
    """aten.index.Tensor: ``x[i0, i1, ...]`` with index tensors (None for a whole axis), NumPy's
    rules. Index tensors computed from the inputs (``grid_sample``'s corners): the pick at each
    value they can take, chosen where they take it; NaN where one is out of range (PyTorch raises)."""
    live = [k for k, i in enumerate(indices) if computed(i)]
    if not live:
        index = tuple(slice(None) if i is None else _constant_indices(i, "aten.index") for i in indices)
        return _picked(x, _numbers_picked("aten.index", lambda: _element_numbers(x.shape)[index]))
    batch, constants_at, where = _index_layout(x, indices, live)
    sample = _aten_index(x, constants_at((0,) * len(live)))
    nan = full(sample.shape, math.nan, x.dtype or np.float64)
    values = [broadcast_to(wrapped(indices[k], x.shape[k]), batch) for k in live]
    return chosen_by_value(
        values,
        [x.shape[k] for k in live],
        lambda v: _aten_index(x, constants_at(v)),
        lambda m: placed(m, sample.shape, where),
        nan,
        "aten.index",
    )


def _index_layout(x: Node, indices, live: list[int]):
    """For ``x[i0, i1, ...]`` with the index tensors at ``live`` computed from the inputs: the
    indices' broadcast shape, the index list with those tensors replaced by constants of given
    values, and the axes of the result the broadcast shape takes (NumPy: in place where the
    index tensors are adjacent, first where they are apart)."""
    batch = tuple(np.broadcast_shapes(*(i.shape for i in indices if i is not None)))

    def constants_at(values) -> list:
        chosen = dict(zip(live, values))
        return [
            const(np.full(batch, chosen[k], np.int64)) if k in chosen else i for k, i in enumerate(indices)
        ]

    axes = [k for k, i in enumerate(indices) if i is not None]
    first = axes[0] if axes == list(range(axes[0], axes[-1] + 1)) else 0
    return batch, constants_at, list(range(first, first + len(batch)))


def _aten_index_select(x: Node, dim: int, index: Node) -> Node:
    if computed(index) and x.ndim:  # the pick at each value, chosen where index takes it; NaN out of range
        axis = dim % x.ndim

        def build(values) -> Node:
            return _aten_index_select(x, axis, const(np.full(index.shape, values[0], np.int64)))

        sample = build((0,))
        nan = full(sample.shape, math.nan, x.dtype or np.float64)
        flat = reshape(index, (math.prod(index.shape),))
        return chosen_by_value(
            [flat],
            [x.shape[axis]],
            build,
            lambda m: placed(m, sample.shape, [axis]),
            nan,
            "aten.index_select",
        )
    picks = _constant_indices(index, "aten.index_select")
    if x.ndim == 0:  # PyTorch takes a 0-d tensor as one element along dim 0
        return reshape(_picked(reshape(x, (1,)), np.asarray(picks).reshape(-1)), ())
    return _picked(
        x, _numbers_picked("aten.index_select", lambda: np.take(_element_numbers(x.shape), picks, axis=dim))
    )


def _aten_gather(x: Node, dim: int, index: Node, sparse_grad: bool = False) -> Node:
    """aten.gather: ``out[p] = x[p with axis dim replaced by index[p]]`` (index may be shorter on
    the other axes)."""
    if computed(index):  # the pick at each value, chosen where index takes it; NaN out of range

        def build(values) -> Node:
            return _aten_gather(x, dim, const(np.full(index.shape, values[0], np.int64)))

        nan = full(index.shape, math.nan, x.dtype or np.float64)
        return chosen_by_value([index], [x.shape[dim]], build, lambda m: m, nan, "aten.gather")
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


ATEN["getitem"] = (
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
)


# ----- scatter: cat, writes into a region, padding, index_put -----


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


def _aten_constant_pad_nd(x: Node, pad, value: float = 0.0) -> Node:
    """aten.constant_pad_nd: ``pad`` holds (before, after) pairs from the last axis backwards; a
    negative amount crops."""
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        pairs[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    x = getitem(x, tuple(slice(max(-lo, 0), d - max(-hi, 0)) for d, (lo, hi) in zip(x.shape, pairs)))
    return padded(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs], value)


def _aten_index_put(x: Node, indices, values: Node, accumulate: bool = False) -> Node:
    """aten.index_put (``x[i0, i1, ...] = values``, ``+=`` with ``accumulate``), constant indices:
    each update lands on the element ``aten.index`` would pick there (``x + M @ updates``, M 0/1).
    At index tensors computed from the inputs (``index_add`` of a top-k's rows): the sum, over
    the values they can take, of the updates that take each; a set only of one update position."""
    live = [k for k, i in enumerate(indices) if computed(i)]
    if live:
        return _computed_index_put(x, indices, values, accumulate, live)
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


def _computed_index_put(x: Node, indices, values: Node, accumulate: bool, live: list[int]) -> Node:
    """``_aten_index_put`` at the index tensors ``live`` computed from the inputs; NaN everywhere
    where one is out of range (PyTorch raises)."""
    who = "aten.index_put"
    batch, constants_at, where = _index_layout(x, indices, live)
    sample = _aten_index(x, constants_at((0,) * len(live)))
    if not accumulate and math.prod(batch) != 1:
        raise OpError(
            f"{who}: a set at {math.prod(batch)} index positions computed from the inputs may land two "
            "updates on one element (PyTorch leaves which one wins unspecified); accumulate=True or one position imports"
        )
    choices = list(np.ndindex(*(x.shape[k] for k in live)))
    if len(choices) * math.prod(x.shape) * max(math.prod(sample.shape), 1) > 10**7:
        raise OpError(
            f"{who}: {len(choices)} values of computed indices into {x.shape} are past symgrad's 10^7 limit"
        )
    at = [broadcast_to(wrapped(indices[k], x.shape[k]), batch) for k in live]
    updates = broadcast_to(values, sample.shape)
    zeros = full(x.shape, 0, x.dtype or np.float64)
    result = x
    for value in choices:
        hit = placed(equal_to(at, value), sample.shape, where)
        if accumulate:
            landed = _aten_index_put(zeros, constants_at(value), apply("select", hit, updates, 0.0), True)
            result = apply("add", result, landed)
        else:
            whole = broadcast_to(reshape(equal_to(at, value), (1,) * x.ndim), x.shape)
            result = apply("select", whole, _aten_index_put(x, constants_at(value), updates, False), result)
    return nan_where_outside(result, at, [x.shape[k] for k in live])


ATEN["scatter"] = (
    aten("cat", concatenate),
    aten("diagonal_scatter", _aten_diagonal_scatter),
    aten("slice_scatter", _aten_slice_scatter),
    aten("select_scatter", _aten_select_scatter),
    aten("constant_pad_nd", _aten_constant_pad_nd),
    aten("index_put", _aten_index_put),
)


# ----- stack -----


ATEN["stack"] = (aten("stack", lambda tensors, dim=0: stack(tensors, dim)),)
