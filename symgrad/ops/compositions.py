"""Ops MindSpore's tutorials and MindFlow use (issue 42's coverage scan), each composed of table ops:
padding, slicing into pieces, gradient clipping, ``bmm``, ``index_select``, ``mse_loss``, and the
graph-mode helpers ``constexpr``, ``tuple_len`` and ``Identity``. Their derivatives are those of
the ops they are made of (slices, concatenation, products, sums).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from symgrad import dtype as mstype
from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import _index_values, gather, select
from symgrad.ops.losses import _check_reduction, _reduced
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor


def _axis(axis: int, ndim: int, op: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise TypeError(f"{op}: axis must be an int, got {type(axis).__name__}")
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise OpError(f"{op}: axis {axis} is out of range for a tensor of rank {ndim}")
    return int(axis) % max(ndim, 1)


_slice = builtins.slice  # this module defines MindSpore's ``slice``


def _along(t: Tensor, axis: int, start: int, stop: int) -> Tensor:
    return t[(_slice(None),) * axis + (_slice(start, stop),)]


# ----- graph-mode helpers (PyNative semantics: plain Python) -----
def constexpr(fn=None, get_instance: bool = True, name=None, reuse_result: bool = True, check: bool = True):
    """MindSpore's decorator for a function of constants evaluated when a graph compiles; symgrad
    runs Python as PyNative does, so the function is returned as it is (``@constexpr`` or
    ``@constexpr(...)``)."""
    if fn is None:
        return lambda f: f
    return fn


def tuple_len(x) -> int:
    """The length of a tuple or list (``ops.tuple_len``)."""
    if not isinstance(x, tuple | list):
        raise TypeError(f"tuple_len: x must be a tuple or a list, got {type(x).__name__}")
    return len(x)


class Identity(Primitive):
    """``Identity()(x)``: ``x`` (a Tensor of the same values; the gradient passes through)."""

    def __call__(self, x):
        return F.as_tensor(x, "Identity", "x")


def reduce_mean(x, axis=()) -> Tensor:
    """``ops.reduce_mean(x, axis=())``: MindSpore's ``ReduceMean()`` instance (keep_dims=False)."""
    return F.mean(x, axis if axis != () else None, False)


# ----- pieces -----
def unstack(input_x, axis: int = 0) -> tuple:
    """The slices of ``input_x`` along ``axis``, that axis removed (``ops.unstack``)."""
    t = F.as_tensor(input_x, "unstack", "input_x")
    if t.ndim == 0:
        raise OpError("unstack: input_x must have rank >= 1, got a 0-d tensor")
    a = _axis(axis, t.ndim, "unstack")
    return tuple(t[(_slice(None),) * a + (i,)] for i in range(t.shape[a]))


def unbind(input, dim: int = 0) -> tuple:  # noqa: A002 - MindSpore's name
    """``unstack`` with MindSpore's ``unbind`` argument names."""
    return unstack(input, dim)


def chunk(input, chunks: int, axis: int = 0) -> tuple:  # noqa: A002 - MindSpore's name
    """``input`` cut into at most ``chunks`` pieces of ``ceil(size / chunks)`` along ``axis`` (the last
    may be smaller), as MindSpore's ``chunk``."""
    t = F.as_tensor(input, "chunk", "input")
    if isinstance(chunks, bool) or not isinstance(chunks, int) or chunks <= 0:
        raise ValueError(f"chunk: chunks must be a positive int, got {chunks!r}")
    a = _axis(axis, t.ndim, "chunk")
    step = max(math.ceil(t.shape[a] / chunks), 1)
    return tuple(_along(t, a, s, s + step) for s in range(0, t.shape[a], step)) or (t,)


def slice(input_x, begin, size) -> Tensor:  # noqa: A001 - MindSpore's name
    """``input_x[begin[i] : begin[i] + size[i]]`` on each axis (``size[i] = -1``: to the end)."""
    t = F.as_tensor(input_x, "slice", "input_x")
    begin, size = tuple(begin), tuple(size)
    if len(begin) != t.ndim or len(size) != t.ndim:
        raise OpError(f"slice: begin {begin} and size {size} need one entry per axis of shape {t.shape}")
    index = []
    for b, s, n in zip(begin, size, t.shape):
        stop = n if s == -1 else b + s
        if not 0 <= b <= stop <= n:
            raise OpError(f"slice: begin {begin} and size {size} fall outside the input's shape {t.shape}")
        index.append(_slice(b, stop))
    return t[tuple(index)]


