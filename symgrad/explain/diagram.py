"""Pictures of expression graphs: Graphviz DOT text, rendered to SVG/PNG when ``dot`` is installed.

The cut made by stop_gradient (and by every op with a zero derivative) is drawn as a
dashed red edge: the value flows through it, derivatives do not. Products show their
operands' shapes and transposes (``(1, 2) @ (2, 2)ᵀ``). ``call_dots(fn, *inputs)`` draws one
picture per differentiation a call performs, as micrograd does: each node with its forward
value and its gradient, and the reverse sweep's seed labelled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np

from symgrad.autodiff.engine import vjp_sweep
from symgrad.autodiff.recording import Episode, recording
from symgrad.core.graph import Const, Node, Var, const, topo_order
from symgrad.core.registry import CONTRACTION, NONDIFF, lookup
from symgrad.evaluate import evaluate
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
            attrs = f'label="{_op_label(node)}"'
        lines.append(f"  {ids[node]} [{attrs}];")
        for arg in node.args:
            cut = ' [style=dashed, color=red, label="no gradient"]' if lookup(node.op).kind == NONDIFF else ""
            lines.append(f"  {ids[arg]} -> {ids[node]}{cut};")
    for k, (root, label) in enumerate(zip(roots, labels)):
        lines.append(f'  out{k} [label="{label}", shape=doubleoctagon];')
        lines.append(f"  {ids[root]} -> out{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _op_label(node: Node) -> str:
    """An op's box: its name and output shape; a product also its operands' shapes and transposes."""
    op = lookup(node.op)
    if op.pattern == CONTRACTION:
        operands = op.describe(node, [str(a.shape) for a in node.args])
        return f"{op.display}\\n{operands} -> {node.shape}"
    return f"{op.display}\\n{node.shape}"


def _numbers(value) -> str:
    flat = np.asarray(value, dtype=np.float64).ravel()
    shown = ", ".join(f"{v:.4g}" for v in flat[:4]) + (", ..." if flat.size > 4 else "")
    return f"[{shown}]" if np.ndim(value) else shown


def _record(text: str) -> str:
    """Text inside a Graphviz record field."""
    for c in '\\{}|<>"':
        text = text.replace(c, "\\" + c)
    return text


def episode_dot(e: Episode) -> str:
    """DOT text of one differentiation: the forward graph with each node's value and gradient
    (the gradient of Σ seed·output with respect to that node), the seed and the cuts."""
    seeds = e.seeds or [const(np.ones(o.shape)) for o in e.outputs]
    nodes = topo_order(e.outputs)
    cuts = {n for n in nodes if n.args and lookup(n.op).kind == NONDIFF}  # no gradient passes a cut
    swept = vjp_sweep(list(zip(e.outputs, seeds)), [n for n in nodes if n not in cuts])
    found = dict(zip([n for n in nodes if n not in cuts], swept))
    grads = [found.get(n) for n in nodes]
    known = [g for g in grads if g is not None]
    values = dict(zip(nodes + known + list(seeds), evaluate(nodes + known + list(seeds), e.env)))
    ids = {node: f"n{i}" for i, node in enumerate(nodes)}
    lines = [
        "digraph symgrad {", "  rankdir=LR;",
        '  node [shape=record, fontname="Helvetica", fontsize=10];',
    ]  # fmt: skip
    names = dict(zip(e.wrt, e.wrt_names))
    for node, grad in zip(nodes, grads):
        if isinstance(node, Const) and not node.shape:
            head = const_label(node)
        elif isinstance(node, Var | Const):
            head = names.get(node, node.display_name if isinstance(node, Var) else const_label(node))
        else:
            head = _op_label(node).replace("\\n", " ")
        gradient = "grad: none (cut)" if grad is None else f"grad {_numbers(values[grad])}"
        fields = [_record(head), _record(f"value {_numbers(values[node])}"), _record(gradient)]
        style = ', style=filled, fillcolor="#dbe9f6"' if isinstance(node, Var) else ""
        if node.args and lookup(node.op).kind == NONDIFF:
            style = ", color=red, fontcolor=red"
        lines.append(f'  {ids[node]} [label="{{{" | ".join(fields)}}}"{style}];')
        for arg in node.args:
            cut = ' [style=dashed, color=red, label="no gradient"]' if lookup(node.op).kind == NONDIFF else ""
            lines.append(f"  {ids[arg]} -> {ids[node]}{cut};")
    for k, (out, seed) in enumerate(zip(e.outputs, seeds)):
        what = "sens" if e.seeds else "ones"
        label = _record(f"seed of the reverse sweep ({what})") + " | " + _record(_numbers(values[seed]))
        lines.append(f'  seed{k} [label="{{{label}}}", shape=record, color=blue, fontcolor=blue];')
        lines.append(f'  seed{k} -> {ids[out]} [style=dashed, color=blue, label="d(Σ s·output)/d output"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def call_dots(fn: Callable, *inputs) -> list[str]:
    """One picture (DOT text) per differentiation ``fn(*inputs)`` performs (nested ones are part
    of the outer one's graph)."""
    with recording() as episodes:
        fn(*inputs)
    if not episodes:
        raise ValueError(
            "call_dots: the call differentiated nothing (pass grad(f), a GradOperation cell, ...)"
        )
    return [episode_dot(e) for e in episodes if e.depth == 0]


def render_call(fn: Callable, *inputs, path: str | Path = "graph.svg") -> list[Path]:
    """Draw each differentiation of ``fn(*inputs)`` to ``path`` (then ``name_2.svg``, ...)."""
    path = Path(path)
    written = []
    for k, dot in enumerate(call_dots(fn, *inputs)):
        target = path if k == 0 else path.with_name(f"{path.stem}_{k + 1}{path.suffix}")
        written.append(_render(dot, target))
    return written


def render_graph(*tensors, path: str | Path = "graph.svg", labels: list[str] | None = None) -> Path:
    """Draw the graph of ``tensors`` to ``path`` (.svg, .png or .pdf) with Graphviz."""
    return _render(graph_dot(*tensors, labels=labels), Path(path))


def _render(dot_text: str, path: Path) -> Path:
    """``dot_text`` drawn to ``path``: written whole or not at all, readable by all (0644 under the
    usual umask), as any file a program creates."""
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
    drawn = subprocess.run([dot, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=True)
    umask = os.umask(0)
    os.umask(umask)
    with atomic_file(path) as file:
        file.write(drawn.stdout)
        os.fchmod(file.fileno(), 0o666 & ~umask)  # mkstemp's 0600 would hide it from the web server
    return path
