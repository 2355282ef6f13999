"""1-D and 3-D convolutions and the transposed convolutions (``ops.conv1d``, ``ops.conv3d``, and
what ``nn.Conv2dTranspose`` / ``nn.Conv3dTranspose`` compute), written with the op table's N-d
convolution rows (``convolution``, ``convolution_transpose``: one matrix product per kernel tap), so
their derivatives come from those ops. ``ops.conv2d`` is in ``built_from_rows.py``.

A transposed convolution is the adjoint of a forward convolution from an input of the output's size:
MindSpore's pad modes pick that size and the forward padding (``transposed``).
"""

from __future__ import annotations

from symgrad.core.families import linalg
from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import add_channel_bias
from symgrad.ops.compositions import _constant_pad
from symgrad.tensor import Tensor, merge_env


def per_axis(value, n: int, name: str, op: str, minimum: int = 1) -> tuple[int, ...]:
    """An int, or a tuple of ``n`` ints (a tuple of ``n + 2`` has the batch and channel axes first)."""
    values = (value,) * n if isinstance(value, int) and not isinstance(value, bool) else tuple(value)
    if len(values) == n + 2:
        values = values[2:]
    if len(values) != n or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in values
    ):
        raise ValueError(f"{op}: {name} must be an int >= {minimum} or a tuple of {n} of them, got {value!r}")
    return values


