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
from symgrad.importers.picks import (
    _constant_indices,
    _element_numbers,
    _landed_updates,
    _picked,
    _picked_or_zero,
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
    lax("reduce_sum", lambda x, axes: reduce_sum(x, tuple(axes))),
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

    picks = _constant_indices(indices, "lax.gather")
    if fill_value not in (None, 0, 0.0) and not (isinstance(fill_value, float) and math.isnan(fill_value)):
        raise OpError(f"lax.gather: fill_value={fill_value!r} is not supported (zeros are)")
    numbers = np.asarray(jax_lax.gather(
        _element_numbers(x.shape), picks, jax_lax.GatherDimensionNumbers(*dimension_numbers),
        tuple(slice_sizes), mode=mode, fill_value=-1,
    ))  # fmt: skip
    return _picked(x, numbers) if (numbers >= 0).all() else _picked_or_zero(x, numbers)


def _constant_starts(starts, shape, sizes, who: str) -> tuple:
    """lax's dynamic start indices as constants, clamped as JAX clamps them (the slice fits)."""
    values = [_constant_indices(s if isinstance(s, Node) else const(np.asarray(s)), who) for s in starts]
    return tuple(int(np.clip(int(v), 0, dim - size)) for v, dim, size in zip(values, shape, sizes))


def _lax_dynamic_slice(x: Node, *starts, slice_sizes) -> Node:
    """lax.dynamic_slice at constant starts (a loop counter, once unrolled): a slice."""
    at = _constant_starts(starts, x.shape, slice_sizes, "lax.dynamic_slice")
    return getitem(x, tuple(slice(a, a + n) for a, n in zip(at, slice_sizes)))


LAX["getitem"] = (
    lax("slice", _lax_slice),
    lax("split", _lax_split),
    lax("gather", _lax_gather),
    lax("rev", lambda x, dimensions: _reversed(x, dimensions)),
    lax("dynamic_slice", _lax_dynamic_slice),
)


# ----- scatter: joins, scatters and updates -----


def _lax_scatter_add(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
    """lax.scatter-add with constant indices (``x.at[i].add(v)``): JAX's own scatter-add of each
    one-hot update says where that update lands, so the result is ``x + M @ updates`` with M a
    constant 0/1 matrix (dropped updates land nowhere); its derivative is M's transpose."""
    landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, "lax.scatter-add")
    return apply("add", x, _landed_updates(x, landed, updates))


def _lax_scatter(x: Node, indices: Node, updates: Node, dimension_numbers, mode=None, **_rest) -> Node:
    """lax.scatter (``x.at[i].set(v)``) with constant indices: where each update lands, found by
    JAX's own scatter-add of one-hot updates; those elements of ``x`` are replaced."""
    landed = _landing_matrix(x, indices, updates, dimension_numbers, mode, "lax.scatter")
    hits = landed.sum(axis=1)
    if (hits > 1).any():
        raise OpError("lax.scatter: two updates land on one element (JAX leaves which one wins unspecified)")
    kept = const((1.0 - hits).reshape(x.shape).astype(x.dtype or np.float64))
    return apply("add", apply("mul", x, kept), _landed_updates(x, landed, updates))


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
    """lax.dynamic_update_slice at constant starts: ``x`` with that block replaced by ``update``."""
    at = _constant_starts(starts, x.shape, update.shape, "lax.dynamic_update_slice")
    return _replaced(x, tuple(slice(a, a + n) for a, n in zip(at, update.shape)), update)


LAX["scatter"] = (
    lax("concatenate", lambda *xs, dimension: concatenate(xs, dimension)),
    lax("scatter-add", _lax_scatter_add),
    lax("scatter", _lax_scatter),
    lax("dynamic_update_slice", _lax_dynamic_update_slice),
)


# ----- stack -----


LAX["stack"] = (lax("stack", lambda *xs, axis: stack(xs, axis)),)
