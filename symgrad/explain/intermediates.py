"""Big graphs as named intermediates (t3 = tanh(t2), ...), one line per tensor op."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.core.graph import Const, Node, Var, topo_order
from symgrad.core.registry import lookup


def const_label(node: Const) -> str:
    """A constant as an explanation writes it: its value, or its shape when it is an array."""
    if node.is_weak or node.ndim == 0:
        value = node.value.item() if isinstance(node.value, np.ndarray) else node.value
        return f"{value:g}" if isinstance(value, float) else str(value)
    return f"const{node.shape}"


def intermediates(
    nodes: Sequence[Node], known: dict[Node, str] | None = None
) -> list[tuple[str, str, tuple]]:
    """(name, definition, shape) for every tensor op needed by ``nodes``, in order.

    ``known`` maps nodes already named (by an earlier call) to their names; it is
    extended in place, so a derivative's intermediates can refer to the forward ones.
    Ops are named ``t0, t1, ...`` in the order the kernel printer names them, so the
    lines match ``symgrad.kernel(forward outputs + derivatives).source`` name for name.
    """
    label: dict[Node, str] = known if known is not None else {}
    lines = []
    count = sum(1 for n in label if not isinstance(n, Var | Const))
    for node in topo_order(nodes):
        if node in label:
            continue
        if isinstance(node, Var):
            label[node] = node.display_name
        elif isinstance(node, Const):
            label[node] = const_label(node)
        else:
            name = f"t{count}"
            count += 1
            lines.append((name, lookup(node.op).describe(node, [label[a] for a in node.args]), node.shape))
            label[node] = name
    return lines
