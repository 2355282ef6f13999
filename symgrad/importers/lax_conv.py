"""JAX's ``conv_general_dilated`` (every ``jax.lax.conv*``, ``flax.linen.Conv``, ``jax.lax.conv_transpose``)
written with the N-d convolution row builder (``symgrad.core.families.linalg.convolution``).

The operands are brought to channels-first order by their ``dimension_numbers``, an input dilation
(``lhs_dilation``: transposed convolutions) spreads the input with zeros between its elements, a
negative padding crops, and the result goes back to the output's layout. ``batch_group_count``
(which JAX uses in the weight gradient of grouped convolutions) is refused by name.
"""

from __future__ import annotations

import numpy as np

from symgrad.core.families.linalg import convolution
from symgrad.core.families.structural import getitem, normalize_index, transpose
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, lax, make_node
from symgrad.errors import OpError


def _spread(x: Node, dilation: tuple[int, ...]) -> Node:
    """``x`` (N, C, *spatial) with ``d - 1`` zeros between neighbours along each spatial axis."""
    if all(d == 1 for d in dilation):
        return x
    spatial = x.shape[2:]
    shape = (*x.shape[:2], *((m - 1) * d + 1 for m, d in zip(spatial, dilation)))
    at = (slice(None), slice(None), *(slice(0, (m - 1) * d + 1, d) for m, d in zip(spatial, dilation)))
    return make_node("scatter", (x,), (normalize_index(shape, at), shape))


def _conv_general_dilated(
    lhs: Node,
    rhs: Node,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    **_precision,
) -> Node:
    """lax.conv_general_dilated: a cross-correlation in any layout, with strides, explicit padding
    pairs (negative ones crop), input and kernel dilation and feature groups."""
    if batch_group_count != 1:
        raise OpError(
            f"lax.conv_general_dilated: batch_group_count={batch_group_count} has no row (only 1 has)"
        )
    lhs_spec, rhs_spec, out_spec = (tuple(s) for s in dimension_numbers)
    dims = lhs.ndim - 2
    x = _spread(transpose(lhs, lhs_spec), tuple(lhs_dilation or (1,) * dims))
    w = transpose(rhs, rhs_spec)
    pads = [(int(lo), int(hi)) for lo, hi in padding]
    crop = tuple(slice(-min(lo, 0), m + min(hi, 0)) for m, (lo, hi) in zip(x.shape[2:], pads))
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        x = getitem(x, (slice(None), slice(None), *crop))
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
    out = convolution(
        x, w, tuple(window_strides), pads, tuple(rhs_dilation or (1,) * dims), int(feature_group_count),
        f"lax.conv_general_dilated ({dims}-D)",
    )  # fmt: skip
    return transpose(out, tuple(int(a) for a in np.argsort(out_spec)))


LAX: list[Imported] = [lax("conv_general_dilated", _conv_general_dilated)]
