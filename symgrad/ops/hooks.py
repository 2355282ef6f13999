"""Ops that act on the backward pass or print: ``InsertGradientOf``, ``HookBackward``, ``Print``.

The first two are identities whose reverse rule is the user's function of the cotangent
(symgrad's custom-bprop op), so they show in ``explain`` as "derivative from ...".
"""

from __future__ import annotations

from collections.abc import Callable

from symgrad.autodiff.custom_bprop import with_bprop
from symgrad.ops import functional as F
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor


class InsertGradientOf(Primitive):
    """``InsertGradientOf(f)(x)`` is ``x``; the gradient flowing back through it becomes ``f(gradient)``."""

    def __init__(self, f: Callable):
        if not callable(f):
            raise TypeError(f"InsertGradientOf: f must be callable, got {type(f).__name__}")
        self.f = f

    def bprop(self, x, out, dout):
        return (self.f(dout),)

    def __call__(self, input_x):
        x = F.as_tensor(input_x, "InsertGradientOf", "input_x")
        return with_bprop(self, (x,), x)


class HookBackward(Primitive):
    """``HookBackward(hook_fn)(*inputs)`` returns the inputs; ``hook_fn(gradient)`` sees each input's
    gradient in the backward pass and may return a replacement (None keeps it)."""

    def __init__(self, hook_fn: Callable, cell_id: str = ""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def bprop(self, *args):
        dout = args[-1]
        douts = dout if isinstance(dout, tuple) else (dout,)
        results = []
        for d in douts:
            replaced = self.hook_fn(d)
            results.append(d if replaced is None else replaced)
        return tuple(results)

    def __call__(self, *inputs):
        ts = tuple(F.as_tensor(x, "HookBackward", f"inputs[{i}]") for i, x in enumerate(inputs))
        out = with_bprop(self, ts, ts[0] if len(ts) == 1 else ts)
        return out


class Print(Primitive):
    """``Print()(*inputs)``: prints strings and tensor values when called (symbolic tensors print their
    description); returns None."""

    def __call__(self, *inputs) -> None:
        print(*(str(x) if isinstance(x, Tensor) else x for x in inputs))


__all__ = ["HookBackward", "InsertGradientOf", "Print"]
