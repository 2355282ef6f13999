"""JAX's spellings of the structural rows, each with the ``build`` that turns a primitive's params
into the row's (``broadcast_in_dim``'s placed axes, ``gather``'s dimension numbers). Gathers and
scatters need constant indices: JAX's own gather or scatter-add, run on element numbers or one-hot
updates, says which element goes where. ``LAX`` maps each row to its JAX spellings; ``importers.common``
puts them on the rows (``OpDef.imports``)."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.structural import (
    broadcast_to,
    concatenate,
    full,
    getitem,
    reduce_sum,
    reshape,
    running_sum,
    stack,
    transpose,
)
from symgrad.core.graph import Node, const
from symgrad.core.registry import Imported, apply, lax
from symgrad.errors import OpError
from symgrad.importers.aten_structural import (
    _aten_split,
    _aten_squeeze,
    _aten_unsqueeze_all,
    _replaced,
    _reversed,
)
from symgrad.importers.lax_rows import over_axes
from symgrad.importers.picks import (
    _constant_indices,
    _element_numbers,
    _landed_updates,
    _picked,
    _picked_or_zero,
    chosen_by_value,
    clamped,
    computed,
    equal_to,
    placed,
)

LAX: dict[str, tuple[Imported, ...]] = {}  # each structural row's JAX spellings, section by section

# ----- broadcast_to -----


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


LAX["broadcast_to"] = (
    lax("broadcast_in_dim", _lax_broadcast_in_dim),
    lax("iota", _lax_iota),
)


# ----- reduce_sum -----


def _lax_cumsum(x: Node, axis: int, reverse: bool = False) -> Node:
    return running_sum(x, axis, reverse=reverse)


LAX["reduce_sum"] = (
    lax("reduce_sum", over_axes(reduce_sum)),
    lax("cumsum", _lax_cumsum),
)


# ----- reshape -----


def _lax_reshape(x: Node, new_sizes, dimensions=None) -> Node:
    if dimensions is not None:
        x = transpose(x, dimensions)
    return reshape(x, tuple(new_sizes))


LAX["reshape"] = (
    lax("reshape", _lax_reshape),
    lax("squeeze", lambda x, dimensions: _aten_squeeze(x, list(dimensions))),
    lax("expand_dims", lambda x, dimensions: _aten_unsqueeze_all(x, dimensions)),
    *(lax(name, lambda x: x) for name in ("copy", "copy_p")),
)


# ----- transpose -----


LAX["transpose"] = (lax("transpose", lambda x, permutation: transpose(x, permutation)),)


# ----- getitem: slices and gathers -----


def _lax_slice(x: Node, start_indices, limit_indices, strides=None) -> Node:
    steps = strides or (1,) * x.ndim
    return getitem(x, tuple(slice(a, b, c) for a, b, c in zip(start_indices, limit_indices, steps)))


def _lax_split(x: Node, sizes, axis: int) -> tuple[Node, ...]:
    return _aten_split(x, [int(s) for s in sizes], axis)


def _lax_gather(x: Node, indices: Node, dimension_numbers, slice_sizes, mode=None, fill_value=None,
                **_hints) -> Node:  # fmt: skip
    """lax.gather with constant indices: JAX's own gather run on the element numbers says which
    element each output element is (out of range: clipped, or filled with zeros, as ``mode`` says)."""
    from jax import lax as jax_lax  # only JAX programs have this primitive

    if computed(indices):
        return _computed_gather(x, indices, dimension_numbers, slice_sizes, mode, fill_value)
    picks = _constant_indices(indices, "lax.gather")
    if fill_value not in (None, 0, 0.0) and not (isinstance(fill_value, float) and math.isnan(fill_value)):
        raise OpError(f"lax.gather: fill_value={fill_value!r} is not supported (zeros are)")
    numbers = np.asarray(jax_lax.gather(
        _element_numbers(x.shape), picks, jax_lax.GatherDimensionNumbers(*dimension_numbers),
        tuple(slice_sizes), mode=mode, fill_value=-1,
    ))  # fmt: skip
    return _picked(x, numbers) if (numbers >= 0).all() else _picked_or_zero(x, numbers)


def _computed_gather(x: Node, indices: Node, dimension_numbers, slice_sizes, mode, fill_value) -> Node:
    """lax.gather at indices computed from the inputs (``jnp.linalg.solve``'s row permutation,
    ``take_along_axis`` of an argsort): clamped into range as JAX's ``clip`` and
    ``promise_in_bounds`` gathers do; with ``fill``, an index out of range gives zeros."""
    from jax import lax as jax_lax  # only JAX programs have this primitive

    numbers = jax_lax.GatherDimensionNumbers(*dimension_numbers)
    ranges = [x.shape[a] - slice_sizes[a] + 1 for a in numbers.start_index_map]
    vector = _index_vector(indices, mode, [r - 1 for r in ranges])

    def build(values) -> Node:
        at = const(np.broadcast_to(np.asarray(values, indices.dtype), indices.shape).copy())
        return _lax_gather(x, at, dimension_numbers, slice_sizes, mode, fill_value)

    shape = build((0,) * len(ranges)).shape
    batch_axes = [d for d in range(len(shape)) if d not in numbers.offset_dims]
    zeros = full(shape, 0, x.dtype or np.float64)
    return chosen_by_value(vector, ranges, build, lambda m: placed(m, shape, batch_axes), zeros, "lax.gather")


def _index_vector(indices: Node, mode, tops: list[int]) -> list[Node]:
    """The components of JAX's index vectors (the last axis of ``indices``), each clamped into
    ``[0, top]`` as clip and promise_in_bounds modes do; as they are in fill-or-drop mode."""
    vector = [getitem(indices, (slice(None),) * (indices.ndim - 1) + (k,)) for k in range(indices.shape[-1])]
    if "FILL" in str(mode).upper():
        return vector
    return [clamped(v, top) for v, top in zip(vector, tops)]


def _constant_starts(starts, shape, sizes, who: str) -> tuple:
    """lax's dynamic start indices as constants, clamped as JAX clamps them (the slice fits)."""
    values = [_constant_indices(s if isinstance(s, Node) else const(np.asarray(s)), who) for s in starts]
    return tuple(int(np.clip(int(v), 0, dim - size)) for v, dim, size in zip(values, shape, sizes))


