"""Big graphs as named intermediates (h1 = tanh(t3 + b1), ...), one line per tensor op."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.core.graph import Const, Node, Var, topo_order

ACTIVATIONS = {"tanh", "sigmoid", "relu"}
INFIX = {"add": "+", "sub": "-", "mul": "·", "div": "/", "pow": "^"}


def _const_label(node: Const) -> str:
    if node.is_weak or node.ndim == 0:
        value = node.value.item() if isinstance(node.value, np.ndarray) else node.value
        return f"{value:g}" if isinstance(value, float) else str(value)
    return f"const{node.shape}"


def _describe(node: Node, args: list[str]) -> str:
    op = node.op
    if op in INFIX:
        return f"{args[0]} {INFIX[op]} {args[1]}"
    if op == "neg":
        return f"-{args[0]}"
    if op == "matmul":
        ta, tb = node.params
        return f"{args[0]}{'ᵀ' if ta else ''} @ {args[1]}{'ᵀ' if tb else ''}"
    if op == "reduce_sum":
        return f"Σ_{list(node.params[0])} {args[0]}"
    if op == "transpose":
        return f"{args[0]}ᵀ{list(node.params[0])}"
    if op == "getitem":
        index = ", ".join(
            str(i) if not isinstance(i, tuple) else ":" if i[2] == 1 else f"::{i[2]}" for i in node.params[0]
        )
        return f"{args[0]}[{index}]"
    if op in ("reshape", "broadcast_to"):
        return f"{op}({args[0]}, {node.shape})"
    return f"{op}({', '.join(args)})"


def intermediates(
    nodes: Sequence[Node], known: dict[Node, str] | None = None
) -> list[tuple[str, str, tuple]]:
    """(name, definition, shape) for every tensor op needed by ``nodes``, in order.

    ``known`` maps nodes already named (by an earlier call) to their names; it is
    extended in place, so a derivative's intermediates can refer to the forward ones.
    """
    label: dict[Node, str] = known if known is not None else {}
    lines = []
    counts = {"h": sum(v[:1] == "h" for v in label.values()), "t": sum(v[:1] == "t" for v in label.values())}
    for node in topo_order(nodes):
        if node in label:
            continue
        if isinstance(node, Var):
            label[node] = node.display_name
        elif isinstance(node, Const):
            label[node] = _const_label(node)
        else:
            prefix = "h" if node.op in ACTIVATIONS else "t"
            counts[prefix] += 1
            name = f"{prefix}{counts[prefix]}"
            lines.append((name, _describe(node, [label[a] for a in node.args]), node.shape))
            label[node] = name
    return lines