def index_select(input, axis: int, index) -> Tensor:  # noqa: A002 - MindSpore's name
    """The slices of ``input`` along ``axis`` at the 1-D integer Tensor ``index`` (read as data)."""
    t = F.as_tensor(input, "index_select", "input")
    if not isinstance(index, Tensor) or index.ndim != 1 or index.dtype.np.kind not in "iu":
        raise TypeError(f"index_select: index must be a 1-D integer Tensor, got {index!r:.60}")
    a = _axis(axis, t.ndim, "index_select")
    return gather(t, _index_values(index, t.shape[a], "index_select", "index"), a)


def roll(x, shifts, dims=None) -> Tensor:
    """Entries shifted by ``shifts`` along ``dims`` (all entries, flattened, when None), wrapping round."""
    t = F.as_tensor(x, "roll", "x")
    if dims is None:
        return roll(t.reshape((-1,)), shifts, 0).reshape(t.shape)
    shift_list = tuple(shifts) if isinstance(shifts, tuple | list) else (shifts,)
    dim_list = tuple(dims) if isinstance(dims, tuple | list) else (dims,)
    if len(shift_list) != len(dim_list):
        raise ValueError(f"roll: shifts {shifts!r} and dims {dims!r} must have the same length")
    for s, d in zip(shift_list, dim_list):
        a = _axis(d, t.ndim, "roll")
        n = t.shape[a]
        k = int(s) % n if n else 0
        if k:
            t = F.concat([_along(t, a, n - k, n), _along(t, a, 0, n - k)], a)
    return t


# ----- padding -----
def _constant_pad(t: Tensor, pairs: list[tuple[int, int]], value) -> Tensor:
    """``t`` with ``pairs[axis] = (before, after)`` entries of ``value`` added (negative: cropped)."""
    for a, (before, after) in enumerate(pairs):
        n = t.shape[a]
        t = _along(t, a, max(-before, 0), n - max(-after, 0))
        pieces = []
        for count in (max(before, 0), max(after, 0)):
            shape = t.shape[:a] + (count,) + t.shape[a + 1 :]
            pieces.append(
                Tensor(np.full(shape, 0 if value is None else value, t.dtype.np)) if count else None
            )
        parts = [p for p in (pieces[0], t, pieces[1]) if p is not None]
        t = F.concat(parts, a) if len(parts) > 1 else t
    return t


def _mirror_pad(t: Tensor, pairs: list[tuple[int, int]], edge: int, op: str) -> Tensor:
    """Reflect (``edge=1``: the edge entry not repeated) or symmetric (``edge=0``) padding."""
    for a, (before, after) in enumerate(pairs):
        n = t.shape[a]
        if before < 0 or after < 0 or max(before, after) > n - edge:
            raise OpError(f"{op}: padding {(before, after)} is too large for an axis of size {n}")
        head = [_along(t, a, i, i + 1) for i in range(before - 1 + edge, edge - 1, -1)] if before else []
        tail = [_along(t, a, n - 1 - edge - i, n - edge - i) for i in range(after)]
        if head or tail:
            t = F.concat([*head, t, *tail], a)
    return t


