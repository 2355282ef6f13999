"""Pooling layers: ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``, ``AvgPool2d``, as MindSpore 2.10's.

Each window's taps are slices of the (padded) input (``structural.windows``): a max is a chain of
selects that keeps the first largest element (MindSpore's gradient goes to that one element too),
an average is the taps' sum divided by a constant count. Both differentiate through the rows they
are made of. MindSpore's modes: ``"valid"`` (no padding), ``"same"`` (ceil(n / stride) windows,
the odd padding at the end; a max pads with -inf, an average counts only real elements) and
``"pad"`` (``padding`` on both sides, ``ceil_mode``, ``count_include_pad``, ``divisor_override``,
and for a max ``dilation`` and ``return_indices``, as PyTorch's pooling).
"""

from __future__ import annotations

import functools

import numpy as np

from symgrad.core.families.arithmetic import picked
from symgrad.core.families.structural import padded, windows
from symgrad.core.graph import Node, const
from symgrad.core.registry import apply
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


def _positive(value, name: str, who: str, dims: int) -> tuple[int, ...]:
    """An int, or a tuple of 1 or ``dims`` ints, as one positive int per axis."""
    if isinstance(value, bool) or not isinstance(value, int | tuple):
        raise TypeError(
            f"For '{who}', the type of '{name}' should be int or tuple, got {type(value).__name__}"
        )
    values = (value,) if isinstance(value, int) else value
    if len(values) not in (1, dims) or not all(isinstance(v, int) and v > 0 for v in values):
        raise ValueError(
            f"For '{who}', the '{name}' must be a positive int or a tuple of {dims} of them, got {value!r}"
        )
    return values * dims if len(values) == 1 else values


def _padding(value, who: str, dims: int) -> tuple[int, ...]:
    """'pad' mode's padding: an int, or a tuple/list of 1 or ``dims`` non-negative ints."""
    values = (value,) if isinstance(value, int) else tuple(value) if isinstance(value, tuple | list) else None
    if (
        values is None
        or len(values) not in (1, dims)
        or not all(isinstance(v, int) and v >= 0 for v in values)
    ):
        raise ValueError(
            f"For '{who}', the 'padding' must be an int >= 0 or a tuple/list of 1 or {dims} of them, got {value!r}"
        )
    return values * dims if len(values) == 1 else values


