"""Sums over the batch of points, pushed through the ops that allow it.

A loss gradient is a sum over points of per-point terms. Pushing the sum through
signed sums (add, sub, neg), order-keeping reshapes and per-point outer products
turns a per-point weight gradient (an outer product at every point) into one matrix
product over the batch. A per-point product of a small inner size ``k`` (the weight
gradient of a layer's tangents in a forward Laplacian: (H, d) @ (d, H) at each point)
is the sum of ``k`` outer products of its factors' columns and rows, so its batch sum
is too: no H x H matrix per point. Which ops allow it is read from their traits on the
op record (``signs``, ``keeps_order``, the CONTRACTION pattern), never from their names.
Every backend renders the same :data:`Plan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from symgrad.core.families.structural.builders import getitem
from symgrad.core.graph import Node, computed_elements, topo_order
from symgrad.core.registry import CONTRACTION, lookup

# per-point products of at most this inner size are batch-summed as that many outer products
# (Helmholtz's [2, 350, 350, 350, 1] Laplacian loss gradient on 465 points: 134 ms with the
# per-point 350 x 350 products summed, 50 ms as outer sums)
SPLIT_INNER = 16


@dataclass(frozen=True)
class PointSum:
    """The sum over the batch of a node computed at every point."""

    node: Node


@dataclass(frozen=True)
class SignedSum:
    """``sum(sign * term)`` of plans (the batch sum of an add, sub or neg)."""

    terms: tuple[tuple[int, Plan], ...]


@dataclass(frozen=True)
class Reshaped:
    """A batch sum reshaped to ``shape`` (element order unchanged)."""

    inner: Plan
    shape: tuple[int, ...]


@dataclass(frozen=True)
class OuterSum:
    """The batch sum of per-point outer products ``op(a) @ op(b)`` with inner size 1."""

    a: Node
    b: Node
    transpose_a: bool
    transpose_b: bool


Plan = PointSum | SignedSum | Reshaped | OuterSum


def plan(node: Node) -> Plan:
    """How to sum ``node`` over the batch: a small tree over per-point nodes.

    >>> from symgrad.core.graph import Var
    >>> from symgrad.core.registry import apply
    >>> a, b = Var("a", (3,), "float64"), Var("b", (3,), "float64")
    >>> render(plan(apply("sub", a, apply("neg", b))), {a: "ta", b: "tb"})
    '(rt.batch_sum(ta, 1, _batch) - (-rt.batch_sum(tb, 1, _batch)))'
    """
    if not node.args:
        return PointSum(node)
    op = lookup(node.op)
    if op.signs and all(a.shape == node.shape for a in node.args):
        return SignedSum(tuple((s, plan(a)) for s, a in zip(op.signs, node.args)))
    if op.keeps_order:
        return Reshaped(plan(node.args[0]), node.shape)
    if op.pattern == CONTRACTION and all(a.ndim == 2 for a in node.args):
        (a, b), (ta, tb) = node.args, node.params
        inner = a.shape[0] if ta else a.shape[1]
        if inner == 1:  # an outer product per point
            return OuterSum(a, b, ta, tb)
        if inner <= SPLIT_INNER:  # column i of op(a) times row i of op(b), summed over i
            return SignedSum(
                tuple((1, OuterSum(_inner(a, i, ta), _inner(b, i, not tb), ta, tb)) for i in range(inner))
            )
    return PointSum(node)


def _inner(x: Node, i: int, rows: bool) -> Node:
    """Row ``i`` of the matrix ``x`` as a (1, n) node where ``rows``, else column ``i`` as (n, 1)."""
    return getitem(x, (slice(i, i + 1), slice(None)) if rows else (slice(None), slice(i, i + 1)))


def leaves(p: Plan) -> list[Node]:
    """The per-point nodes a plan reads."""
    if isinstance(p, SignedSum):
        return [n for _, term in p.terms for n in leaves(term)]
    if isinstance(p, Reshaped):
        return leaves(p.inner)
    if isinstance(p, OuterSum):
        return [p.a, p.b]
    return [p.node]


def plan_batch_sums(
    outputs: Sequence[Node], reductions: Sequence[str | None] | None
) -> tuple[dict[int, Plan], list[Node]]:
    """Per reduced output, its plan; and the per-point nodes needed.

    Returns ``(plans, needed)``: ``plans`` maps an output's position to its plan,
    ``needed`` lists (once each) the outputs kept per point and the plans' leaves.
    """
    reductions = list(reductions) if reductions is not None else [None] * len(outputs)
    plans = {k: plan(o) for k, (o, r) in enumerate(zip(outputs, reductions)) if r}
    needed = [o for k, o in enumerate(outputs) if k not in plans]
    for p in plans.values():
        needed += leaves(p)
    return plans, list(dict.fromkeys(needed))


def point_bytes(outputs: Sequence[Node], reductions: Sequence[str | None] | None) -> int:
    """Bytes (8 per element) of the values a program computes for one point: the per-point nodes the
    outputs and the plans' leaves need (a weight gradient's outer product is one product over the
    batch, never a matrix per point)."""
    _plans, needed = plan_batch_sums(outputs, reductions)
    return 8 * max(1, computed_elements(topo_order(needed)))


def render(p: Plan, code: dict[Node, str]) -> str:
    """A runtime (``rt``) expression for the plan, given the names of its per-point nodes."""
    if isinstance(p, SignedSum):
        text = "".join(f" {'+' if s > 0 else '-'} {render(term, code)}" for s, term in p.terms)
        return f"({text[3:] if text.startswith(' + ') else '-' + text[3:]})"
    if isinstance(p, Reshaped):  # the sum has no batch axes: all its axes are reshaped
        return f"rt.reshape({render(p.inner, code)}, {_ndim(p.inner)}, {p.shape!r})"
    if isinstance(p, OuterSum):
        return f"rt.batch_outer({code[p.a]}, {code[p.b]}, {p.transpose_a}, {p.transpose_b}, _batch)"
    return f"rt.batch_sum({code[p.node]}, {p.node.ndim}, _batch)"


def _ndim(p: Plan) -> int:
    """The rank of a plan's sum."""
    if isinstance(p, SignedSum):
        return _ndim(p.terms[0][1])
    if isinstance(p, Reshaped):
        return len(p.shape)
    return 2 if isinstance(p, OuterSum) else p.node.ndim


def render_all(outputs: Sequence[Node], plans: dict[int, Plan], code: dict[Node, str]) -> list[str]:
    """Runtime expressions of every output: its plan's, or its per-point name."""
    return [render(plans[k], code) if k in plans else code[o] for k, o in enumerate(outputs)]
