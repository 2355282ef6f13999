"""Turns a graph into the source of one Python function, one line per node.

The graph is already shared (hash-consed), so printing each node once is the
common-subexpression pass over every requested output together.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from lowering import batch_sums
from symgrad.core.graph import Const, Node, Var, topo_order
from symgrad.core.registry import MAP, lookup
from symgrad.errors import UnboundError

FUNCTION = "compute"  # the generated function's name


@dataclass
class Program:
    """Generated source plus what the caller must pass beside the arguments."""

    source: str
    arg_names: list[str]
    consts: list
    op_count: int
    lines: dict[int, str] = field(default_factory=dict)  # source line -> the op it computes, for messages


_INTERNAL = re.compile(r"[tcra]\d+")  # the generated code's own names: intermediates t0, constants c0, ...


def _identifier(name: str, taken: set[str]) -> str:
    base = re.sub(r"\W", "_", name) or "arg"
    if base[0].isdigit():
        base = f"p{base}"
    if keyword.iskeyword(base) or _INTERNAL.fullmatch(base):
        base = f"{base}_"
    candidate, k = base, 1
    while candidate in taken:  # a second "t" becomes "t_1", never an intermediate's name
        candidate, k = f"{base}_{k}", k + 1
    taken.add(candidate)
    return candidate


def argument_names(args: Sequence[Var]) -> list[str]:
    """Python identifiers for the kernel's arguments, from the variables' names."""
    taken = {"rt", "xp", "_c", "np", "_batch"}
    return [_identifier(var.display_name, taken) for var in args]


class NumpyPrinter:
    """Prints a graph as a Python function over a NumPy-like namespace ``np`` and helpers ``rt``.

    Backends specialise it as SymPy's printers do: a subclass changes which op
    spelling it reads (``spelling_keys``) or how an argument is written
    (:meth:`argument`). CuPy and PyTorch use it as it is, with their own ``np``/``rt``.
    """

    spelling_keys: tuple[str, ...] = ("numpy",)

    def print_program(
        self,
        outputs: Sequence[Node],
        args: Sequence[Var],
        reductions: Sequence[str | None] | None = None,
    ) -> Program:
        """Source of ``def compute(<args>, _c, _batch)`` returning the tuple of ``outputs``.

        An output whose reduction is ``"sum"`` is summed over the batch axes inside the
        function (``"mean"`` is the same sum; the caller divides); see ``batch_sums``.
        """
        plans, needed = batch_sums.plan_batch_sums(outputs, reductions)
        arg_names = argument_names(args)
        code: dict[Node, str] = dict(zip(args, arg_names))
        body: list[tuple[str, str, list[str]]] = []  # (names, expression, names it reads)
        described: dict[str, str] = {}
        consts: list = []
        op_count = 0
        for node in self.start(topo_order(needed), needed):
            if node in code:
                continue
            if isinstance(node, Var):
                raise unbound(node, args)
            if isinstance(node, Const) and node.is_weak:
                code[node] = _literal(node.value)
                continue
            if isinstance(node, Const):
                code[node] = f"c{len(body)}"
                body.append((code[node], _const_line(node, consts), []))
                continue
            code[node] = f"t{op_count}"
            op_count += 1
            self.emit(node, code, body)
            op = lookup(node.op)
            described[code[node]] = (
                f"{op.display}: {code[node]} = {op.describe(node, [code[a] for a in node.args])}"
            )
        self.flush(code, body)
        returned = []
        for k, out in enumerate(outputs):
            if k in plans:
                name = f"r{k}"
                body.append(
                    (name, batch_sums.render(plans[k], code), [code[n] for n in batch_sums.leaves(plans[k])])
                )
                returned.append(name)
            else:
                returned.append(code[out])
        lines = _with_deletions(body, set(returned) | set(arg_names))
        header = f"def {FUNCTION}({', '.join(arg_names + ['_c', '_batch'])}):"
        source = "\n".join(
            [header] + [f"    {line}" for line in lines] + [f"    return ({', '.join(returned)},)"]
        )
        where = {
            number: described[line.split(" = ", 1)[0]]
            for number, line in enumerate(lines, start=2)
            if line.split(" = ", 1)[0] in described
        }
        return Program(source + "\n", arg_names, consts, op_count, where)

    def start(self, nodes: list[Node], kept: Sequence[Node]) -> list[Node]:
        """The order to print ``nodes`` in (one that computes every node after its arguments), told
        before the first is printed; ``kept`` are read after the last."""
        return nodes

    def emit(self, node: Node, code: dict[Node, str], body: list[tuple[str, str, list[str]]]) -> None:
        """Append the line computing ``node`` (named ``code[node]``) to ``body``."""
        body.append((code[node], self.node(node, code), [code[a] for a in node.args]))

    def flush(self, code: dict[Node, str], body: list[tuple[str, str, list[str]]]) -> None:
        """Called after the last node: append any lines a subclass held back."""

    def node(self, node: Node, code: dict[Node, str]) -> str:
        """The expression computing ``node`` from its arguments' names."""
        op = lookup(node.op)
        arg_code = []
        for a in node.args:
            text = self.argument(node, a, code[a])
            if op.pattern == MAP and a.ndim < node.ndim and not isinstance(a, Const):
                text = f"rt.lift({text}, {a.ndim}, {node.ndim})"
            arg_code.append(text)
        return fill_template(node, arg_code, self.spelling_keys)

    def argument(self, node: Node, arg: Node, text: str) -> str:
        """How argument ``arg`` of ``node`` is written (``text`` is its name or literal)."""
        return text


def unbound(node: Var, args: Sequence[Var]) -> UnboundError:
    """The error for an output that depends on a variable that is not an argument."""
    listed = ", ".join(v.display_name for v in args)
    return UnboundError(
        f"the outputs depend on variable {node.display_name!r} {node.shape} "
        f"which is not among the kernel arguments ({listed})"
    )


def _const_line(node: Const, consts: list) -> str:
    """The expression of a constant: a literal scalar, or the next of the ``_c`` values."""
    if node.ndim == 0:
        return f"rt.scalar({_literal(node.value.item())}, {node.dtype.name!r})"
    consts.append(node.value)
    return f"_c[{len(consts) - 1}]"


def _with_deletions(body, keep: set[str]) -> list[str]:
    """Assignments with ``del`` after each temporary's last use, to bound peak memory (a line may
    assign several names: ``"t1, t2"``)."""
    assigned = {name for names, _, _ in body for name in names.split(", ")}
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


def fill_template(node: Node, arg_code: Sequence[str], spelling_keys: Sequence[str]) -> str:
    """The op's spelling for ``node`` (the first of ``spelling_keys`` it has), arguments in order."""
    template = lookup(node.op).spelling(*spelling_keys)
    fields: dict[str, object] = {f"p{i}": _literal(p) for i, p in enumerate(node.params)}
    fields.update({f"r{i}": a.ndim for i, a in enumerate(node.args)})
    return template.format(*arg_code, args=", ".join(arg_code), rank=node.ndim, **fields)


def _literal(value) -> str:
    """A Python literal for a number; infinities and NaN as float('inf') and float('nan'), which
    ``repr`` would print as the undefined names inf and nan."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    return repr(value)