def _windows(n: int, k: int, s: int, mode: str, p: int, d: int, ceil_mode: bool) -> tuple[int, int, int]:
    """(number of windows, padding before, padding after) on an axis of ``n``."""
    if mode == "VALID":
        return (n - k) // s + 1, 0, 0
    if mode == "SAME":
        out = -(-n // s)
        total = max((out - 1) * s + k - n, 0)
        return out, total // 2, total - total // 2
    span = d * (k - 1) + 1
    out = (n + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:  # a last window must start inside the input or its padding
        out -= 1
    return out, p, max(p, (out - 1) * s + span - n - p)


class _Pool(Cell):
    """The arguments MindSpore's pooling cells share; ``dims`` spatial axes, NCHW (or NCL)."""

    dims = 2  # spatial axes
    fill = 0.0  # what padding holds
    too_small: type[Exception] = ValueError  # raised when no window fits

    def __init__(
        self, kernel_size, stride, pad_mode: str, padding, ceil_mode: bool, data_format: str = "NCHW"
    ):
        super().__init__()
        who = type(self).__name__
        if not isinstance(pad_mode, str):
            raise TypeError(
                f"For '{who}', the type of 'pad_mode' should be 'str', but got type '{type(pad_mode).__name__}'"
            )
        if pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(
                f"For '{who}', the 'pad_mode' must be in ['VALID', 'SAME', 'PAD'], but got {pad_mode!r}"
            )
        if data_format == "NHWC":
            raise ValueError(
                f"For '{who}', the 'NHWC' format is only supported on GPU in MindSpore; symgrad takes NCHW"
            )
        if data_format != "NCHW":
            raise ValueError(f"For '{who}', the 'format' must be 'NCHW' or 'NHWC', but got {data_format!r}")
        self.kernel_size = _positive(kernel_size, "kernel_size", who, self.dims)
        self.stride = _positive(stride, "stride", who, self.dims)
        self.pad_mode, self.ceil_mode, self.data_format = pad_mode.upper(), bool(ceil_mode), data_format
        self.padding = _padding(padding, who, self.dims)
        if self.pad_mode != "PAD" and any(self.padding):
            raise ValueError(
                f"For '{who}', 'padding' must be 0 when 'pad_mode' is not 'pad', got {padding!r}"
            )
        if any(2 * p > k for p, k in zip(self.padding, self.kernel_size)):
            raise ValueError(
                f"For '{who}', the padding {self.padding} must be at most half the kernel size {self.kernel_size}"
            )

    def _sizes(self, x: Tensor, dilation) -> list[tuple[int, int, int]]:
        """(windows, before, after) per spatial axis of ``x`` (batched), or an error naming the shapes."""
        spatial = x.shape[2:]
        sizes = [
            _windows(n, k, s, self.pad_mode, p, d, self.ceil_mode)
            for n, k, s, p, d in zip(spatial, self.kernel_size, self.stride, self.padding, dilation)
        ]
        if min(out for out, _, _ in sizes) < 1:
            raise self.too_small(
                f"For '{type(self).__name__}', a {self.kernel_size} window (stride {self.stride}, padding "
                f"{self.padding}) leaves no output for an input of spatial shape {spatial}"
            )
        return sizes

    def _taps(self, x: Tensor, dilation, sizes) -> list[tuple[tuple[int, ...], Node]]:
        node = padded(x._node, [(0, 0), (0, 0), *((lo, hi) for _, lo, hi in sizes)], self.fill)
        return windows(node, self.kernel_size, self.stride, dilation, tuple(out for out, _, _ in sizes))

    def _batched(self, x) -> tuple[Tensor, bool]:
        """``x`` with a batch axis (added for an unbatched input), checked: rank and float dtype."""
        who = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{who}', the input must be a Tensor, got {type(x).__name__}")
        if x.ndim not in (self.dims + 1, self.dims + 2):
            raise ValueError(
                f"For '{who}', the input must have rank {self.dims + 1} or {self.dims + 2}, got shape {x.shape}"
            )
        if not x.dtype.is_float:
            raise TypeError(f"For '{who}', the input must be float16, float32 or float64, got {x.dtype}")
        unbatched = x.ndim == self.dims + 1
        return (x.reshape((1, *x.shape)) if unbatched else x), unbatched


class _MaxPool(_Pool):
    fill = -np.inf

    def __init__(
        self, kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode, data_format
    ):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        who = type(self).__name__
        if self.pad_mode != "PAD" and (dilation != 1 or return_indices or ceil_mode):
            raise ValueError(
                f"For {who}, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can not be set to "
                f"non-default value when pad_mode is not 'pad', but got pad_mode:{pad_mode}."
            )
        self.dilation = _positive(dilation, "dilation", who, self.dims)
        self.return_indices = bool(return_indices)

    def construct(self, x):
        """The largest element of each window (the first of equal ones; -inf padding), and with
        ``return_indices`` its int64 position in the flattened unpadded input plane."""
        x, unbatched = self._batched(x)
        sizes = self._sizes(x, self.dilation)
        taps = self._taps(x, self.dilation, sizes)
        positions = []
        for tap, _ in taps:
            position = np.zeros(tuple(out for out, _, _ in sizes), np.int64)
            for axis, ((count, lo, _), s, d, t, n) in enumerate(
                zip(sizes, self.stride, self.dilation, tap, x.shape[2:])
            ):
                along = np.arange(count) * s - lo + t * d
                position = position * n + along.reshape([-1 if a == axis else 1 for a in range(self.dims)])
            positions.append(position)
        value, index = picked([window for _, window in taps], positions)
        out, where = Tensor._wrap(value, x._env), Tensor._wrap(index, x._env)
        if unbatched:
            out, where = out.reshape(out.shape[1:]), where.reshape(where.shape[1:])
        return (out, where) if self.return_indices else out


class _AvgPool(_Pool):
    too_small = RuntimeError  # MindSpore's AvgPool raises RuntimeError here (MaxPool: ValueError)

    def __init__(
        self,
        kernel_size,
        stride,
        pad_mode,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        data_format,
    ):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override <= 0):
            raise ValueError(
                f"For '{type(self).__name__}', the 'divisor_override' must be > 0, but got {divisor_override}."
            )
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override

    def _divisor(self, spatial, sizes) -> np.ndarray:
        """Each window's divisor: PyTorch's count (the padding it covers with ``count_include_pad``,
        never past it) or ``divisor_override``. In 'same' mode MindSpore counts the padding only
        where ``ceil_mode`` sends it to its 3-D kernel (its 2-D AvgPool counts real elements)."""
        include = self.count_include_pad and (self.pad_mode == "PAD" or self.ceil_mode)
        counts = []
        for n, (out, lo, hi), k, s, p in zip(spatial, sizes, self.kernel_size, self.stride, self.padding):
            start = np.arange(out) * s - lo
            end = np.minimum(start + k, n + (p if self.pad_mode == "PAD" else hi))
            if not include:
                end, start = np.minimum(end, n), np.maximum(start, 0)
            counts.append(end - start)
        if self.divisor_override:
            return np.full([out for out, _, _ in sizes], float(self.divisor_override))
        return functools.reduce(np.multiply, np.ix_(*counts)).astype(np.float64)

    def construct(self, x):
        """The mean of each window (see ``_divisor`` for what it divides by)."""
        x, unbatched = self._batched(x)
        ones = (1,) * self.dims
        sizes = self._sizes(x, ones)
        if (
            self.pad_mode == "VALID"
            and self.ceil_mode
            and any((n - k) % s for n, k, s in zip(x.shape[2:], self.kernel_size, self.stride))
        ):
            raise RuntimeError(
                f"For '{type(self).__name__}', ceil_mode=True with pad_mode='valid' on an input of spatial shape "
                f"{x.shape[2:]} that the windows do not tile: MindSpore 2.10's AvgPool3D fails here; use pad_mode='pad'"
            )
        total = None
        for _, window in self._taps(x, ones, sizes):
            total = window if total is None else apply("add", total, window)
        assert total is not None  # a window has at least one tap
        divisor = const(self._divisor(x.shape[2:], sizes).astype(x.dtype.np))
        out = Tensor._wrap(apply("div", total, divisor), x._env)
        return out.reshape(out.shape[1:]) if unbatched else out


class MaxPool2d(_MaxPool):
    """2-D max pooling of (N, C, H, W) or (C, H, W) inputs; ``stride`` defaults to 1, as MindSpore 2.10's."""

    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode: str = "valid",
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
        data_format: str = "NCHW",
    ):
        super().__init__(
            kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode, data_format
        )


