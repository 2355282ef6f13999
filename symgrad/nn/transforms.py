"""``nn.Jvp`` and ``nn.Vjp``: the cell forms of forward and reverse mode."""

from __future__ import annotations

from collections.abc import Callable

from symgrad.autodiff.api import check_tangent_structure, jvp, vjp
from symgrad.errors import GradTypeError, SensCountError
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


class Jvp(Cell):
    """``Jvp(fn)(*inputs, v)`` returns ``(fn(*inputs), J @ v)``."""

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        *inputs, v = args
        # one input takes a Tensor v, several a tuple of as many (MindSpore: TypeError "Type Join Failed")
        check_tangent_structure(inputs[0] if len(inputs) == 1 else tuple(inputs), v, "Jvp")
        return jvp(self.fn, tuple(inputs), v)


class Vjp(Cell):
    """``Vjp(fn)(*inputs, v)`` returns ``(fn(*inputs), v @ J)``: a tuple over inputs, one Tensor for one input."""

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        *inputs, v = args
        try:
            out, grads = vjp(self.fn, tuple(inputs), v)
        except SensCountError as err:  # MindSpore's cell raises TypeError ("Type Join Failed") here
            raise GradTypeError(f"Vjp: v must have the structure of fn's output; {err}") from err
        if isinstance(out, Tensor) and isinstance(v, tuple | list):
            raise GradTypeError(f"Vjp: fn has one output, so v must be one Tensor, got a {type(v).__name__}")
        return out, (grads[0] if len(grads) == 1 else grads)  # one input: a Tensor, as MindSpore