def pad_pairs(pad_mode: str, padding, sizes, kernel, stride, dilation, op: str) -> list[tuple[int, int]]:
    """(before, after) zeros per spatial axis for MindSpore's pad modes: 'valid' none, 'same' enough
    for ceil(size / stride) outputs (the odd one after), 'pad' as given (an int, one per axis, or one
    (before, after) pair per axis flattened: (head, tail, top, bottom, left, right))."""
    n = len(sizes)
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode == "valid":
        return [(0, 0)] * n
    if mode == "same":
        pairs = []
        for m, k, s, d in zip(sizes, kernel, stride, dilation):
            total = max((-(-m // s) - 1) * s + (k - 1) * d + 1 - m, 0)
            pairs.append((total // 2, total - total // 2))
        return pairs
    if mode != "pad":
        raise ValueError(f"{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    values = (
        (padding,) * (2 * n) if isinstance(padding, int) and not isinstance(padding, bool) else tuple(padding)
    )
    if len(values) == n:
        values = tuple(v for v in values for _ in range(2))
    if len(values) != 2 * n or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values
    ):
        raise ValueError(
            f"{op}: padding must be an int >= 0 or a tuple of {n} or {2 * n} of them, got {padding!r}"
        )
    return [(values[2 * i], values[2 * i + 1]) for i in range(n)]


def _checked(input, weight, rank: int, op: str) -> tuple[Tensor, Tensor]:  # noqa: A002 - MindSpore's name
    x, w = F.as_tensor(input, op, "input"), F.as_tensor(weight, op, "weight")
    if x.ndim != rank or w.ndim != rank:
        raise OpError(f"{op}: input and weight must have rank {rank}, got shapes {x.shape} and {w.shape}")
    return x, w


def convolution(
    input, weight, bias, stride, pad_mode: str, padding, dilation, groups: int, op: str
) -> Tensor:  # noqa: A002
    """An N-d convolution (cross-correlation, channels first) with MindSpore's pad modes."""
    x, w = F.as_tensor(input, op, "input"), F.as_tensor(weight, op, "weight")
    n = x.ndim - 2
    strides, dilations = per_axis(stride, n, "stride", op), per_axis(dilation, n, "dilation", op)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{op}: groups must be an int >= 1, got {groups!r}")
    pads = pad_pairs(pad_mode, padding, x.shape[2:], w.shape[2:], strides, dilations, op)
    node = linalg.convolution(x._node, w._node, strides, pads, dilations, groups, op)
    out = Tensor._wrap(node, merge_env(x, w))
    return out if bias is None else add_channel_bias(out, bias, "NCDHW" if n == 3 else "NCHW")


def conv1d(
    input, weight, bias=None, stride=1, pad_mode: str = "valid", padding=0, dilation=1, groups: int = 1
) -> Tensor:  # noqa: A002
    """1-D convolution of ``input`` (N, C, L) with ``weight`` (O, C / groups, k), as MindSpore's ``ops.conv1d``."""
    x, w = _checked(input, weight, 3, "conv1d")
    return convolution(x, w, bias, stride, pad_mode, padding, dilation, groups, "conv1d")


def conv3d(
    input, weight, bias=None, stride=1, pad_mode: str = "valid", padding=0, dilation=1, groups: int = 1
) -> Tensor:  # noqa: A002
    """3-D convolution of ``input`` (N, C, D, H, W) with ``weight`` (O, C / groups, kd, kh, kw), as
    MindSpore's ``ops.conv3d`` (``padding``: an int, 3 ints, or (head, tail, top, bottom, left, right))."""
    x, w = _checked(input, weight, 5, "conv3d")
    return convolution(x, w, bias, stride, pad_mode, padding, dilation, groups, "conv3d")


def transposed(x: Tensor, w: Tensor, sizes, pads, stride, dilation, groups: int, op: str) -> Tensor:
    """The adjoint of the convolution with ``w`` of an input of spatial ``sizes`` padded by ``pads``:
    MindSpore's ``Conv2DBackpropInput`` / ``Conv3DTranspose``. ``x`` is (N, C, *spatial) and ``w``
    (C, O / groups, *kernel)."""
    n = x.ndim - 2
    if w.ndim != x.ndim or w.shape[0] != x.shape[1]:
        raise OpError(
            f"{op}: input {x.shape} and weight {w.shape}: need (N, C, *spatial) and (C, O / group, *kernel)"
        )
    expected = tuple(
        (m + b + a - d * (k - 1) - 1) // s + 1
        for m, (b, a), k, s, d in zip(sizes, pads, w.shape[2:], stride, dilation)
    )
    if expected != tuple(x.shape[2:]):
        raise OpError(f"{op}: an output of spatial size {tuple(sizes)} does not fit the input {x.shape}")
    full = [(m - 1) * s + d * (k - 1) + 1 for m, k, s, d in zip(x.shape[2:], w.shape[2:], stride, dilation)]
    extra = tuple(max(b + m - f, 0) for (b, _), m, f in zip(pads, sizes, full))
    node = linalg.convolution_transpose(x._node, w._node, stride, (0,) * n, dilation, extra, groups, op)
    out = Tensor._wrap(node, merge_env(x, w))
    return out[(slice(None), slice(None), *(slice(b, b + m) for (b, _), m in zip(pads, sizes)))]


def conv_transpose(
    x, w, stride, pad_mode: str, padding, dilation, groups: int, op: str, output_padding=None
) -> Tensor:
    """MindSpore's ``Conv2dTranspose``/``Conv3dTranspose`` before bias and ``output_padding``: an
    output of ``size * stride`` ('same'), ``size * stride + max(dk - stride, 0)`` ('valid'; ``dk``
    the dilated kernel) or ``(size - 1) * stride + dk - before - after + output_padding`` ('pad': the
    extra entries computed as the others, as ``Conv3DTranspose``)."""
    x, w = F.as_tensor(x, op, "x"), F.as_tensor(w, op, "weight")
    n = x.ndim - 2
    strides, dilations = per_axis(stride, n, "stride", op), per_axis(dilation, n, "dilation", op)
    kernel = w.shape[2:]
    dk = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    if pad_mode == "same":
        sizes = [m * s for m, s in zip(x.shape[2:], strides)]
    elif pad_mode == "valid":
        sizes = [m * s + max(e - s, 0) for m, s, e in zip(x.shape[2:], strides, dk)]
    else:
        given = pad_pairs(pad_mode, padding, x.shape[2:], kernel, strides, dilations, op)
        extra = output_padding or (0,) * n
        sizes = [
            (m - 1) * s + e - b - a + o for m, s, e, (b, a), o in zip(x.shape[2:], strides, dk, given, extra)
        ]
    pads = pad_pairs(pad_mode, padding, sizes, kernel, strides, dilations, op)
    return transposed(x, w, sizes, pads, strides, dilations, groups, op)


def zeros_after(t: Tensor, amounts) -> Tensor:
    """``t`` with ``amounts[i]`` zeros after each spatial axis (MindSpore's ``output_padding`` of
    ``Conv2dTranspose``, added after the bias)."""
    return _constant_pad(t, [(0, 0), (0, 0), *((0, a) for a in amounts)], 0)


__all__ = ["conv1d", "conv3d"]
