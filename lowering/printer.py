"""Turns a graph into the source of one Python function, one line per node.

The graph is already shared (hash-consed), so printing each node once is the
common-subexpression pass over every requested output together.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.core.graph import Const, Node, Var, topo_order
from symgrad.core.registry import ELEMENTWISE, NONDIFF, lookup
from symgrad.errors import UnboundError


@dataclass
class Program:
    """Generated source plus what the caller must pass beside the arguments."""

    source: str
    arg_names: list[str]
    consts: list
    op_count: int


def _identifier(name: str, taken: set[str]) -> str:
    base = re.sub(r"\W", "_", name) or "arg"
    if base[0].isdigit():
        base = f"p{base}"
    if keyword.iskeyword(base):
        base = f"{base}_"
    candidate, k = base, 1
    while candidate in taken:
        candidate, k = f"{base}{k}", k + 1
    taken.add(candidate)
    return candidate


def print_program(outputs: Sequence[Node], args: Sequence[Var], template_key: str) -> Program:
    """Source of ``def kernel(<args>, _c)`` returning the tuple of ``outputs``."""
    taken = {"rt", "xp", "_c", "np"}
    code: dict[Node, str] = {}
    arg_names = []
    for var in args:
        name = _identifier(var.display_name, taken)
        code[var] = name
        arg_names.append(name)
    body: list[str] = []
    consts: list = []
    op_count = 0
    for node in topo_order(outputs):
        if node in code:
            continue
        if isinstance(node, Var):
            listed = ", ".join(v.display_name for v in args)
            raise UnboundError(
                f"the outputs depend on variable {node.display_name!r} {node.shape} "
                f"which is not among the kernel arguments ({listed})"
            )
        if isinstance(node, Const):
            if node.is_weak:
                code[node] = repr(node.value)
                continue
            if node.ndim == 0:
                line = f"rt.scalar({node.value.item()!r}, {node.dtype.name!r})"
            else:
                line = f"_c[{len(consts)}]"
                consts.append(node.value)
            name = f"c{len(body)}"
            body.append(f"{name} = {line}")
            code[node] = name
            continue
        name = f"t{op_count}"
        op_count += 1
        body.append(f"{name} = {_format(node, code, template_key)}")
        code[node] = name
    returned = ", ".join(code[o] for o in outputs)
    header = f"def kernel({', '.join(arg_names + ['_c'])}):"
    lines = [header] + [f"    {line}" for line in body] + [f"    return ({returned},)"]
    return Program("\n".join(lines) + "\n", arg_names, consts, op_count)


def _format(node: Node, code: dict[Node, str], template_key: str) -> str:
    op = lookup(node.op)
    template = op.names.get(template_key)
    if not template:
        raise NotImplementedError(f"op {op.display} has no {template_key!r} lowering")
    arg_code = []
    for a in node.args:
        text = code[a]
        if op.kind in (ELEMENTWISE, NONDIFF) and a.ndim < node.ndim and not isinstance(a, Const):
            text = f"rt.lift({text}, {a.ndim}, {node.ndim})"
        arg_code.append(text)
    fields = {f"p{i}": _literal(p) for i, p in enumerate(node.params)}
    fields.update({f"r{i}": a.ndim for i, a in enumerate(node.args)})
    return template.format(*arg_code, args=", ".join(arg_code), rank=node.ndim, **fields)


def _literal(value) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)
