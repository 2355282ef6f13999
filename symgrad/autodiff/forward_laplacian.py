"""The forward Laplacian: value, gradient and Laplacian in one forward sweep.

For a direction set ``e_1..e_d`` (the seeds), every node ``y`` gets ``G(y)``, its d
directional derivatives stacked on a new leading axis, and ``L(y) = sum_k D^2 y[e_k, e_k]``,
the sum of its second derivatives along the directions (Li et al. 2023, as folx does it).
The rules, read from the op table:

- elementwise ``y = f(a_1..a_n)``: ``G = sum_i f_i G_i`` and
  ``L = sum_i f_i L_i + sum_ij f_ij <G_i, G_j>`` (``<,>`` sums over the directions);
  ``f_ij`` is the op's partial differentiated once more by the forward sweep;
- linear ops: ``L = op(L_1..L_n)``, ``G`` by the op's ``batched`` rule;
- custom ops (MatMul): ``G`` by the ``batched`` rule, ``L`` = the op's jvp of the ``L_i``
  plus its second-order term summed over the directions.

A Laplacian therefore costs one sweep whose size does not grow with d (G is one node
with a leading axis), instead of d second-order reverse sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.autodiff.engine import add_terms, jvp_sweep, linear_tangent, partial, stand_ins
from symgrad.core.families.structural import broadcast_to, getitem, lead_aligned, reduce_sum, stack
from symgrad.core.graph import Node, Var, const, topo_order
from symgrad.core.registry import ELEMENTWISE, LINEAR, NONDIFF, apply, as_node, lookup, substitute

Pair = tuple[Node | None, Node | None]  # (G, L) of one node; None is zero


def _second_partials(node: Node) -> dict[tuple[int, int], Node]:
    """The nonzero ``d^2 node / d arg_i d arg_j`` (i <= j) of an elementwise node."""
    args, ans = stand_ins(node)
    rule = lookup(node.op).partials
    back: dict[Node, Node] = {**dict(zip(args, node.args)), ans: node}
    out: dict[tuple[int, int], Node] = {}
    for i in range(len(args)):
        first = as_node(rule[i](*args, ans, *node.params))
        for j in range(i, len(args)):
            (second,) = jvp_sweep([first], {args[j]: broadcast_to(as_node(1.0), args[j].shape)})
            if second is not None:
                out[i, j] = substitute([second], back)[0]
    return out


def _elementwise(node: Node, pairs: list[Pair]) -> Pair:
    rank = node.ndim
    g = lap = None
    for i, (gi, li) in enumerate(pairs):
        if gi is None and li is None:
            continue
        first = partial(node, i)
        if gi is not None:
            g = add_terms(g, apply("mul", first, lead_aligned(gi, rank)))
        if li is not None:
            lap = add_terms(lap, apply("mul", first, li))
    seconds = _second_partials(node) if g is not None else {}  # second-order terms need directions
    for (i, j), second in seconds.items():
        gi, gj = pairs[i][0], pairs[j][0]
        if gi is None or gj is None:
            continue
        inner = reduce_sum(apply("mul", lead_aligned(gi, rank), lead_aligned(gj, rank)), (0,))
        lap = add_terms(lap, apply("mul", second, inner if i == j else apply("mul", 2.0, inner)))
    if g is not None and g.shape[1:] != node.shape:
        g = broadcast_to(g, (g.shape[0], *node.shape))
    if lap is not None and lap.shape != node.shape:
        lap = broadcast_to(lap, node.shape)
    return g, lap


def _batched_by_slices(node: Node, gs: list[Node | None], d: int) -> Node:
    """The fallback of a missing ``batched`` rule: the op's own jvp direction by direction."""
    op = lookup(node.op)
    rows = []
    for k in range(d):
        slices = [None if g is None else getitem(g, k) for g in gs]
        rows.append(linear_tangent(node, slices) if op.kind == LINEAR else op.tangent(node, slices))
    return stack(rows, 0)


def _second_order(node: Node, gs: list[Node | None], d: int) -> Node | None:
    """``sum_k D^2 op[G_k, G_k]`` of a custom op: its jvp differentiated once more along G_k."""
    op = lookup(node.op)
    args, ans = stand_ins(node)
    tangents = [
        None if g is None else Var(f"_v{i}", g.shape[1:], g.dtype or np.float64) for i, g in enumerate(gs)
    ]
    first = op.tangent(ans, tangents)
    seeds = {a: t for a, t in zip(args, tangents) if t is not None}
    (second,) = jvp_sweep([first], seeds) if first is not None else (None,)
    if second is None:
        return None
    total = None
    back: dict[Node, Node] = {**dict(zip(args, node.args)), ans: node}
    for k in range(d):
        back.update({t: getitem(g, k) for t, g in zip(tangents, gs) if t is not None and g is not None})
        total = add_terms(total, substitute([second], back)[0])
    return total


def _structured(node: Node, pairs: list[Pair], d: int) -> Pair:
    op = lookup(node.op)
    gs = [p[0] for p in pairs]
    ls = [p[1] for p in pairs]
    g = None
    if any(x is not None for x in gs):
        g = op.batched(node, gs) if op.batched is not None else None
        if g is None:
            g = _batched_by_slices(node, gs, d)
    if op.kind == LINEAR:
        return g, linear_tangent(node, ls) if any(x is not None for x in ls) else None
    lap = op.tangent(node, ls) if any(x is not None for x in ls) else None
    return g, add_terms(lap, _second_order(node, gs, d))


def input_directions(xs: Sequence[Node]) -> dict[Node, Node]:
    """Seeds for the Laplacian over every element of ``xs``: one unit direction per element."""
    sizes = [int(np.prod(x.shape)) for x in xs]
    total, start, seeds = sum(sizes), 0, {}
    for x, size in zip(xs, sizes):
        eye = np.zeros((total, size), dtype=x.dtype or np.float64)
        eye[start + np.arange(size), np.arange(size)] = 1
        seeds[x] = const(eye.reshape((total, *x.shape)))
        start += size
    return seeds


def forward_laplacian(outputs: Sequence[Node], seeds: dict[Node, Node]) -> list[Pair]:
    """``(G, L)`` of each output, given each seeded node's directions ``G`` (shape ``(d, *node.shape)``).

    Seeded nodes start with ``L = 0``. ``G`` of an output has shape ``(d, *output.shape)``;
    either part is None where it is zero.
    """
    dims = {g.shape[0] for g in seeds.values()}
    if len(dims) != 1:
        raise ValueError(
            f"forward_laplacian: every seed needs the same number of directions, got {sorted(dims)}"
        )
    (d,) = dims
    state: dict[Node, Pair] = {n: (g, None) for n, g in seeds.items()}
    for node in topo_order(outputs):
        if node in state or not node.args:
            continue
        pairs = [state.get(a, (None, None)) for a in node.args]
        if all(g is None and lap is None for g, lap in pairs):
            continue
        kind = lookup(node.op).kind
        if kind == NONDIFF:
            continue
        state[node] = (
            _elementwise(node, pairs) if kind == ELEMENTWISE else _structured(node, pairs, d)
        )  # linear, custom
    return [state.get(o, (None, None)) for o in outputs]