def pad(input_x, padding, mode: str = "constant", value=None) -> Tensor:
    """``ops.pad``: ``padding = (left, right, top, bottom, ...)`` pairs from the last axis backwards
    (negative amounts crop); modes ``constant`` (``value``, 0 by default), ``reflect``,
    ``replicate``."""
    t = F.as_tensor(input_x, "pad", "input_x")
    amounts = [int(p) for p in (padding.asnumpy().tolist() if isinstance(padding, Tensor) else padding)]
    if len(amounts) % 2 or len(amounts) // 2 > t.ndim:
        raise ValueError(f"pad: padding {tuple(amounts)} must hold pairs for at most {t.ndim} axes")
    pairs = [(0, 0)] * t.ndim
    for k in range(len(amounts) // 2):
        pairs[t.ndim - 1 - k] = (amounts[2 * k], amounts[2 * k + 1])
    if mode == "constant":
        return _constant_pad(t, pairs, value)
    if value is not None:
        raise ValueError(f"pad: value is only taken in mode 'constant', got mode {mode!r}")
    if mode == "reflect":
        return _mirror_pad(t, pairs, 1, "pad")
    if mode == "replicate":
        for a, (before, after) in enumerate(pairs):
            n = t.shape[a]
            t = F.concat([_along(t, a, 0, 1)] * before + [t] + [_along(t, a, n - 1, n)] * after, a)
        return t
    raise ValueError(f"pad: mode must be 'constant', 'reflect' or 'replicate', got {mode!r}")


def pad_pairs(x: Tensor, paddings, mode: str, op: str) -> Tensor:
    """``nn.Pad``/``ops.Pad``: ``paddings`` is one (before, after) pair per axis; modes CONSTANT
    (zeros), REFLECT, SYMMETRIC."""
    pairs = [tuple(int(v) for v in p) for p in paddings]
    if len(pairs) != x.ndim or any(len(p) != 2 for p in pairs):
        raise ValueError(
            f"{op}: paddings {paddings!r} must be one (before, after) pair per axis of {x.shape}"
        )
    mode = mode.upper()
    if mode == "CONSTANT":
        return _constant_pad(x, pairs, 0)  # type: ignore[arg-type]
    if mode in ("REFLECT", "SYMMETRIC"):
        return _mirror_pad(x, pairs, 1 if mode == "REFLECT" else 0, op)  # type: ignore[arg-type]
    raise ValueError(f"{op}: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}")


class Pad(Primitive):
    """``Pad(paddings)(x)``: zeros added, one (before, after) pair per axis."""

    def __init__(self, paddings):
        self.paddings = paddings

    def __call__(self, x):
        return pad_pairs(F.as_tensor(x, "Pad", "x"), self.paddings, "CONSTANT", "Pad")


# ----- products, losses, clipping -----
def bmm(input_x, mat2) -> Tensor:
    """Batched matrix product of two tensors of rank 3 (``ops.bmm``)."""
    return F.batch_matmul(input_x, mat2)


def mse_loss(input, target, reduction: str = "mean") -> Tensor:  # noqa: A002 - MindSpore's name
    """``(input - target)^2``, reduced by ``reduction`` ('mean', 'sum' or 'none')."""
    diff = F.as_tensor(input, "mse_loss", "input") - F.as_tensor(target, "mse_loss", "target")
    return _reduced(F.square(diff), _check_reduction(reduction, "mse_loss"))


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None) -> tuple:
    """Every tensor of ``x`` times ``clip_norm / max(global_norm, clip_norm)``, where global_norm is
    the 2-norm of all their entries together (computed in float32), as MindSpore's."""
    if use_norm is not None:
        raise ValueError(f"clip_by_global_norm: use_norm only supports None, got {use_norm!r}")
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, int | float) or clip_norm <= 0:
        raise ValueError(f"clip_by_global_norm: clip_norm must be a number > 0, got {clip_norm!r}")
    if not isinstance(x, tuple | list) or not x:
        raise TypeError(
            f"clip_by_global_norm: x must be a non-empty tuple or list of Tensors, got {type(x).__name__}"
        )
    ts = [F.as_tensor(t, "clip_by_global_norm", f"x[{i}]") for i, t in enumerate(x)]
    total = None
    for t in ts:
        s = F.square(t).sum().astype(mstype.float32).reshape((1,))
        total = s if total is None else total + s
    assert total is not None
    bound = Tensor(np.array([clip_norm], np.float32))
    norm = F.sqrt(total)
    norm = select(norm >= bound, norm, bound)
    return tuple((t * bound / norm).astype(t.dtype) for t in ts)


__all__ = [
    "Identity",
    "Pad",
    "bmm",
    "chunk",
    "clip_by_global_norm",
    "constexpr",
    "index_select",
    "mse_loss",
    "pad",
    "reduce_mean",
    "roll",
    "slice",
    "tuple_len",
    "unbind",
    "unstack",
]
