"""The expression graph: interned nodes shared by every value and derivative.

A node is one tensor-valued operation (``op``) on argument nodes, with hashable
``params`` (axes, shapes, flags), a symbolic ``shape`` and a ``dtype`` (``None``
for a weakly typed Python scalar constant). Nodes are hash-consed, so building the
same operation twice returns the same node: common subexpressions are shared by
construction, and a graph is a DAG that is walked, never expanded.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable
from typing import Any, TypeVar

import numpy as np

Shape = tuple[int, ...]


SomeNode = TypeVar("SomeNode", bound="Node")  # a mapping keyed by Vars (or any kind of node)


class Node:
    """One operation in the expression graph."""

    __slots__ = ("op", "args", "params", "shape", "dtype", "__weakref__")

    def __init__(self, op: str, args: tuple[Node, ...], params: tuple, shape: Shape, dtype):
        self.op = op
        self.args = args
        self.params = params
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Node({self.op}, shape={self.shape})"


class Var(Node):
    """A free variable: a traced input, a sens tensor, or a Parameter."""

    __slots__ = ("name", "param")

    def __init__(self, name: str, shape: Shape, dtype, param: Any = None):
        super().__init__("var", (), (), tuple(shape), np.dtype(dtype))
        self.name = name
        self.param = param

    def __repr__(self) -> str:
        return f"Var({self.display_name}, shape={self.shape})"

    @property
    def display_name(self) -> str:
        """The current name (a Parameter may be renamed after creation)."""
        return self.param.name if self.param is not None else self.name


class Const(Node):
    """A constant: a weak Python scalar (dtype None) or a NumPy array."""

    __slots__ = ("value",)

    def __init__(self, value):
        if isinstance(value, (bool, int, float)):
            super().__init__("const", (), (), (), None)
        else:
            value = np.asarray(value)
            super().__init__("const", (), (), value.shape, value.dtype)
        self.value = value

    @property
    def is_weak(self) -> bool:
        return self.dtype is None

    def __repr__(self) -> str:
        return f"Const({self.value!r})"


_interned: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def intern(key: tuple, build) -> Node:
    """Return the live node for ``key``, building it with ``build()`` if absent."""
    node = _interned.get(key)
    if node is None:
        node = build()
        _interned[key] = node
    return node


def const(value) -> Node:
    """A constant node; Python scalars and 0-d arrays are shared."""
    if isinstance(
        value, (bool, int, float)
    ):  # -0.0 == 0.0, but atan2 tells them apart: the sign is in the key
        sign = isinstance(value, float) and math.copysign(1.0, value) < 0
        return intern(("const", type(value).__name__, value, sign), lambda: Const(value))
    arr = np.asarray(value)
    if arr.ndim == 0:
        key = ("const", arr.dtype.str, arr.tobytes())  # the bits: -0.0 is not 0.0
        return intern(key, lambda: Const(arr))
    return Const(arr)


def scalar_value(node: Node):
    """The scalar a node holds if it is a constant (or a broadcast constant), else None."""
    while node.op == "broadcast_to":
        node = node.args[0]
    if isinstance(node, Const) and node.shape == ():
        return node.value.item() if isinstance(node.value, np.ndarray) else node.value
    return None


def topo_order(roots: Iterable[Node]) -> list[Node]:
    """All nodes reachable from ``roots``, arguments before users (iterative)."""
    order: list[Node] = []
    seen: set[Node] = set()
    stack: list[tuple[Node, bool]] = [(r, False) for r in reversed(list(roots))]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        stack.extend((a, False) for a in reversed(node.args) if a not in seen)
    return order


def free_vars(roots: Iterable[Node]) -> list[Var]:
    """The variables a graph depends on, in first-use order."""
    return [n for n in topo_order(roots) if isinstance(n, Var)]


def computed_elements(nodes: Iterable[Node]) -> int:
    """Elements of the values these nodes compute (leaves excluded): one point's working set."""
    return sum(math.prod(n.shape) for n in nodes if n.args)


def count_ops(roots: Iterable[Node]) -> int:
    """Number of non-leaf nodes: the size of the program that computes ``roots``."""
    return sum(1 for n in topo_order(roots) if n.args)
