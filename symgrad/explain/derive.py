"""``symgrad derive``: closed-form derivatives of a formula typed as text, by symgrad's engine.

The formula is parsed by SymPy, turned into a symgrad graph of registered ops, and
differentiated by the same sweeps as everything else.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import sympy
from sympy.parsing.sympy_parser import parse_expr

import lowering
from symgrad.autodiff.engine import vjp_sweep
from symgrad.closed_form import as_sympy, to_sympy
from symgrad.core.graph import Node, Var, const
from symgrad.core.registry import MAP, OPS, apply, lookup


def sympy_heads() -> dict[type, str]:
    """SymPy function -> op name, for every op whose meaning is one SymPy function of its arguments.

    Read off each record's SymPy meaning (``sin`` -> sympy.sin, ``add`` -> sympy.Add,
    ``maximum`` -> sympy.Max); ops whose meaning is a compound (sigmoid, div) are reached
    through their parts. Two ops with the same head would make parsing ambiguous: refused.
    """
    heads: dict[type, str] = {}
    for op in OPS.values():
        if op.pattern != MAP or op.arity is None:
            continue
        symbols = sympy.symbols(f"a0:{op.arity}")
        try:
            meaning = op.sympy(*symbols)
        except TypeError:  # the meaning takes parameters as well (heaviside)
            continue
        if isinstance(meaning, sympy.Basic) and meaning.args == symbols:
            if meaning.func in heads:
                raise ValueError(f"ops {heads[meaning.func]!r} and {op.name!r} both mean {meaning.func}")
            heads[meaning.func] = op.name
    return heads


HEADS = sympy_heads()


class DeriveError(ValueError):
    """A formula or request ``symgrad derive`` cannot handle (one line for the user)."""


def parse(text: str) -> sympy.Expr:
    try:
        expr = parse_expr(text, evaluate=True)
    except Exception as exc:  # SymPy raises many kinds for bad text
        raise DeriveError(f"cannot parse {text!r}: {type(exc).__name__}: {exc}") from None
    if not isinstance(expr, sympy.Expr):
        raise DeriveError(f"{text!r} is not a formula")
    return expr


def to_graph(expr: sympy.Expr, variables: dict[sympy.Symbol, Var]) -> Node:
    """The graph of ``expr`` with its symbols mapped to ``variables``."""
    if expr.is_Symbol:
        return variables[expr]
    if expr.is_Number:
        return const(int(expr) if expr.is_Integer else float(expr))
    if expr is sympy.pi or expr is sympy.E:
        return const(float(expr))
    args = [to_graph(a, variables) for a in expr.args]
    if expr.func in HEADS:
        name = HEADS[expr.func]
        if lookup(name).arity == 2:  # SymPy's Add, Mul, Max, Min take any number of arguments
            node = args[0]
            for a in args[1:]:
                node = apply(name, node, a)
            return node
        return apply(name, *args)
    names = ", ".join(sorted(f.__name__ for f in HEADS))
    raise DeriveError(f"unsupported function {expr.func.__name__}; supported: {names}")


def derive(
    text: str, wrt: Sequence[str], order: int = 1, at: dict[str, float] | None = None
) -> list[tuple[str, sympy.Expr, float | None]]:
    """(label, closed form, value at ``at`` or None) for every derivative up to ``order``."""
    if order < 1:
        raise DeriveError(f"--order must be 1 or more, got {order}")
    expr = parse(text)
    symbols = {s.name: s for s in expr.free_symbols}
    for name in list(wrt) + list(at or {}):
        if name not in symbols:
            known = ", ".join(sorted(symbols)) or "none"
            raise DeriveError(f"unknown variable {name!r}; the formula's variables are: {known}")
    variables = {s: Var(s.name, (), np.float64) for s in symbols.values()}
    root = to_graph(expr, variables)
    results: list[tuple[str, Node]] = []
    for k in range(1, order + 1):
        for combo in itertools.combinations_with_replacement(wrt, k):
            node = root
            for name in combo:
                node = vjp_sweep([(node, const(1.0))], [variables[symbols[name]]])[0] or const(0.0)
            head = "d" if k == 1 else f"d^{k}"
            results.append((f"{head}/{''.join('d' + n for n in combo)}", node))
    table = {var: np.array(sym, dtype=object) for sym, var in variables.items()}
    exprs = to_sympy([n for _, n in results], table)
    values: list[float | None] = [None] * len(results)
    if at:
        missing = sorted(set(symbols) - set(at))
        if missing:
            raise DeriveError(f"--at needs a value for every variable; missing: {', '.join(missing)}")
        args = list(variables.values())
        kernel = lowering.compile_kernel([n for _, n in results], args)
        values = [float(v) for v in kernel(*(np.float64(at[v.name]) for v in args))]
    return [(label, as_sympy(e), v) for (label, _), e, v in zip(results, exprs, values)]
