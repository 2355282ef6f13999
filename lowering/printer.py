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


def argument_names(args: Sequence[Var]) -> list[str]:
    """Python identifiers for the kernel's arguments, from the variables' names."""
    taken = {"rt", "xp", "_c", "np", "_batch"}
    return [_identifier(var.display_name, taken) for var in args]


def print_program(
    outputs: Sequence[Node],
    args: Sequence[Var],
    template_key: str,
    reductions: Sequence[str | None] | None = None,
) -> Program:
    """Source of ``def kernel(<args>, _c, _batch)`` returning the tuple of ``outputs``.

    An output whose reduction is ``"sum"`` is summed over the batch axes inside the
    kernel (``"mean"`` is the same sum; the caller divides). Sums are pushed through
    additions and reshapes, so a per-point outer product (a weight gradient) becomes
    one matrix product over the batch axis instead of an array per point.
    """
    plans, needed = plan_batch_sums(outputs, reductions)
    arg_names = argument_names(args)
    code: dict[Node, str] = dict(zip(args, arg_names))
    body: list[tuple[str, str, list[str]]] = []  # (name, expression, names it reads)
    consts: list = []
    op_count = 0
    for node in topo_order(needed):
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
            code[node] = f"c{len(body)}"
            body.append((code[node], line, []))
            continue
        code[node] = f"t{op_count}"
        op_count += 1
        body.append((code[node], _format(node, code, template_key), [code[a] for a in node.args]))
    returned = []
    for k, out in enumerate(outputs):
        if k in plans:
            name = f"r{k}"
            expr = _render_sum(plans[k], code)
            body.append((name, expr, [code[n] for n in _plan_leaves(plans[k])]))
            returned.append(name)
        else:
            returned.append(code[out])
    lines = _with_deletions(body, set(returned) | set(arg_names))
    header = f"def kernel({', '.join(arg_names + ['_c', '_batch'])}):"
    source = "\n".join(
        [header] + [f"    {line}" for line in lines] + [f"    return ({', '.join(returned)},)"]
    )
    return Program(source + "\n", arg_names, consts, op_count)


def _with_deletions(body, keep: set[str]) -> list[str]:
    """Assignments with ``del`` after each temporary's last use, to bound peak memory."""
    assigned = {name for name, _, _ in body}
    last_use: dict[str, int] = {}
    for i, (_, _, reads) in enumerate(body):
        for name in reads:
            if name in assigned:
                last_use[name] = i
    dies_at: dict[int, list[str]] = {}
    for name, i in last_use.items():
        if name not in keep:
            dies_at.setdefault(i, []).append(name)
    lines = []
    for i, (name, expr, _) in enumerate(body):
        lines.append(f"{name} = {expr}")
        if i in dies_at:
            lines.append(f"del {', '.join(sorted(dies_at[i]))}")
    return lines


# ----- batch sums, pushed through linear ops -----


def plan_batch_sums(outputs: Sequence[Node], reductions: Sequence[str | None] | None):
    """Per reduced output, how to sum it over the batch; and the per-point nodes needed.

    Returns ``(plans, leaves)``: ``plans`` maps an output's position to its plan,
    ``leaves`` lists (once each) the outputs kept per point and the plans' leaves.
    """
    reductions = list(reductions) if reductions is not None else [None] * len(outputs)
    plans = {k: _plan_sum(o) for k, (o, r) in enumerate(zip(outputs, reductions)) if r}
    needed = [o for k, o in enumerate(outputs) if k not in plans]
    for plan in plans.values():
        needed += _plan_leaves(plan)
    return plans, list(dict.fromkeys(needed))


def render_batch_sums(outputs: Sequence[Node], plans: dict, names: dict[Node, str]) -> list[str]:
    """Runtime (``rt``) expressions of every output, given the names of the per-point leaves."""
    return [_render_sum(plans[k], names) if k in plans else names[o] for k, o in enumerate(outputs)]


def _plan_sum(node: Node):
    """How to sum ``node`` over the batch: a small tree over per-point nodes."""
    if node.op in ("add", "sub") and all(a.shape == node.shape for a in node.args):
        return (node.op, _plan_sum(node.args[0]), _plan_sum(node.args[1]))
    if node.op == "neg":
        return ("neg", _plan_sum(node.args[0]))
    if node.op == "reshape":
        return ("reshape", _plan_sum(node.args[0]), node.shape)
    if node.op == "matmul" and all(a.ndim == 2 for a in node.args):
        (a, b), (ta, tb) = node.args, node.params
        inner = a.shape[0] if ta else a.shape[1]
        if inner == 1:  # an outer product per point: one matrix product over the batch
            return ("outer", a, b, ta, tb)
    return ("sum", node)


def _plan_leaves(plan) -> list[Node]:
    kind = plan[0]
    if kind in ("add", "sub"):
        return _plan_leaves(plan[1]) + _plan_leaves(plan[2])
    if kind in ("neg", "reshape"):
        return _plan_leaves(plan[1])
    if kind == "outer":
        return [plan[1], plan[2]]
    return [plan[1]]


def _render_sum(plan, code: dict[Node, str]) -> str:
    kind = plan[0]
    if kind == "add":
        return f"({_render_sum(plan[1], code)} + {_render_sum(plan[2], code)})"
    if kind == "sub":
        return f"({_render_sum(plan[1], code)} - {_render_sum(plan[2], code)})"
    if kind == "neg":
        return f"(-{_render_sum(plan[1], code)})"
    if kind == "reshape":
        return f"rt.reshape({_render_sum(plan[1], code)}, 0, {plan[2]!r})"
    if kind == "outer":
        _, a, b, ta, tb = plan
        return f"rt.batch_outer({code[a]}, {code[b]}, {ta}, {tb}, _batch)"
    node = plan[1]
    return f"rt.batch_sum({code[node]}, {node.ndim}, _batch)"


def _format(node: Node, code: dict[Node, str], template_key: str) -> str:
    op = lookup(node.op)
    arg_code = []
    for a in node.args:
        text = code[a]
        if template_key == "mindspore" and isinstance(a, Const) and a.is_weak and node.dtype is not None:
            # MindSpore rounds Python floats to float32; give the constant the op's own dtype
            text = f"rt.scalar({a.value!r}, {node.dtype.name!r})"
        if op.kind in (ELEMENTWISE, NONDIFF) and a.ndim < node.ndim and not isinstance(a, Const):
            text = f"rt.lift({text}, {a.ndim}, {node.ndim})"
        arg_code.append(text)
    return fill_template(node, arg_code, template_key)


def fill_template(node: Node, arg_code: Sequence[str], template_key: str) -> str:
    """The op's ``template_key`` spelling for ``node``, with the arguments' code in order."""
    op = lookup(node.op)
    template = op.names.get(template_key)
    if not template:
        raise NotImplementedError(f"op {op.display} has no {template_key!r} lowering")
    fields = {f"p{i}": _literal(p) for i, p in enumerate(node.params)}
    fields.update({f"r{i}": a.ndim for i, a in enumerate(node.args)})
    return template.format(*arg_code, args=", ".join(arg_code), rank=node.ndim, **fields)


def _literal(value) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)
