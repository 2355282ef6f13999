"""``ops.interpolate`` and ``ops.ResizeNearestNeighbor``: resizing as one constant matrix per
spatial axis (each output entry a fixed combination of input entries), applied with a matrix
product, so the gradient is the transposed matrix product and every order follows.

The matrices follow MindSpore 2.10 (and PyTorch): 'nearest' takes ``floor(dst * scale)``,
'linear'/'bilinear'/'trilinear' interpolate at ``(dst + 0.5) * scale - 0.5`` (or at
``dst * (in - 1) / (out - 1)`` with ``align_corners``), 'area' averages the adaptive pooling
windows. 'bicubic' is MindSpore's (TensorFlow's ResizeBicubic, not PyTorch's): the fraction is
rounded to 1/1024 (its coefficient table); with ``align_corners`` the cubic kernel has a = -0.75
and edge-clamped indices, without it a = -0.5 at half-pixel centres, taps outside the input
dropped and the rest renormalized.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor

_RANKS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _cubic(t: np.ndarray, a: float = -0.75) -> np.ndarray:
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def resize_matrix(n_in: int, n_out: int, mode: str, align_corners: bool, scale: float | None) -> np.ndarray:
    """The (n_out, n_in) matrix of one axis; ``scale`` is in / out unless a scale_factor gave it."""
    m = np.zeros((n_out, n_in))
    dst = np.arange(n_out, dtype=np.float64)
    s = n_in / n_out if scale is None else scale
    if mode == "nearest":
        m[np.arange(n_out), np.minimum(np.floor(dst * s).astype(int), n_in - 1)] = 1.0
    elif mode == "area":
        for i in range(n_out):
            lo, hi = (i * n_in) // n_out, -(-((i + 1) * n_in) // n_out)
            m[i, lo:hi] = 1.0 / (hi - lo)
    elif align_corners:
        src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        _taps(m, src, mode, n_in, clamp=False, half_pixel=False)
    else:
        src = (dst + 0.5) * s - 0.5
        _taps(m, src, mode, n_in, clamp=mode != "bicubic", half_pixel=True)
    return m


def _taps(m: np.ndarray, src: np.ndarray, mode: str, n_in: int, clamp: bool, half_pixel: bool) -> None:
    if clamp:
        src = np.maximum(src, 0.0)
    base = np.floor(src).astype(int)
    t = src - base
    rows = np.arange(len(src))
    if mode == "bicubic":
        t = np.rint(t * 1024) / 1024
        taps = [(base + k, _cubic(t - k, -0.5 if half_pixel else -0.75)) for k in range(-1, 3)]
        if half_pixel:
            inside = [((j >= 0) & (j < n_in)) * w for j, w in taps]
            total = sum(inside)
            taps = [(j, w / total) for (j, _), w in zip(taps, inside)]
        for j, w in taps:
            np.add.at(m, (rows, np.clip(j, 0, n_in - 1)), w)
    else:
        np.add.at(m, (rows, np.clip(base, 0, n_in - 1)), 1.0 - t)
        np.add.at(m, (rows, np.clip(base + 1, 0, n_in - 1)), t)


def _along(t: Tensor, axis: int, matrix: np.ndarray) -> Tensor:
    """``matrix`` applied along ``axis`` of ``t`` (moved last, multiplied, moved back)."""
    perm = [a for a in range(t.ndim) if a != axis] + [axis]
    back = list(np.argsort(perm))
    moved = t.transpose(tuple(perm))
    out = F.matmul(moved.reshape((-1, moved.shape[-1])), Tensor(matrix.T.astype(t.dtype.np)))
    return out.reshape((*moved.shape[:-1], matrix.shape[0])).transpose(tuple(back))


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None) -> Tensor:  # fmt: skip
    """``input`` (N, C, *spatial) resized to ``size`` or by ``scale_factor``, as MindSpore's ``ops.interpolate``."""
    x = F.as_tensor(input, "interpolate", "input")
    if mode not in ("nearest", "area", *_RANKS):
        raise ValueError(
            f"interpolate: mode must be one of 'nearest', 'area', {', '.join(map(repr, _RANKS))}, got {mode!r}"
        )
    if x.ndim not in (3, 4, 5) or (mode in _RANKS and x.ndim != _RANKS[mode]):
        need = _RANKS.get(mode)
        raise ValueError(
            f"interpolate: mode {mode!r} takes an input of rank {need or '3, 4 or 5'}, got shape {x.shape}"
        )
    if x.dtype.np.kind != "f":
        raise TypeError(f"interpolate: input must be a float Tensor, got {x.dtype}")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(
            f"interpolate: align_corners is only taken by the linear and cubic modes, not {mode!r}"
        )
    spatial = x.shape[2:]
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    scales: list[float | None]
    if size is not None:
        sizes = (size,) * len(spatial) if isinstance(size, int) else tuple(size)
        if len(sizes) != len(spatial) or not all(isinstance(n, int) and n > 0 for n in sizes):
            raise ValueError(f"interpolate: size must be {len(spatial)} positive ints, got {size!r}")
        scales = [None] * len(spatial)
    else:
        given = (
            (scale_factor,) * len(spatial) if isinstance(scale_factor, numbers.Real) else tuple(scale_factor)
        )
        if len(given) != len(spatial) or not all(isinstance(f, numbers.Real) and float(f) > 0 for f in given):
            raise ValueError(
                f"interpolate: scale_factor must be {len(spatial)} positive numbers, got {scale_factor!r}"
            )
        factors = [float(f) for f in given]
        sizes = tuple(math.floor(n * f) for n, f in zip(spatial, factors))
        scales = [None if recompute_scale_factor else 1.0 / f for f in factors]
    if min(sizes) < 1:
        raise OpError(f"interpolate: the output size {sizes} must be positive")
    out = x
    for axis, (n_in, n_out, s) in enumerate(zip(spatial, sizes, scales), start=2):
        if n_in != n_out or mode not in ("nearest", "area") or s not in (None, 1.0):
            out = _along(out, axis, resize_matrix(n_in, n_out, mode, bool(align_corners), s))
    return out


