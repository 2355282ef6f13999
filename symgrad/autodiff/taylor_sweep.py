"""Taylor mode: the first K derivatives along a path in one forward sweep.

Every seeded node carries its path derivatives ``x^(1)..x^(K)`` (d^k x(t) / dt^k at t = 0),
and every other node gets its own, order by order, from rules read from the op table:

- elementwise ``y = f(a_1..a_n)``: ``y' = sum_j f_j a_j'`` differentiated k-1 times by
  Leibniz's rule, ``y^(k) = sum_j sum_i C(k-1, i) f_j^(i) a_j^(k-i)``, where the partials
  ``f_j`` are graphs of registered ops (often of ``y`` itself: tanh' = 1 - y^2), whose own
  path derivatives of lower order come from the same sweep. This is the classic O(K^2)
  recurrence of Taylor arithmetic (exp, tanh, products...) with no op-specific rule;
- linear ops: the op applied to each order;
- custom ops (MatMul): Faa di Bruno's formula over the op's multilinear forms ``D^m f``,
  nested jvps of the op alone on stand-in variables, substituted back (MatMul is bilinear,
  so only m <= 2 survive and this is Leibniz's rule for products).

The graph of a K-th derivative grows like K^2 per op, instead of the nested jvps' growth
by a constant factor per order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import cache

from symgrad.autodiff.engine import add_terms, jvp_sweep, linear_tangent, partial, stand_ins
from symgrad.core.families.structural import broadcast_to
from symgrad.core.graph import Node, Var, topo_order
from symgrad.core.registry import ELEMENTWISE, LINEAR, NONDIFF, apply, lookup, substitute

Series = list[Node | None]  # x^(1)..x^(K) of one node; None is zero


@cache
def partitions(k: int, smallest: int = 1) -> tuple[tuple[int, ...], ...]:
    """The partitions of ``k`` as non-decreasing tuples of parts >= ``smallest``."""
    if k == 0:
        return ((),)
    return tuple((j, *rest) for j in range(smallest, k + 1) for rest in partitions(k - j, j))


def set_partition_count(parts: tuple[int, ...]) -> int:
    """How many set partitions of ``sum(parts)`` elements have blocks of these sizes."""
    count = math.factorial(sum(parts))
    for j in parts:
        count //= math.factorial(j)
    for mult in Counter(parts).values():
        count //= math.factorial(mult)
    return count


def _scaled(count: int, term: Node) -> Node:
    return term if count == 1 else apply("mul", float(count), term)


def _shaped(term: Node | None, node: Node) -> Node | None:
    """A derivative with its node's shape (an elementwise op may broadcast its arguments)."""
    return term if term is None or term.shape == node.shape else broadcast_to(term, node.shape)


class _Forms:
    """A custom op's multilinear forms ``D^m f [x^(j_1), .., x^(j_m)]`` on stand-ins, built on demand."""

    def __init__(self, node: Node):
        self.args, self.ans = stand_ins(node)
        self.slots: dict[tuple[int, int], Var] = {}  # (argument, order) -> the stand-in of its derivative
        self.forms: dict[tuple[int, ...], Node | None] = {(): self.ans}

    def slot(self, i: int, j: int) -> Var:
        if (i, j) not in self.slots:
            a = self.args[i]
            self.slots[i, j] = Var(f"_t{i}_{j}", a.shape, a.dtype)
        return self.slots[i, j]

    def form(self, parts: tuple[int, ...], active: list[list[bool]]) -> Node | None:
        if parts not in self.forms:
            base, j = self.form(parts[:-1], active), parts[-1]
            seeds = {a: self.slot(i, j) for i, a in enumerate(self.args) if active[i][j - 1]}
            self.forms[parts] = jvp_sweep([base], seeds)[0] if base is not None and seeds else None
        return self.forms[parts]


class _Sweep:
    """Path derivatives by order, memoized per (node, order)."""

    def __init__(self, seeds: dict[Node, Series]):
        self.seeds = seeds
        self.memo: dict[tuple[Node, int], Node | None] = {}
        self.forms: dict[Node, _Forms] = {}

    def coefficient(self, node: Node, k: int) -> Node | None:
        """``d^k node / dt^k`` at t = 0 (the node itself for k = 0); None where it is zero."""
        if k == 0:
            return node
        if node in self.seeds:
            return self.seeds[node][k - 1]
        if not node.args:
            return None
        key = (node, k)
        if key not in self.memo:
            self.memo[key] = self._rule(node, k)
        return self.memo[key]

    def _rule(self, node: Node, k: int) -> Node | None:
        kind = lookup(node.op).kind
        if kind == NONDIFF:
            return None
        below = [[self.coefficient(a, j) for j in range(1, k + 1)] for a in node.args]
        if all(t is None for series in below for t in series):
            return None
        if kind == LINEAR:
            now = [series[k - 1] for series in below]
            return None if all(t is None for t in now) else linear_tangent(node, now)
        if kind == ELEMENTWISE:
            return _shaped(self._leibniz(node, below, k), node)
        return _shaped(self._faa_di_bruno(node, below, k), node)

    def _leibniz(self, node: Node, below: list[Series], k: int) -> Node | None:
        total = None
        for j, series in enumerate(below):
            if all(t is None for t in series):
                continue
            f_j = partial(node, j)
            for i in range(k):
                a_part = series[k - i - 1]
                f_part = self.coefficient(f_j, i) if a_part is not None else None
                if f_part is not None:
                    total = add_terms(total, _scaled(math.comb(k - 1, i), apply("mul", f_part, a_part)))
        return total

    def _faa_di_bruno(self, node: Node, below: list[Series], k: int) -> Node | None:
        forms = self.forms.setdefault(node, _Forms(node))
        active = [[t is not None for t in series] for series in below]
        total = None
        for parts in partitions(k):
            term = forms.form(parts, active)
            if term is not None:
                total = add_terms(total, _scaled(set_partition_count(parts), term))
        if total is None:
            return None
        back: dict[Node, Node] = {**dict(zip(forms.args, node.args)), forms.ans: node}
        back.update(
            {v: b for (i, j), v in forms.slots.items() if j <= k and (b := below[i][j - 1]) is not None}
        )
        return substitute([total], back)[0]


def taylor_sweep(outputs: Sequence[Node], seeds: dict[Node, Series], order: int) -> list[Series]:
    """The path derivatives 1..order of each output, given those of the seeded nodes."""
    if order < 1:
        raise ValueError(f"taylor_sweep: order must be >= 1, got {order}")
    for s in seeds.values():
        if len(s) != order:
            raise ValueError(f"taylor_sweep: a seed has {len(s)} derivatives, expected {order}")
    sweep = _Sweep(dict(seeds))
    nodes = topo_order(outputs)
    for k in range(1, order + 1):  # order by order along the graph keeps the recursion shallow
        for node in nodes:
            sweep.coefficient(node, k)
    return [[sweep.coefficient(o, k) for k in range(1, order + 1)] for o in outputs]
