"""The one differentiation engine: a forward sweep and a reverse sweep over the graph.

Both sweeps read the op table only. Elementwise ops contribute ``partial * tangent``;
linear ops are applied to tangents and transposed for cotangents; custom ops carry
their own rules; non-differentiable ops (``stop_gradient`` among them) stop both
sweeps. Zero derivatives are ``None`` and never become nodes. Every derivative is
itself a graph of registered ops, so higher orders apply the same sweeps again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from symgrad.core import families  # noqa: F401  (fills the op table)
from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import broadcast_to, unbroadcast, zeros_like
from symgrad.core.graph import Node, SomeNode, Var, topo_order
from symgrad.core.registry import CUSTOM, ELEMENTWISE, LINEAR, NONDIFF, as_node, lookup, make_node


def add_terms(a: Node | None, b: Node | None) -> Node | None:
    """``a + b`` where None is zero."""
    if a is None:
        return b
    if b is None:
        return a
    return make_node("add", (a, b))


def plus(a: Node | None, b: Node) -> Node:
    """``a + b`` where a may be None (zero): never None."""
    return b if a is None else make_node("add", (a, b))


def partial(node: Node, i: int) -> Node:
    """d node / d node.args[i], built from the op's rule (which may use ``node`` itself)."""
    rule = lookup(node.op).partials[i]
    return as_node(rule(*node.args, node, *node.params))


def linear_tangent(node: Node, tangents: Sequence[Node | None]) -> Node:
    """A linear op applied to its arguments' tangents (zeros where an argument has none)."""
    args = tuple(zeros_like(a) if t is None else t for a, t in zip(node.args, tangents))
    return make_node(node.op, args, node.params)


def stand_ins(node: Node) -> tuple[list[Var], Node]:
    """Fresh variables for ``node``'s arguments and the op applied to them: the op alone, to
    differentiate (again) and substitute back."""
    args = [Var(f"_a{i}", a.shape, a.dtype or np.float64) for i, a in enumerate(node.args)]
    return args, make_node(node.op, tuple(args), node.params)


def _active(order: list[Node], wrt: set[Node]) -> set[Node]:
    """Nodes whose value depends on ``wrt`` through differentiable ops."""
    active: set[Node] = set()
    for node in order:
        if node in wrt:
            active.add(node)
        elif node.args and lookup(node.op).kind != NONDIFF and any(a in active for a in node.args):
            active.add(node)
    return active


def jvp_sweep(outputs: Sequence[Node], seeds: Mapping[SomeNode, Node]) -> list[Node | None]:
    """Forward mode: tangents of ``outputs`` given tangents ``seeds`` of some nodes."""
    tangent: dict[Node, Node] = dict(seeds.items())
    for node in topo_order(outputs):
        if node in tangent or not node.args:
            continue
        arg_t = [tangent.get(a) for a in node.args]
        if all(t is None for t in arg_t):
            continue
        op = lookup(node.op)
        if op.kind == NONDIFF:
            continue
        out: Node | None = None
        if op.kind == ELEMENTWISE:
            for i, t in enumerate(arg_t):
                if t is not None:
                    out = plus(out, make_node("mul", (partial(node, i), t)))
            assert out is not None  # some argument has a tangent
            if out.shape != node.shape:
                out = broadcast_to(out, node.shape)
        elif op.kind == LINEAR:
            out = linear_tangent(node, arg_t)
        elif op.kind == CUSTOM and op.jvp is not None:
            out = op.jvp(node, arg_t)
        else:  # pragma: no cover - the table is validated at import
            raise AssertionError(op.kind)
        if out is not None:
            tangent[node] = out
    return [tangent.get(o) for o in outputs]


def vjp_sweep(pairs: Sequence[tuple[Node, Node]], wrt: Sequence[Node]) -> list[Node | None]:
    """Reverse mode: cotangents of ``wrt`` for the sum of ``<output, cotangent>`` pairs."""
    outputs = [o for o, _ in pairs]
    order = topo_order(outputs)
    active = _active(order, set(wrt))
    cot: dict[Node, Node] = {}
    for out, ct in pairs:
        if out in active:
            cot[out] = plus(cot.get(out), ct)
    for node in reversed(order):
        if node not in cot or not node.args or node not in active:
            continue
        ct = cot[node]
        if node.dtype is not None and node.dtype.kind in "iu" and ct.dtype != node.dtype:
            ct = cast(ct, node.dtype)  # as MindSpore: the gradient at an integer node is an integer tensor
        op = lookup(node.op)
        if op.kind == ELEMENTWISE:
            arg_ct = [
                unbroadcast(make_node("mul", (ct, partial(node, i))), a.shape) if a in active else None
                for i, a in enumerate(node.args)
            ]
        elif op.kind == LINEAR and op.transpose is not None:
            arg_ct = op.transpose(node, ct)
        elif op.vjp is not None:
            arg_ct = op.vjp(node, ct)
        else:  # pragma: no cover - the table is validated at import
            raise AssertionError(op.kind)
        for a, c in zip(node.args, arg_ct):
            if a in active and c is not None:
                cot[a] = plus(cot.get(a), c)
    return [cot.get(w) for w in wrt]