class ResizeNearestNeighbor(Primitive):
    """``ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(x)``: the last two
    axes of NCHW ``x`` resized to ``size`` by the nearest entry, at ``floor(dst * in / out)`` (with
    ``align_corners``: ``round(dst * (in - 1) / (out - 1))``; ``half_pixel_centers``:
    ``floor((dst + 0.5) * in / out)``)."""

    def __init__(self, size, align_corners: bool = False, half_pixel_centers: bool = False):
        if (
            not isinstance(size, tuple | list)
            or len(size) != 2
            or not all(isinstance(n, int) and n > 0 for n in size)
        ):
            raise ValueError(f"ResizeNearestNeighbor: size must be 2 positive ints, got {size!r}")
        if align_corners and half_pixel_centers:
            raise ValueError(
                "ResizeNearestNeighbor: align_corners and half_pixel_centers cannot both be True"
            )
        self.size, self.align_corners, self.half_pixel_centers = (
            tuple(size),
            align_corners,
            half_pixel_centers,
        )

    def __call__(self, input_x) -> Tensor:
        x = F.as_tensor(input_x, "ResizeNearestNeighbor", "input_x")
        if x.ndim != 4:
            raise ValueError(f"ResizeNearestNeighbor: input_x must have rank 4, got shape {x.shape}")
        out = x
        for axis, (n_in, n_out) in enumerate(zip(x.shape[2:], self.size), start=2):
            m = np.zeros((n_out, n_in))
            dst = np.arange(n_out)
            if self.align_corners:
                src = np.round(dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)).astype(int)
            else:
                src = np.floor((dst + 0.5 * self.half_pixel_centers) * (n_in / n_out)).astype(int)
            m[dst, np.minimum(src, n_in - 1)] = 1.0
            out = _along(out, axis, m)
        return out


__all__ = ["ResizeNearestNeighbor", "interpolate"]