def _lax_dynamic_slice(x: Node, *starts, slice_sizes) -> Node:
    """lax.dynamic_slice: a slice (at constant starts: a loop counter, once unrolled)."""
    return _at_each_start(
        starts, x.shape, slice_sizes, "lax.dynamic_slice",
        lambda at: getitem(x, tuple(slice(a, a + n) for a, n in zip(at, slice_sizes))),
    )  # fmt: skip


def _at_each_start(starts, shape, sizes, who: str, build) -> Node:
    """``build(starts)`` at lax's dynamic start indices, clamped as JAX clamps them (the block
    fits); at starts computed from the inputs (``x[jnp.argmax(y)]``), at each value they can take."""
    live = [k for k, s in enumerate(starts) if computed(s)]
    if not live:
        return build(_constant_starts(starts, shape, sizes, who))
    fixed = [k for k in range(len(starts)) if k not in live]
    at_fixed = dict(
        zip(
            fixed,
            _constant_starts(
                [starts[k] for k in fixed], [shape[k] for k in fixed], [sizes[k] for k in fixed], who
            ),
        )
    )
    ranges = [shape[k] - sizes[k] + 1 for k in live]

    def block(values) -> Node:
        at = {**at_fixed, **dict(zip(live, values))}
        return build(tuple(at[k] for k in range(len(starts))))

    clamps = [clamped(starts[k], top - 1) for k, top in zip(live, ranges)]
    sample = block((0,) * len(live))
    return chosen_by_value(clamps, ranges, block, lambda m: broadcast_to(m, sample.shape), None, who)


LAX["getitem"] = (
    lax("slice", _lax_slice),
    lax("split", _lax_split),
    lax("gather", _lax_gather),
    lax("rev", lambda x, dimensions: _reversed(x, dimensions)),
    lax("dynamic_slice", _lax_dynamic_slice),
)


# ----- scatter: joins, scatters and updates -----


def _lax_scatter_add(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
    """lax.scatter-add (``x.at[i].add(v)``): JAX's own scatter-add of each one-hot update says
    where that update lands, so the result is ``x + M @ updates`` with M a constant 0/1 matrix
    (dropped updates land nowhere); its derivative is M's transpose. At indices computed from the
    inputs, the sum over the values they can take of M at that value times the updates that take it."""
    who = "lax.scatter-add"
    if computed(indices):
        parts = [
            _landed_updates(
                x, landed, apply("select", _in_updates(hit, updates, dimension_numbers), updates, 0.0)
            )
            for hit, landed in _scatter_choices(x, indices, updates, dimension_numbers, mode, who)
        ]
        total = parts[0]
        for more in parts[1:]:
            total = apply("add", total, more)
        return apply("add", x, total)
    landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, who)
    return apply("add", x, _landed_updates(x, landed, updates))


def _lax_scatter(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
    """lax.scatter (``x.at[i].set(v)``): where each update lands, found by JAX's own scatter-add
    of one-hot updates; those elements of ``x`` are replaced. At an index computed from the inputs
    (one index vector: two could land on one element, where JAX leaves which one wins unspecified),
    the replacement at each value it can take, chosen where it takes it."""
    who = "lax.scatter"
    if computed(indices):
        rows = math.prod(indices.shape[:-1])
        if rows != 1:
            raise OpError(
                f"{who}: {rows} index vectors computed from the inputs (shape {indices.shape}) may land two "
                "updates on one element, where JAX leaves which one wins unspecified; one vector (x.at[i].set(v)) imports"
            )
        chosen = x
        for hit, landed in _scatter_choices(x, indices, updates, dimension_numbers, mode, who):
            where = broadcast_to(reshape(hit, (1,) * x.ndim), x.shape)
            chosen = apply("select", where, _replaced_by(x, landed, updates), chosen)
        return chosen
    landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, who)
    if (landed.sum(axis=1) > 1).any():
        raise OpError(f"{who}: two updates land on one element (JAX leaves which one wins unspecified)")
    return _replaced_by(x, landed, updates)


