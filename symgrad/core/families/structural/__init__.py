"""Structural ops: broadcast_to, reduce_sum, reshape, transpose, getitem, scatter, stack.

All are linear, so their forward derivative is the op applied to the tangents and their reverse
derivative is a transpose rule. One job per module:

- ``builders.py``: the functions that build these ops' nodes (``reshape(x, shape)``, ``getitem``,
  ``concatenate``, ``fold``, ``running_sum``...) and the argument normalisation they share;
- ``windows.py``: padding and sliding windows (convolutions, pooling);
- ``linear.py``: how a structural row is registered;
- ``shape_ops.py`` (broadcast_to, reduce_sum, reshape, transpose) and ``index_ops.py`` (getitem,
  scatter, stack): each op's shape rule, simplifications, transpose rule, batched rule, closed
  form, notation and row, together.

PyTorch's and JAX's spellings of these rows, with their argument conventions, are the importers'
(``symgrad.importers.aten_structural``, ``lax_structural``). The builders are re-exported here.
"""

# the rows, registered in this order (the op table's order, cast's row first as before the split)
from symgrad.core.families import conversion  # noqa: F401

# isort: split
from symgrad.core.families.structural import shape_ops  # noqa: F401

# isort: split
from symgrad.core.families.structural import index_ops  # noqa: F401

# isort: split
from symgrad.core.families.structural.builders import (
    along,
    aten_dims,
    broadcast_to,
    concatenate,
    fold,
    full,
    getitem,
    index_to_python,
    lead_aligned,
    normalize_axes,
    normalize_index,
    reduce_sum,
    reshape,
    resolve_shape,
    running_sum,
    stack,
    transpose,
    unbroadcast,
    zeros_like,
)
from symgrad.core.families.structural.windows import (
    adaptive_windows,
    padded,
    per_axis,
    pool_size,
    pooling_windows,
    windows,
)

__all__ = [
    "adaptive_windows",
    "along",
    "aten_dims",
    "broadcast_to",
    "concatenate",
    "fold",
    "full",
    "getitem",
    "index_to_python",
    "lead_aligned",
    "normalize_axes",
    "normalize_index",
    "padded",
    "per_axis",
    "pool_size",
    "pooling_windows",
    "reduce_sum",
    "reshape",
    "resolve_shape",
    "running_sum",
    "stack",
    "transpose",
    "unbroadcast",
    "windows",
    "zeros_like",
]
