"""Layers: ``Dense``, ``Conv2d``, ``Flatten`` and activation cells (``SequentialCell``: ``containers.py``)."""

from __future__ import annotations

import math

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops, seeding
from symgrad.nn.cell import Cell
from symgrad.nn.containers import SequentialCell
from symgrad.ops.compositions import pad_pairs
from symgrad.parameter import Parameter
from symgrad.seeding import get_seed, set_seed  # noqa: F401 - MindSpore's nn names
from symgrad.tensor import Tensor


def initial_value(init, shape, fan_in: int, who: str = "Dense") -> np.ndarray:
    """Initial values from a Tensor or array of ``shape``, a number, or an initializer's name
    (drawn from the layers' seeded generator, with MindSpore's meanings: 'uniform' is U(-0.07, 0.07),
    'normal' N(0, 0.01), 'HeUniform' U(+-sqrt(6 / fan_in))); None is MindSpore's default for a weight
    (HeUniform(sqrt(5)), U(+-1/sqrt(fan_in))) and for a bias (U(+-1/sqrt(fan_in))); ``who`` names the
    layer in errors."""
    rng = seeding.stream("layers")
    if isinstance(init, Tensor | np.ndarray | list):
        value = np.asarray(init.asnumpy() if isinstance(init, Tensor) else init, dtype=np.float32)
        if value.shape != tuple(shape):
            raise ValueError(f"{who}: initial value has shape {value.shape}, expected {tuple(shape)}")
        return value
    if isinstance(init, int | float | np.number) and not isinstance(init, bool):
        return np.full(shape, init, np.float32)
    bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
    table = {
        "zeros": lambda: np.zeros(shape),
        "ones": lambda: np.ones(shape),
        "normal": lambda: rng.normal(0.0, 0.01, shape),
        "uniform": lambda: rng.uniform(-0.07, 0.07, shape),
        "heuniform": lambda: rng.uniform(-1, 1, shape) * (math.sqrt(6 / fan_in) if fan_in else 0.0),
        "xavieruniform": lambda: rng.uniform(-1, 1, shape) * math.sqrt(6 / (shape[0] + shape[-1])),
        "none": lambda: rng.uniform(-bound, bound, shape),
    }
    key = str(init).lower().replace("_", "")
    if key not in table:
        raise ValueError(f"{who}: unknown initializer {init!r}; known: {sorted(set(table) - {'none'})}")
    return table[key]().astype(np.float32)


def _weight_and_bias(
    cell, shape: tuple, fan_in: int, weight_init, bias_init, has_bias: bool, dtype, outputs: int | None = None
) -> None:
    """A layer's ``weight`` of ``shape`` and, with ``has_bias``, its ``bias`` (one per output: ``outputs``,
    else the first axis), from MindSpore's initializers (None: MindSpore 2.10's defaults)."""
    np_dtype = mstype.to_dtype(dtype).np
    cell.weight = Parameter(
        initial_value(weight_init, shape, fan_in, type(cell).__name__).astype(np_dtype), name=None
    )
    cell.has_bias = has_bias
    if has_bias:
        cell.bias = Parameter(
            initial_value(bias_init, (outputs or shape[0],), fan_in, type(cell).__name__).astype(np_dtype),
            name=None,
        )


def generator() -> np.random.Generator:
    """The layers' seeded generator (``set_seed``), for initial weights drawn outside ``initial_value``."""
    return seeding.stream("layers")


class _Activation(Cell):
    """A cell without arguments (MindSpore's ``nn.ReLU()``: its ``__init__`` takes none)."""

    def __init__(self):
        super().__init__()


class Tanh(_Activation):
    def construct(self, x):
        return ops.tanh(x)


class ReLU(_Activation):
    def construct(self, x):
        return ops.relu(x)


class Sigmoid(_Activation):
    def construct(self, x):
        return ops.sigmoid(x)


class Softplus(_Activation):
    def construct(self, x):
        return ops.softplus(x)


class Identity(_Activation):
    """``x`` itself (``nn.Identity``)."""

    def construct(self, x):
        return x


class SiLU(_Activation):
    def construct(self, x):
        return ops.silu(x)


class GELU(Cell):
    """``GELU(approximate=True)``: the tanh approximation by default, as MindSpore's cell."""

    def __init__(self, approximate: bool = True):
        super().__init__()
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return ops.gelu(x, self.approximate)


class LeakyReLU(Cell):
    def __init__(self, alpha: float = 0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class ELU(Cell):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(x, self.alpha)


class Softmax(Cell):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def construct(self, x):
        return ops.log_softmax(x, self.axis)


_ACTIVATIONS = {
    "tanh": Tanh,
    "relu": ReLU,
    "sigmoid": Sigmoid,
    "softplus": Softplus,
    "silu": SiLU,
    "gelu": GELU,
    "leakyrelu": LeakyReLU,
    "elu": ELU,
    "softmax": Softmax,
    "logsoftmax": LogSoftmax,
}


def get_activation(name):
    """An activation cell from its name (``"tanh"``), or the cell itself."""
    if name is None or isinstance(name, Cell):
        return name
    try:
        return _ACTIVATIONS[name.lower()]()
    except (KeyError, AttributeError):
        raise ValueError(f"unknown activation {name!r}; supported: {sorted(_ACTIVATIONS)}") from None


class Dense(Cell):
    """``y = activation(x @ weight.T + bias)`` with ``weight`` of shape (out, in), as in MindSpore; by
    default the weight and the bias are uniform in +-1/sqrt(in), as MindSpore 2.10 draws them."""

    weight: Parameter  # set by _weight_and_bias, with these two
    has_bias: bool
    bias: Parameter

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        weight_init=None,
        bias_init=None,
        has_bias: bool = True,
        activation=None,
        dtype=mstype.float32,
    ):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        _weight_and_bias(
            self, (out_channels, in_channels), in_channels, weight_init, bias_init, has_bias, dtype
        )
        self.activation = get_activation(activation)

    def construct(self, x):
        if x.shape[-1:] != (self.in_channels,):
            raise ValueError(f"Dense: input has shape {x.shape}, last axis must be {self.in_channels}")
        if x.ndim > 2:
            raise ValueError(f"Dense: input must have rank 1 or 2, got shape {x.shape}")
        y = ops.matmul(x, self.weight.T) if x.ndim == 2 else ops.matmul(self.weight, x)
        if self.has_bias:
            y = y + self.bias
        return self.activation(y) if self.activation is not None else y