def _replaced_by(x: Node, landed: np.ndarray, updates: Node) -> Node:
    """``x`` with the elements where ``landed`` puts an update replaced by it."""
    kept = const((1.0 - landed.sum(axis=1)).reshape(x.shape).astype(x.dtype or np.float64))
    return apply("add", apply("mul", x, kept), _landed_updates(x, landed, updates))


def _scatter_choices(x: Node, indices: Node, updates: Node, dimension_numbers, mode, who: str):
    """A scatter at indices computed from the inputs: for each value the index vectors can take,
    where each vector takes it (bools, the indices' batch shape) and where updates land at it (JAX's
    own scatter-add at that constant index). In clip mode an index is clamped into its axis first,
    JAX clamping the rest at each value; in drop mode an index out of range matches no value."""
    from jax import lax as jax_lax  # only JAX programs have this primitive

    numbers = jax_lax.ScatterDimensionNumbers(*dimension_numbers)
    axes = tuple(numbers.scatter_dims_to_operand_dims)
    vector = _index_vector(indices, mode, [x.shape[a] - 1 for a in axes])
    choices = list(np.ndindex(*(x.shape[a] for a in axes)))
    work = len(choices) * math.prod(x.shape) * math.prod(updates.shape)
    if work > 10**7:
        raise OpError(
            f"{who}: indices computed from the inputs take {len(choices)} values, each placing {math.prod(updates.shape)} "
            f"updates into {math.prod(x.shape)} elements; symgrad's limit is 10^7 of those products"
        )
    return [
        (
            equal_to(vector, choice),
            _landing_matrix(x, const(np.broadcast_to(np.asarray(choice, indices.dtype), indices.shape).copy()),
                            updates, dimension_numbers, mode, who),
        )
        for choice in choices
    ]  # fmt: skip


def _in_updates(hit: Node, updates: Node, dimension_numbers) -> Node:
    """``hit`` (the indices' batch shape) on the updates' scatter axes, broadcast over their windows."""
    from jax import lax as jax_lax  # only JAX programs have this primitive

    windows = jax_lax.ScatterDimensionNumbers(*dimension_numbers).update_window_dims
    shape = tuple(1 if d in windows else n for d, n in enumerate(updates.shape))
    return broadcast_to(reshape(hit, shape), updates.shape)


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


def _lax_dynamic_update_slice(x: Node, update: Node, *starts) -> Node:
    """lax.dynamic_update_slice: ``x`` with the block at ``starts`` replaced by ``update``."""
    return _at_each_start(
        starts, x.shape, update.shape, "lax.dynamic_update_slice",
        lambda at: _replaced(x, tuple(slice(a, a + n) for a, n in zip(at, update.shape)), update),
    )  # fmt: skip


def _lax_scatter_combine(combine: str, fill: float, who: str):
    """lax.scatter-mul (max, min) with constant indices: ``x`` combined with every update that
    lands on an element (``x.at[i].multiply(v)``), one pick of the updates per update landing on
    the same element (``fill``, the combination's identity, where fewer land)."""

    def build(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
        if computed(indices):
            raise OpError(f"{who}: indices computed from the inputs have no row (constant indices have)")
        landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, who)
        count = landed.shape[1]
        padded_updates = concatenate(
            [reshape(updates, (count,)), full((1,), fill, updates.dtype or np.float64)], 0
        )
        result = x
        for layer in range(int(landed.sum(axis=1).max(initial=0))):
            sources = np.full(landed.shape[0], count)  # the fill, where no layer-th update lands
            for element, hits in enumerate(landed):
                landing = np.flatnonzero(hits)
                if layer < len(landing):
                    sources[element] = landing[layer]
            result = apply(combine, result, _picked(padded_updates, sources.reshape(x.shape)))
        return result

    return build


LAX["scatter"] = (
    lax("concatenate", lambda *xs, dimension: concatenate(xs, dimension)),
    lax("scatter-add", _lax_scatter_add),
    lax("scatter", _lax_scatter),
    lax("scatter-mul", _lax_scatter_combine("mul", 1.0, "lax.scatter-mul")),
    lax("scatter-max", _lax_scatter_combine("maximum", -math.inf, "lax.scatter-max")),
    lax("scatter-min", _lax_scatter_combine("minimum", math.inf, "lax.scatter-min")),
    lax("dynamic_update_slice", _lax_dynamic_update_slice),
)


# ----- stack -----


LAX["stack"] = (lax("stack", lambda *xs, axis: stack(xs, axis)),)
