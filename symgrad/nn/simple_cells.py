"""Small cells MindSpore's tutorials and MindFlow use (issue 42): ``ReLU6``, ``PReLU``, ``HSwish``,
the padding cells ``ConstantPad1d/2d/3d``, ``ZeroPad1d/2d/3d`` and ``Triu``, each over an op of
``symgrad.ops``."""

from __future__ import annotations

import numpy as np

from symgrad import ops
from symgrad.nn.cell import Cell
from symgrad.parameter import Parameter


class ReLU6(Cell):
    """``min(max(x, 0), 6)``."""

    def __init__(self):
        super().__init__()

    def construct(self, x):
        return ops.relu6(x)


class HSwish(Cell):
    """``x * relu6(x + 3) / 6``."""

    def __init__(self):
        super().__init__()

    def construct(self, x):
        return ops.hardswish(x)


class PReLU(Cell):
    """``x`` where x > 0, else ``w * x`` with a learned ``w`` (one, or one per channel of axis 1),
    as MindSpore's ``nn.PReLU(channel=1, w=0.25)`` (its Parameter is named ``a``)."""

    def __init__(self, channel: int = 1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        if isinstance(w, int | float) and not isinstance(w, bool):
            value = np.full((channel,), w, np.float32)
        else:
            value = np.asarray(w.asnumpy() if hasattr(w, "asnumpy") else w, np.float32).reshape(-1)
            if value.shape != (channel,):
                raise ValueError(
                    f"PReLU: w must be a number or hold {channel} values, got shape {value.shape}"
                )
        self.channel = channel
        self.w = Parameter(value, name="a")

    def construct(self, x):
        return ops.prelu(x, self.w)


class _ConstantPadNd(Cell):
    """``ops.pad(x, padding, value=value)`` over the last ``rank`` axes (padding from the last axis back)."""

    rank = 1

    def __init__(self, padding, value):
        super().__init__()
        name = type(self).__name__
        pairs = (
            (padding,) * (2 * self.rank)
            if isinstance(padding, int) and not isinstance(padding, bool)
            else padding
        )
        if (
            not isinstance(pairs, tuple)
            or len(pairs) != 2 * self.rank
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in pairs)
        ):
            raise TypeError(
                f"{name}: padding must be an int or a tuple of {2 * self.rank} ints, got {padding!r}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name}: value must be an int or a float, got {type(value).__name__}")
        self.padding, self.value = pairs, value

    def construct(self, x):
        return ops.pad(x, self.padding, "constant", self.value)


class ConstantPad1d(_ConstantPadNd):
    """``value`` added before and after the last axis (``padding``: an int or (left, right))."""

    rank = 1


class ConstantPad2d(_ConstantPadNd):
    """``value`` around the last two axes (``padding``: an int or (left, right, top, bottom))."""

    rank = 2


class ConstantPad3d(_ConstantPadNd):
    """``value`` around the last three axes (``padding``: an int or 6 ints, last axis first)."""

    rank = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class Triu(Cell):
    """``Triu()(x, k=0)``: ``x`` with the entries below the ``k``-th diagonal set to zero."""

    def __init__(self):
        super().__init__()

    def construct(self, x, k: int = 0):
        return ops.triu(x, k)


__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "HSwish",
    "PReLU",
    "ReLU6",
    "Triu",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]
