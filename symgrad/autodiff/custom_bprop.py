"""A Cell's ``bprop(self, *inputs, out, dout)`` as the reverse rule of its output (MindSpore's custom bprop)."""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
import inspect
import math
import textwrap

import numpy as np

from symgrad import context
from symgrad.autodiff.tracing import pack_like, tensor_leaves
from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import getitem, normalize_index, reshape, unbroadcast
from symgrad.core.graph import Node, free_vars
from symgrad.core.registry import make_node
from symgrad.errors import BpropResultError
from symgrad.tensor import Tensor, as_operand, merge_env

_SET_ASIDE: contextvars.ContextVar[list | None] = contextvars.ContextVar("bprops_set_aside", default=None)


@contextlib.contextmanager
def bprops_set_aside():
    """Inside, Cells' custom bprops are ignored (symgrad differentiates ``construct`` itself); yields
    the names of the Cell classes whose bprop was set aside, as they are met."""
    met: list[str] = []
    token = _SET_ASIDE.set(met)
    try:
        yield met
    finally:
        _SET_ASIDE.reset(token)


def bprop_set_aside(cell) -> bool:
    """True (and noted) when ``cell``'s bprop is to be ignored: inside :func:`bprops_set_aside`."""
    met = _SET_ASIDE.get()
    if met is None:
        return False
    if type(cell).__name__ not in met:
        met.append(type(cell).__name__)
    return True


class BpropRule:
    """Calls ``cell.bprop`` once for the cotangents of all outputs of one call of ``cell``.

    With several outputs, the custom node's value is the outputs flattened end to end
    (``layout``: offset, shape, dtype per Tensor leaf of ``out``), so the reverse sweep sums
    every output's cotangent into one before the rule runs, and ``dout`` mirrors ``out``.
    """

    def __init__(self, cell, args: tuple, out, layout: list[tuple[int, tuple, object]] | None):
        self.cell, self.args, self.out, self.layout = cell, args, out, layout
        self.env = merge_env(*args, *tensor_leaves(out))

    def __repr__(self) -> str:
        return f"{type(self.cell).__name__}.bprop"

    def cotangents(self, node: Node, ct: Node) -> list[Node | None]:
        """The cotangents of ``node.args[1:]`` (the call's Tensor inputs) from the user's bprop."""
        inputs = iter(node.args[1:])
        args = [Tensor._wrap(next(inputs), self.env) if isinstance(a, Tensor) else a for a in self.args]
        if self.layout is None:
            dout = Tensor._wrap(ct, self.env)
        else:
            dout = pack_like(self.out, [Tensor._wrap(_unpacked(ct, *part), self.env) for part in self.layout])
        grads = self.cell.bprop(*args, self.out, dout)
        grads = grads if isinstance(grads, tuple | list) else (grads,)
        who = f"{type(self.cell).__name__}.bprop"
        _check_no_parameters(self.cell, grads, who)
        if len(grads) < len(self.args):
            raise BpropResultError(f"{who} returned {len(grads)} gradient(s) for {len(self.args)} input(s)")
        tensor_grads = [g for a, g in zip(self.args, grads) if isinstance(a, Tensor)]
        return [_as_cotangent(g, x, who) for x, g in zip(node.args[1:], tensor_grads)]


def _check_no_parameters(cell, grads, who: str) -> None:
    """In GRAPH_MODE MindSpore refuses a bprop that reads the cell's Parameters (PyNative allows
    it): seen in the bprop's source (``self.<a Parameter>``, read as data, never run), or where
    the source is not at hand, in the gradients it returned (``grads``; None before it runs)."""
    if context.get_context("mode") != context.GRAPH_MODE or not callable(
        getattr(cell, "get_parameters", None)
    ):
        return
    if grads is None:
        names = set(getattr(cell, "_params", {}))
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(cell.bprop)))
        except (OSError, TypeError, SyntaxError):
            return
        read = {
            n.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
        }
        uses = bool(names & read)
    else:
        own = {p._node for p in cell.get_parameters()}
        uses = bool(own & set(free_vars([g._node for g in grads if isinstance(g, Tensor)])))
    if uses:
        raise RuntimeError(
            f"{who}: the user defined 'bprop' function does not support using Parameter in GRAPH_MODE "
            "(as MindSpore; PYNATIVE_MODE allows it)"
        )


def _unpacked(packed: Node, offset: int, shape: tuple, dtype) -> Node:
    """One output back out of the flattened outputs."""
    size = math.prod(shape)
    return cast(reshape(getitem(packed, slice(offset, offset + size)), shape), dtype)


def _packed(leaves: list[Tensor]) -> tuple[Node, list[tuple[int, tuple, object]]]:
    """The leaves flattened end to end in their common dtype, and where each one lies."""
    common = np.result_type(*(t._node.dtype or np.float64 for t in leaves), np.float32)
    total = sum(t.size for t in leaves)
    layout, parts, offset = [], [], 0
    for t in leaves:
        flat = reshape(cast(t._node, common), (t.size,))
        index = normalize_index((total,), slice(offset, offset + t.size))
        parts.append(make_node("scatter", (flat,), (index, (total,))))
        layout.append((offset, t.shape, t._node.dtype or np.float64))
        offset += t.size
    return functools.reduce(lambda a, b: make_node("add", (a, b)), parts), layout


def _as_cotangent(grad, x: Node, who: str) -> Node | None:
    """A bprop result summed down to the input's shape and cast to its dtype, as MindSpore does."""
    if grad is None:
        return None
    if not isinstance(grad, Tensor | np.ndarray):  # MindSpore refuses numbers there too
        raise BpropResultError(f"{who} returned {type(grad).__name__} where a Tensor gradient was expected")
    g = as_operand(grad)
    if g.shape != x.shape:
        try:
            g = unbroadcast(
                make_node("broadcast_to", (g,), (tuple(x.shape),)) if g.ndim < x.ndim else g, x.shape
            )
        except Exception:
            raise BpropResultError(
                f"{who} returned a gradient of shape {g.shape} for an input of shape {x.shape}"
            ) from None
    return cast(g, x.dtype) if x.dtype is not None and g.dtype != x.dtype else g


def with_bprop(cell, args: tuple, out):
    """``out`` (a Tensor, or a nested tuple or list of them) with its reverse rule taken from
    ``cell.bprop``, which runs once per reverse sweep with ``dout`` shaped like ``out``."""
    if hasattr(getattr(cell, "bprop", None), "__jit_options__"):
        raise RuntimeError(
            f"{type(cell).__name__}.bprop: decorating bprop with '@jit' is not supported (as in MindSpore)"
        )
    _check_no_parameters(cell, None, f"{type(cell).__name__}.bprop")
    leaves = tensor_leaves(out)
    if not leaves:
        return out
    inputs = [a._node for a in args if isinstance(a, Tensor)]
    env = merge_env(*leaves, *args)
    if isinstance(out, Tensor):
        node = make_node("custom_vjp", (out._node, *inputs), (BpropRule(cell, args, out, None),))
        return Tensor._wrap(node, env)
    packed, layout = _packed(leaves)
    node = make_node("custom_vjp", (packed, *inputs), (BpropRule(cell, args, out, layout),))
    return pack_like(out, [Tensor._wrap(_unpacked(node, *part), env) for part in layout])
