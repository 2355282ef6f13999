"""``nn.Jvp`` and ``nn.Vjp``: the cell forms of forward and reverse mode."""

from __future__ import annotations

from collections.abc import Callable

from symgrad.autodiff.api import jvp, vjp
from symgrad.nn.cell import Cell


class Jvp(Cell):
    """``Jvp(fn)(*inputs, v)`` returns ``(fn(*inputs), J @ v)``."""

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        *inputs, v = args
        return jvp(self.fn, tuple(inputs), v)


class Vjp(Cell):
    """``Vjp(fn)(*inputs, v)`` returns ``(fn(*inputs), v @ J)``: a tuple over inputs, one Tensor for one input."""

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        *inputs, v = args
        out, grads = vjp(self.fn, tuple(inputs), v)
        return out, (grads[0] if len(grads) == 1 else grads)  # one input: a Tensor, as MindSpore
