"""A Cell's ``bprop(self, *inputs, out, dout)`` as the reverse rule of its output (MindSpore's custom bprop)."""

from __future__ import annotations

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import unbroadcast, zeros_like
from symgrad.core.graph import Node
from symgrad.core.registry import make_node
from symgrad.errors import GradError
from symgrad.tensor import Tensor, as_operand, merge_env


class BpropRule:
    """Calls ``cell.bprop`` for the cotangent of output ``index`` of one call of ``cell``."""

    def __init__(self, cell, args: tuple, outputs: list[Tensor], index: int):
        self.cell, self.args, self.outputs, self.index = cell, args, outputs, index
        self.env = merge_env(*args, *outputs)

    def __repr__(self) -> str:
        return f"{type(self.cell).__name__}.bprop"

    def cotangents(self, node: Node, ct: Node) -> list[Node | None]:
        """The cotangents of ``node.args[1:]`` (the call's Tensor inputs) from the user's bprop."""
        inputs = iter(node.args[1:])
        args = [Tensor._wrap(next(inputs), self.env) if isinstance(a, Tensor) else a for a in self.args]
        douts = [
            Tensor._wrap(ct, self.env) if i == self.index else Tensor._wrap(zeros_like(o._node), {})
            for i, o in enumerate(self.outputs)
        ]
        out = self.outputs[0] if len(self.outputs) == 1 else tuple(self.outputs)
        dout = douts[0] if len(douts) == 1 else tuple(douts)
        grads = self.cell.bprop(*args, out, dout)
        grads = grads if isinstance(grads, tuple | list) else (grads,)
        who = f"{type(self.cell).__name__}.bprop"
        if len(grads) < len(self.args):
            raise GradError(f"{who} returned {len(grads)} gradient(s) for {len(self.args)} input(s)")
        tensor_grads = [g for a, g in zip(self.args, grads) if isinstance(a, Tensor)]
        return [_as_cotangent(g, x, who) for x, g in zip(node.args[1:], tensor_grads)]


def _as_cotangent(grad, x: Node, who: str) -> Node | None:
    """A bprop result summed down to the input's shape and cast to its dtype, as MindSpore does."""
    if grad is None:
        return None
    try:
        g = as_operand(grad)
    except TypeError:
        raise GradError(
            f"{who} returned {type(grad).__name__} where a Tensor gradient was expected"
        ) from None
    if g.shape != x.shape:
        try:
            g = unbroadcast(
                make_node("broadcast_to", (g,), (tuple(x.shape),)) if g.ndim < x.ndim else g, x.shape
            )
        except Exception:
            raise GradError(
                f"{who} returned a gradient of shape {g.shape} for an input of shape {x.shape}"
            ) from None
    return cast(g, x.dtype) if x.dtype is not None and g.dtype != x.dtype else g


def with_bprop(cell, args: tuple, out):
    """``out`` (a Tensor or a tuple of them) with each Tensor's reverse rule taken from ``cell.bprop``."""
    outputs = [out] if isinstance(out, Tensor) else list(out) if isinstance(out, tuple | list) else None
    if outputs is None or not all(isinstance(o, Tensor) for o in outputs):
        return out
    inputs = [a._node for a in args if isinstance(a, Tensor)]
    wrapped = []
    for i, o in enumerate(outputs):
        rule = BpropRule(cell, args, outputs, i)
        node = make_node("custom_vjp", (o._node, *inputs), (rule,))
        wrapped.append(Tensor._wrap(node, merge_env(o, *args)))
    return wrapped[0] if isinstance(out, Tensor) else type(out)(wrapped)
