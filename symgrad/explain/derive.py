"""``symgrad derive``: closed-form derivatives of a formula typed as text, by symgrad's engine.

The formula is read as data (never evaluated as code, see ``formula.py``), turned into
a symgrad graph of registered ops, and differentiated by the same sweeps as everything
else. Exact constants stay exact, and closed forms are tidied for display.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import sympy

import lowering
from symgrad.autodiff.engine import vjp_sweep
from symgrad.closed_form import as_sympy, expanded_size, sigmoid, to_sympy
from symgrad.core.graph import Node, Var, const
from symgrad.core.registry import MAP, OPS, apply, lookup, substitute
from symgrad.explain import formula, notation
from symgrad.explain.notation import SIMPLIFY_MAX_OPS, SIMPLIFY_SECONDS, tidy

__all__ = ["SIMPLIFY_MAX_OPS", "SIMPLIFY_SECONDS", "Derivative", "DeriveError", "derive", "parse", "tidy"]


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


MAX_ORDER = 20
MAX_ROWS = 500  # mixed partials asked for (all orders together)
MAX_FLAT_OPS = 20_000  # operations in the closed forms, counted before they are built


def parse(text: str) -> sympy.Expr:
    """The formula as SymPy, read as data (see :mod:`symgrad.explain.formula`)."""
    try:
        return formula.parse(text)
    except formula.FormulaError as exc:
        raise DeriveError(str(exc)) from None


class _Graph:
    """Builds the graph of a SymPy expression.

    Exact constants other than integers (1/3, pi, sqrt(2)) become variables bound to
    their exact values, so derivatives keep them exact: they are substituted back into
    the closed forms and given their float values only for numbers.
    """

    def __init__(self, variables: dict[sympy.Symbol, Var]):
        self.variables = variables
        self.exact: dict[Var, sympy.Expr] = {}

    def node(self, expr: sympy.Expr) -> Node:
        if expr.is_Symbol:
            return self.variables[expr]
        if expr.is_Integer:
            return const(int(expr))
        if not expr.free_symbols:  # an exact constant
            var = next((v for v, e in self.exact.items() if e == expr), None)
            if var is None:
                var = Var(f"_exact{len(self.exact)}", (), np.float64)
                self.exact[var] = expr
            return var
        logistic = notation.familiar(expr)
        if isinstance(logistic, sigmoid):  # 1/(1 + exp(-u)) is σ(u): its derivative reads σ·(1 - σ)
            return apply("sigmoid", self.node(logistic.args[0]))
        if expr.func is sympy.Max and len(expr.args) == 2 and sympy.S.Zero in expr.args:
            (inner,) = [a for a in expr.args if a != 0]  # max(0, f) is ReLU: ReLU'(0) = 0, as ops.grad
            return apply("relu", self.node(inner))
        args = [self.node(a) for a in expr.args]
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


def to_graph(expr: sympy.Expr, variables: dict[sympy.Symbol, Var]) -> Node:
    """The graph of ``expr`` with its symbols mapped to ``variables`` (constants as numbers)."""
    graph = _Graph(variables)
    root = graph.node(expr)
    if graph.exact:
        root = substitute([root], {v: const(float(e)) for v, e in graph.exact.items()})[0]
    return root


class Derivative(NamedTuple):
    """One row of :func:`derive`."""

    wrt: tuple[str, ...]  # the variables, in the order of differentiation
    expr: sympy.Expr  # the closed form, exact and tidied
    value: float | None  # its value at the requested point

    @property
    def label(self) -> str:
        """``d/dx``, ``d^2/dxdy``, ..."""
        head = "d" if len(self.wrt) == 1 else f"d^{len(self.wrt)}"
        return f"{head}/{''.join('d' + n for n in self.wrt)}"

    def latex(self, function: str = "f") -> str:
        """``\\frac{\\partial^{2} f}{\\partial x \\partial y} = ...`` (with the value when known)."""
        k = len(self.wrt)
        top = rf"\partial {function}" if k == 1 else rf"\partial^{{{k}}} {function}"
        bottom = " ".join(rf"\partial {sympy.latex(sympy.Symbol(n))}" for n in self.wrt)
        text = rf"\frac{{{top}}}{{{bottom}}} = {notation.latex(self.expr)}"
        return text + (f" = {self.value:.12g}" if self.value is not None else "")

    def __str__(self) -> str:
        value = f" = {self.value:.12g}" if self.value is not None else ""
        return f"{self.label} = {notation.text(self.expr)}{value}"


def function_latex(text: str) -> str:
    """``f = ...``: the formula a derivation differentiates, in LaTeX."""
    return f"f = {notation.latex(parse(text))}"


def derive(
    text: str, wrt: Sequence[str], order: int = 1, at: dict[str, float] | None = None
) -> list[Derivative]:
    """Every derivative of ``text`` by ``wrt`` up to ``order``, with its value at ``at`` if given.

    >>> for row in derive("x^2/3 + pi x", ["x"], order=2):
    ...     print(row)
    d/dx = 2·x/3 + pi
    d^2/dxdx = 2/3
    """
    if not 1 <= order <= MAX_ORDER:
        raise DeriveError(f"--order must be from 1 to {MAX_ORDER}, got {order}")
    expr = parse(text)
    symbols = {s.name: s for s in expr.free_symbols}
    for name in list(wrt) + list(at or {}):
        if name not in symbols:
            known = ", ".join(sorted(symbols)) or "none"
            euler = " (e is Euler's number in a formula: e^x is exp(x); give the variable another name)"
            raise DeriveError(
                f"unknown variable {name!r}; the formula's variables are: {known}{euler if name == 'e' else ''}"
            )
    rows = sum(math.comb(len(wrt) + k - 1, k) for k in range(1, order + 1))
    if rows > MAX_ROWS:
        raise DeriveError(
            f"{len(wrt)} variables to order {order} make {rows} mixed partials; the limit is {MAX_ROWS}"
        )
    variables = {s: Var(s.name, (), np.float64) for s in symbols.values()}
    graph = _Graph(variables)
    root = graph.node(expr)
    results: list[tuple[tuple[str, ...], Node]] = []
    for k in range(1, order + 1):
        for combo in itertools.combinations_with_replacement(wrt, k):
            node = root
            for name in combo:
                node = vjp_sweep([(node, const(1.0))], [variables[symbols[name]]])[0] or const(0)
            results.append((combo, node))
        size = expanded_size([n for _, n in results])  # checked order by order: the next is larger
        if size > MAX_FLAT_OPS:
            raise DeriveError(
                f"the closed forms to order {k} would hold about {size:.3g} operations (limit "
                f"{MAX_FLAT_OPS}); ask for a lower --order or fewer variables"
            )
    table = {var: np.array(sym, dtype=object) for sym, var in variables.items()}
    table.update({var: np.array(sympy.Symbol(var.name), dtype=object) for var in graph.exact})
    exact = {sympy.Symbol(var.name): value for var, value in graph.exact.items()}
    closed = to_sympy([n for _, n in results], table, familiar=True)
    exprs = [notation.familiar(tidy(as_sympy(e).subs(exact), SIMPLIFY_SECONDS)) for e in closed]
    values: list[float | None] = [None] * len(results)
    if at:
        missing = sorted(set(symbols) - set(at))
        if missing:
            raise DeriveError(f"--at needs a value for every variable; missing: {', '.join(missing)}")
        args = list(variables.values()) + list(graph.exact)
        point = [np.float64(at[v.name]) for v in variables.values()] + [
            np.float64(e) for e in graph.exact.values()
        ]
        kernel = lowering.compile_kernel([n for _, n in results], args)
        try:
            values = [float(v) for v in kernel(*point)]
        except OverflowError:
            raise DeriveError(
                "a number in the formula is beyond float64's range (about 1.8e308), so there are no "
                "float64 values at the point; leave out --at to see the exact closed forms"
            ) from None
    return [Derivative(combo, e, v) for (combo, _), e, v in zip(results, exprs, values)]
