"""Kinks: where an op is not differentiable, frameworks follow conventions, not a derivative.

A comparison that fails only where some kink op sits at its kink is reported as explained.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.core.graph import Node, Var, topo_order
from symgrad.core.registry import lookup, make_node
from symgrad.verification import methods
from symgrad.verification.report import FAIL, KINK, Row


def kink_notes(
    out_nodes: Sequence[Node], args: Sequence[Var], values: Sequence[np.ndarray], notes: list[str]
) -> bool:
    """Add a note for every kink op whose argument is (numerically) at its kink; True if any."""
    found = []
    for node in topo_order(out_nodes):
        if (
            node.args and lookup(node.op).kink
        ):  # the kink is where the argument (or the arguments' difference) is 0
            arg = node.args[0] if len(node.args) == 1 else make_node("sub", node.args)
            found.append((node, arg))
    if not found:
        return False
    at = methods.compiled_values([a for _, a in found], args, values)
    scale = max(1.0, max(float(np.abs(v).max(initial=0.0)) for v in values))
    hit = False
    for (node, _), arg_value in zip(found, at):
        near = np.argwhere(np.abs(np.atleast_1d(arg_value)) <= 1e-3 * scale)
        if near.size:
            hit = True
            op = lookup(node.op)
            name, convention = op.display, op.kink
            where = ", ".join(str([int(k) for k in i]) for i in near[:4])
            notes.append(
                f"kink: the argument of {name} is at (or within a finite-difference step of) its kink at {where}; "
                f"symgrad uses {convention} there (as MindSpore does; PyTorch and JAX choose their own values at "
                "some kinks, and finite differences straddle it), so differences there are explained, not failures"
            )
    return hit


def kink_aware(row: Row, kinks: bool) -> Row:
    """A failed row at a kink is explained, not failed."""
    if kinks and row.verdict == FAIL:
        row.verdict = KINK
    return row
