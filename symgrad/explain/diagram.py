"""Pictures of expression graphs: Graphviz DOT text, rendered to SVG/PNG when ``dot`` is installed.

The cut made by stop_gradient (and by every op with a zero derivative) is drawn as a
dashed red edge: the value flows through it, derivatives do not.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from symgrad.core.graph import Const, Node, Var, topo_order
from symgrad.core.registry import NONDIFF, lookup
from symgrad.explain.intermediates import const_label
from symgrad.files import atomic_file


def _nodes(items) -> list[Node]:
    return [getattr(t, "_node", t) for t in items]


def graph_dot(*tensors, labels: list[str] | None = None) -> str:
    """DOT text of the graph computing ``tensors`` (a network output, its gradient, ...)."""
    roots = _nodes(tensors)
    labels = labels or [f"result {i}" if len(roots) > 1 else "result" for i in range(len(roots))]
    ids = {}
    lines = ["digraph symgrad {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica", fontsize=11];']
    for i, node in enumerate(topo_order(roots)):
        ids[node] = f"n{i}"
        if isinstance(node, Var):
            attrs = f'label="{node.display_name}\\n{node.shape}", shape=ellipse, style=filled, fillcolor="#dbe9f6"'
        elif isinstance(node, Const):
            attrs = f'label="{const_label(node)}", shape=plaintext'
        elif lookup(node.op).kind == NONDIFF:  # stop_gradient, sign, comparisons
            attrs = f'label="{lookup(node.op).display}", color=red, fontcolor=red'
        else:
            attrs = f'label="{lookup(node.op).display}\\n{node.shape}"'
        lines.append(f"  {ids[node]} [{attrs}];")
        for arg in node.args:
            cut = ' [style=dashed, color=red, label="no gradient"]' if lookup(node.op).kind == NONDIFF else ""
            lines.append(f"  {ids[arg]} -> {ids[node]}{cut};")
    for k, (root, label) in enumerate(zip(roots, labels)):
        lines.append(f'  out{k} [label="{label}", shape=doubleoctagon];')
        lines.append(f"  {ids[root]} -> out{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_graph(*tensors, path: str | Path = "graph.svg", labels: list[str] | None = None) -> Path:
    """Draw the graph of ``tensors`` to ``path`` (.svg, .png or .pdf) with Graphviz."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "svg"
    if fmt not in ("svg", "png", "pdf"):
        raise ValueError(f"render_graph: unsupported format {fmt!r}; use .svg, .png or .pdf")
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(
            "render_graph needs Graphviz's 'dot' program, which is not installed "
            "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz). "
            "graph_dot(...) returns the DOT text without it."
        )
    drawn = subprocess.run(
        [dot, f"-T{fmt}"], input=graph_dot(*tensors, labels=labels).encode(), capture_output=True, check=True
    )
    with atomic_file(path) as file:
        file.write(drawn.stdout)
    return path