class AvgPool2d(_AvgPool):
    """2-D average pooling of (N, C, H, W) or (C, H, W) inputs; ``stride`` defaults to 1, as MindSpore 2.10's."""

    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode: str = "valid",
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
        data_format: str = "NCHW",
    ):
        super().__init__(
            kernel_size,
            stride,
            pad_mode,
            padding,
            ceil_mode,
            count_include_pad,
            divisor_override,
            data_format,
        )


def _int(value, name: str, who: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For '{who}', the type of '{name}' should be 'int', but got type '{type(value).__name__}'."
        )


class MaxPool1d(_MaxPool):
    """1-D max pooling of (N, C, L) or (C, L) inputs (``kernel_size`` and ``stride`` are ints)."""

    dims = 1

    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode: str = "valid",
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ):
        _int(kernel_size, "kernel_size", "MaxPool1d")
        _int(stride, "stride", "MaxPool1d")
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode, "NCHW")


class AvgPool1d(_AvgPool):
    """1-D average pooling of (N, C, L) or (C, L) inputs (``kernel_size`` and ``stride`` are ints)."""

    dims = 1

    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode: str = "valid",
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ):
        _int(kernel_size, "kernel_size", "AvgPool1d")
        _int(stride, "stride", "AvgPool1d")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad, None, "NCHW")


__all__ = ["AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d"]
