"""Reshaping and picking: cat, flatten, moveaxis, swapaxes, stacks, flips, tril/triu, meshgrid, gather_d.

Each is written with table ops (reshape, transpose, slices, broadcast, select, sum), so its
derivative is theirs: a gradient goes back to the entries each output was taken from.
"""

from __future__ import annotations

import numpy as np

from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import select
from symgrad.ops.creation import value_of
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor

cat = F.concat
unsqueeze = F.expand_dims
permute = F.transpose


def _axis(axis: int, ndim: int, op: str) -> int:
    """``axis`` as a non-negative axis of a rank-``ndim`` tensor, or an OpError."""
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise OpError(f"{op}: axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % max(ndim, 1)


def flatten(input, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Tensor:  # noqa: A002
    """Axes ``start_dim`` .. ``end_dim`` merged into one (a 0-d tensor becomes shape (1,)), as MindSpore's."""
    t = F.as_tensor(input, "flatten", "input")
    if order != "C":
        raise ValueError(f"flatten: only order='C' is supported, got {order!r}")
    if t.ndim == 0:
        return t.reshape((1,))
    if t.ndim == 1:
        return t
    first, last = _axis(start_dim, t.ndim, "flatten"), _axis(end_dim, t.ndim, "flatten")
    if first > last:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for shape {t.shape}")
    return t.reshape(t.shape[:first] + (-1,) + t.shape[last + 1 :])


def swapaxes(input, axis0: int, axis1: int) -> Tensor:  # noqa: A002 - MindSpore's name
    """``input`` with two axes exchanged."""
    t = F.as_tensor(input, "swapaxes", "input")
    perm = list(range(t.ndim))
    a, b = _axis(axis0, t.ndim, "swapaxes"), _axis(axis1, t.ndim, "swapaxes")
    perm[a], perm[b] = perm[b], perm[a]
    return t.transpose(tuple(perm))


def moveaxis(x, source, destination) -> Tensor:
    """``x`` with axes ``source`` (an int or a sequence) moved to ``destination``, the others in order."""
    t = F.as_tensor(x, "moveaxis", "x")
    src, dst = (tuple(v) if isinstance(v, tuple | list) else (v,) for v in (source, destination))
    src, dst = (
        tuple(_axis(a, t.ndim, "moveaxis") for a in src),
        tuple(_axis(a, t.ndim, "moveaxis") for a in dst),
    )
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(
            f"moveaxis: source {source} and destination {destination} must be distinct axes, as many"
        )
    rest = iter(a for a in range(t.ndim) if a not in src)
    moved = dict(zip(dst, src))
    return t.transpose(tuple(moved[a] if a in moved else next(rest) for a in range(t.ndim)))


movedim = moveaxis


def ravel(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """``input`` as a 1-D tensor."""
    return F.as_tensor(input, "ravel", "input").reshape((-1,))


def hstack(tensors) -> Tensor:
    """Tensors joined along axis 1 (axis 0 for 1-D ones)."""
    ts = [F.as_tensor(t, "hstack", "tensors") for t in tensors]
    return F.concat([t.reshape((1,)) if t.ndim == 0 else t for t in ts], 0 if ts[0].ndim <= 1 else 1)


def vstack(inputs) -> Tensor:
    """Tensors joined along axis 0, 1-D ones as rows."""
    ts = [F.as_tensor(t, "vstack", "inputs") for t in inputs]
    return F.concat([t.reshape((1, -1)) if t.ndim <= 1 else t for t in ts], 0)


def flip(input, dims) -> Tensor:  # noqa: A002 - MindSpore's name
    """``input`` reversed along each axis in ``dims`` (a tuple or list, as MindSpore requires)."""
    t = F.as_tensor(input, "flip", "input")
    if not isinstance(dims, tuple | list):
        raise TypeError(f"flip: dims must be a tuple or list of ints, got {dims!r}")
    axes = {_axis(d, t.ndim, "flip") for d in dims}
    return t[tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(t.ndim))]


def fliplr(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """``input`` reversed along axis 1."""
    return flip(input, (1,))


def flipud(input) -> Tensor:  # noqa: A002 - MindSpore's name
    """``input`` reversed along axis 0."""
    return flip(input, (0,))


def _triangle(input, diagonal: int, lower: bool, op: str) -> Tensor:  # noqa: A002
    """The entries on and below (``lower``) or above the ``diagonal`` of the last two axes; zeros elsewhere."""
    t = F.as_tensor(input, op, "input")
    if t.ndim < 2:
        raise OpError(f"{op}: input must have rank >= 2, got shape {t.shape}")
    rows, cols = t.shape[-2:]
    keep = (np.tril if lower else np.triu)(np.ones((rows, cols), bool), int(diagonal))
    return select(Tensor(keep), t, 0)


def tril(input, diagonal: int = 0) -> Tensor:  # noqa: A002 - MindSpore's name
    """The lower triangle (on and below ``diagonal``) of the last two axes."""
    return _triangle(input, diagonal, True, "tril")


def triu(input, diagonal: int = 0) -> Tensor:  # noqa: A002 - MindSpore's name
    """The upper triangle (on and above ``diagonal``) of the last two axes."""
    return _triangle(input, diagonal, False, "triu")


def grid_axes(inputs, indexing: str) -> list[Tensor]:
    """Each input flattened and laid along its own axis of the grid (size 1 on the others):
    input i along axis i, but for ``indexing="xy"`` (Cartesian) the first two swap."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    n = len(inputs)
    axes = [1 - i if indexing == "xy" and n > 1 and i < 2 else i for i in range(n)]
    return [
        F.as_tensor(t, "meshgrid", f"inputs[{i}]").reshape(tuple(-1 if a == axes[i] else 1 for a in range(n)))
        for i, t in enumerate(inputs)
    ]


def meshgrid(*inputs, indexing: str = "xy") -> tuple:
    """Coordinate grids of 1-D tensors; ``indexing="xy"`` swaps the first two axes (Cartesian)."""
    lines = grid_axes(inputs, indexing)
    shape = tuple(max(t.shape[a] for t in lines) for a in range(len(lines)))
    return tuple(F.broadcast_to(t, shape) for t in lines)


def gather_d(x, dim: int, index) -> Tensor:
    """``out[i] = x[i with axis dim replaced by index[i]]`` (MindSpore's GatherD, PyTorch's gather).

    ``index`` has ``x``'s rank and is read when the call is traced; each output picks its entry by a
    select over the axis, so the gradient goes back to the picked entries (repeats add up).
    """
    t = F.as_tensor(x, "GatherD", "x")
    where = np.asarray(value_of(index))
    axis = _axis(dim, t.ndim, "GatherD")
    if where.dtype.kind not in "iu" or where.ndim != t.ndim:
        raise OpError(
            f"GatherD: index must be integers of x's rank {t.ndim}, got {where.dtype} {where.shape}"
        )
    n = t.shape[axis]
    if where.size and (where.min() < 0 or where.max() >= n):
        raise OpError(f"GatherD: index values must lie in [0, {n}) for axis {dim} of shape {t.shape}")
    if any(w > s for a, (w, s) in enumerate(zip(where.shape, t.shape)) if a != axis):
        raise OpError(f"GatherD: index shape {where.shape} exceeds x's shape {t.shape} off axis {dim}")
    part = t[tuple(slice(None) if a == axis else slice(0, w) for a, w in enumerate(where.shape))]
    moved = swapaxes(part.expand_dims(t.ndim), axis, t.ndim)  # axis dim -> last, size 1 at dim
    picked = select(Tensor(np.expand_dims(where, -1) == np.arange(n)), moved, 0)
    return F.reduce_sum(picked, -1)


def gather_elements(input, dim: int, index) -> Tensor:  # noqa: A002 - MindSpore's name
    """``gather_d`` with MindSpore's argument names."""
    return gather_d(input, dim, index)


class Flatten(Primitive):
    """``Flatten()(input_x)``: shape (N, everything else)."""

    def __call__(self, input_x):
        t = F.as_tensor(input_x, "Flatten", "input_x")
        return t.reshape((t.shape[0] if t.ndim else 1, -1))


class GatherD(Primitive):
    """``GatherD()(x, dim, index)``."""

    def __call__(self, x, dim, index):
        return gather_d(x, dim, index)


class Tril(Primitive):
    """``Tril(diagonal=0)(input)``."""

    def __init__(self, diagonal: int = 0):
        self.diagonal = diagonal

    def __call__(self, input):  # noqa: A002 - MindSpore's name
        return tril(input, self.diagonal)


class Triu(Tril):
    """``Triu(diagonal=0)(input)``."""

    def __call__(self, input):  # noqa: A002 - MindSpore's name
        return triu(input, self.diagonal)


__all__ = sorted(
    ["cat", "flatten", "flip", "fliplr", "flipud", "gather_d", "gather_elements", "hstack", "meshgrid"]
    + ["moveaxis", "movedim", "permute", "ravel", "swapaxes", "tril", "triu", "unsqueeze", "vstack"]
    + ["Flatten", "GatherD", "Tril", "Triu"]
)