class Conv2d(Cell):
    """2-D convolution over NCHW inputs, as MindSpore's ``nn.Conv2d`` (weight (out, in / group, kh, kw))."""

    weight: Parameter  # set by _weight_and_bias, with these two
    has_bias: bool
    bias: Parameter

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        pad_mode: str = "same",
        padding=0,
        dilation=1,
        group: int = 1,
        has_bias: bool = False,
        weight_init=None,
        bias_init=None,
        data_format: str = "NCHW",
        dtype=mstype.float32,
    ):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError(f"Conv2d: data_format {data_format!r} is not supported; symgrad takes NCHW")
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"Conv2d: in_channels {in_channels} and out_channels {out_channels} must divide by group {group}"
            )
        kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, (kh, kw)
        self.stride, self.pad_mode, self.padding, self.dilation, self.group = (
            stride,
            pad_mode,
            padding,
            dilation,
            group,
        )
        shape = (out_channels, in_channels // group, kh, kw)
        _weight_and_bias(self, shape, in_channels // group * kh * kw, weight_init, bias_init, has_bias, dtype)

    def construct(self, x):
        bias = self.bias if self.has_bias else None
        return ops.conv2d(
            x, self.weight, bias, self.stride, self.pad_mode, self.padding, self.dilation, self.group
        )


class Conv1d(Cell):
    """1-D convolution over (N, C, L) inputs, as MindSpore's ``nn.Conv1d``: a ``Conv2d`` over a height
    of 1, with MindSpore's weight shape (out, in / group, 1, kernel_size)."""

    weight: Parameter  # set by _weight_and_bias, with these two
    has_bias: bool
    bias: Parameter

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        stride: int = 1,
        pad_mode: str = "same",
        padding: int = 0,
        dilation: int = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init=None,
        bias_init=None,
        dtype=mstype.float32,
    ):
        super().__init__()
        for name, value in (
            ("kernel_size", kernel_size),
            ("stride", stride),
            ("padding", padding),
            ("dilation", dilation),
        ):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Conv1d: {name} must be an int, got {type(value).__name__}")
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"Conv1d: in_channels {in_channels} and out_channels {out_channels} must divide by group {group}"
            )
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.pad_mode, self.padding, self.dilation, self.group = (
            stride,
            pad_mode,
            padding,
            dilation,
            group,
        )
        fan_in = in_channels // group * kernel_size
        shape = (out_channels, in_channels // group, 1, kernel_size)
        _weight_and_bias(self, shape, fan_in, weight_init, bias_init, has_bias, dtype)

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"Conv1d: input must have shape (N, C, L), got {x.shape}")
        padding = (0, 0, self.padding, self.padding) if self.pad_mode == "pad" else 0
        y = ops.conv2d(
            x.expand_dims(2), self.weight, self.bias if self.has_bias else None,
            (1, self.stride), self.pad_mode, padding, (1, self.dilation), self.group,
        )  # fmt: skip
        return y.squeeze(2)


class Pad(Cell):
    """``nn.Pad(paddings, mode="CONSTANT")``: one (before, after) pair per axis; CONSTANT (zeros),
    REFLECT or SYMMETRIC."""

    def __init__(self, paddings, mode: str = "CONSTANT"):
        super().__init__()
        if not isinstance(paddings, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in paddings):
            raise TypeError(f"Pad: paddings must be a tuple of (before, after) pairs, got {paddings!r}")
        if mode.upper() not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"Pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}")
        self.paddings, self.mode = paddings, mode

    def construct(self, x):
        return pad_pairs(x, self.paddings, self.mode, "Pad")


class Flatten(Cell):
    """The axes from ``start_dim`` to ``end_dim`` merged into one, as MindSpore's ``nn.Flatten``
    (a 0-d input becomes 1-d); the input itself when they name one axis."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        ndim = max(x.ndim, 1)
        start, end = self.start_dim, self.end_dim
        if any(isinstance(a, bool) or not isinstance(a, int) for a in (start, end)):
            raise TypeError("For 'flatten', both 'start_dim' and 'end_dim' must be int.")
        if not (-ndim <= start < ndim and -ndim <= end < ndim):
            raise ValueError(
                f"Flatten: 'start_dim' {start} or 'end_dim' {end} out of range for an input of shape {x.shape}"
            )
        start, end = start % ndim, end % ndim
        if start > end:
            raise ValueError(f"For 'flatten', 'start_dim' ({start}) cannot come after 'end_dim' ({end}).")
        if x.ndim == 0:
            return x.reshape((1,))
        if start == end:
            return x
        return x.reshape((*x.shape[:start], -1, *x.shape[end + 1 :]))


__all__ = [
    "Conv1d",
    "Identity",
    "Pad",
    "ELU",
    "GELU",
    "Conv2d",
    "Dense",
    "Flatten",
    "LeakyReLU",
    "LogSoftmax",
    "ReLU",
    "SequentialCell",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
    "generator",
    "get_activation",
    "get_seed",
    "initial_value",
    "set_seed",
]
