"""``nn.Conv2dTranspose``, ``nn.Conv3d`` and ``nn.Conv3dTranspose`` (``Conv1d``, ``Conv2d``: ``layers.py``),
over the convolutions of ``symgrad/ops/convolution.py``, with MindSpore 2.10's weight shapes and
initializers (HeUniform weights; a bias, when asked for, uniform in +-1/sqrt(fan_in))."""

from __future__ import annotations

import math

from symgrad import dtype as mstype
from symgrad.nn.cell import Cell
from symgrad.nn.layers import _weight_and_bias
from symgrad.ops import convolution as conv
from symgrad.ops.built_from_rows import add_channel_bias
from symgrad.parameter import Parameter


class _Conv(Cell):
    """What the convolution cells share: sizes checked, weight and bias drawn."""

    weight: Parameter  # set by _weight_and_bias, with these two
    has_bias: bool
    bias: Parameter

    def __init__(self, rank: int, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                 group, has_bias, weight_init, bias_init, dtype, transposed: bool):  # fmt: skip
        super().__init__()
        who = type(self).__name__
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels), ("group", group)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{who}: {name} must be a positive int, got {value!r}")
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"{who}: in_channels {in_channels} and out_channels {out_channels} must divide by group {group}"
            )
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"{who}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if not isinstance(padding, int | tuple) or isinstance(padding, bool):
            raise TypeError(f"{who}: padding must be an int or a tuple, got {type(padding).__name__}")
        if isinstance(padding, tuple) and len(padding) != 2 * rank:
            raise ValueError(f"{who}: padding must be an int or a tuple of {2 * rank}, got {padding!r}")
        if pad_mode != "pad" and padding != 0:
            raise ValueError(f"{who}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}")
        self.kernel_size = conv.per_axis(kernel_size, rank, "kernel_size", who)
        self.stride = conv.per_axis(stride, rank, "stride", who)
        self.dilation = conv.per_axis(dilation, rank, "dilation", who)
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.pad_mode, self.padding = pad_mode, padding
        outer = (in_channels, out_channels // group) if transposed else (out_channels, in_channels // group)
        shape = (*outer, *self.kernel_size)
        fan_in = shape[1] * math.prod(self.kernel_size)
        _weight_and_bias(self, shape, fan_in, weight_init, bias_init, has_bias, dtype, out_channels)


class Conv3d(_Conv):
    """3-D convolution over NCDHW inputs, as MindSpore's ``nn.Conv3d`` (weight (out, in / group, kd, kh, kw);
    ``padding``: an int or (head, tail, top, bottom, left, right))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None,
                 bias_init=None, data_format: str = "NCDHW", dtype=mstype.float32):  # fmt: skip
        if data_format != "NCDHW":
            raise ValueError(f"Conv3d: data_format must be 'NCDHW', got {data_format!r}")
        super().__init__(3, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, dtype, transposed=False)  # fmt: skip
        self.data_format = data_format

    def construct(self, x):
        bias = self.bias if self.has_bias else None
        return conv.convolution(x, self.weight, bias, self.stride, self.pad_mode, self.padding,
                                self.dilation, self.group, "Conv3d")  # fmt: skip


def _output_padding(value, rank: int, stride, dilation, pad_mode: str, who: str) -> tuple[int, ...]:
    """MindSpore's checks of ``output_padding``: each in [0, max(stride, dilation)), nonzero only with 'pad'."""
    if isinstance(value, bool) or not isinstance(value, int | tuple):
        raise TypeError(f"{who}: output_padding must be an int or a tuple, got {type(value).__name__}")
    values = (value,) * rank if isinstance(value, int) else value
    if len(values) != rank:
        raise ValueError(f"{who}: output_padding must be an int or a tuple of {rank}, got {value!r}")
    for v, s, d in zip(values, stride, dilation):
        if not 0 <= v < max(s, d):
            raise ValueError(
                f"{who}: output_padding must be in range of [0, max(stride, dilation)), got {value!r}"
            )
    if any(values) and pad_mode != "pad":
        raise ValueError(f"{who}: when output_padding is not zero, pad_mode must be 'pad'")
    return values


class Conv2dTranspose(_Conv):
    """The transposed 2-D convolution over NCHW inputs, as MindSpore's ``nn.Conv2dTranspose`` (weight
    (in, out / group, kh, kw)); ``output_padding`` adds zeros after the bias, as MindSpore's does."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, output_padding=0, dilation=1, group: int = 1, has_bias: bool = False,
                 weight_init=None, bias_init=None, dtype=mstype.float32):  # fmt: skip
        super().__init__(2, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, dtype, transposed=True)  # fmt: skip
        self.output_padding = output_padding

    def construct(self, x):
        out = conv.conv_transpose(x, self.weight, self.stride, self.pad_mode, self.padding, self.dilation,
                                  self.group, "Conv2dTranspose")  # fmt: skip
        if self.has_bias:
            out = add_channel_bias(out, self.bias, "NCHW")
        extra = _output_padding(
            self.output_padding, 2, self.stride, self.dilation, self.pad_mode, "Conv2dTranspose"
        )
        return conv.zeros_after(out, extra) if any(extra) else out


class Conv3dTranspose(_Conv):
    """The transposed 3-D convolution over NCDHW inputs, as MindSpore's ``nn.Conv3dTranspose`` (weight
    (in, out / group, kd, kh, kw)); ``output_padding`` (with pad_mode 'pad') extends the output by that
    many entries after each axis, computed like the rest, as MindSpore's ``Conv3DTranspose``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, output_padding=0, has_bias: bool = False,
                 weight_init=None, bias_init=None, data_format: str = "NCDHW", dtype=mstype.float32):  # fmt: skip
        if data_format != "NCDHW":
            raise ValueError(f"Conv3dTranspose: data_format must be 'NCDHW', got {data_format!r}")
        super().__init__(3, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, dtype, transposed=True)  # fmt: skip
        self.output_padding = _output_padding(
            output_padding, 3, self.stride, self.dilation, pad_mode, "Conv3dTranspose"
        )
        self.data_format = data_format

    def construct(self, x):
        out = conv.conv_transpose(x, self.weight, self.stride, self.pad_mode, self.padding, self.dilation,
                                  self.group, "Conv3dTranspose", self.output_padding)  # fmt: skip
        return add_channel_bias(out, self.bias, "NCDHW") if self.has_bias else out


__all__ = ["Conv2dTranspose", "Conv3d", "Conv3dTranspose"]
