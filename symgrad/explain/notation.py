"""The guide's notation, one for every command: ``·`` and ``^`` in text, ``\\cdot`` in LaTeX,
sums before the symbols that multiply them (``(y1 + y2 + y3)·z``), grouped sums kept in
parentheses, σ for the logistic function, and numbers as the guide prints them (0.51).

``text`` and ``latex`` print; ``tidy`` chooses the shortest of a formula's equivalent forms
(bounded in size and time); ``grouped_sum`` writes Σ of several elements as the guide does,
each element a parenthesized group with their common factor outside.
"""

from __future__ import annotations

import functools
import re
import threading

import numpy as np
import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

from symgrad.closed_form import sigmoid

SIMPLIFY_MAX_OPS = 300  # larger closed forms are shown as the engine gives them
SIMPLIFY_SECONDS = 3.0
THREAD_STACK_BYTES = 512 * 1024 * 1024  # reserved, not committed, until used
INLINE_OPS = 12  # simplify of up to this many operations takes well under SIMPLIFY_SECONDS
INLINE_POLYNOMIAL_OPS = 40  # and factor of a polynomial of up to this many, of degree up to
INLINE_DEGREE = 4


def familiar(expr):
    """``expr`` with 1/(1 + exp(-u)) written σ(u) (the same function, in the form people know)."""
    if not isinstance(expr, sympy.Basic):
        return expr

    def is_logistic(e) -> bool:
        if not (e.is_Pow and e.exp == -1 and e.base.is_Add and len(e.base.args) == 2):
            return False
        one, other = sorted(e.base.args, key=lambda a: a != 1)
        return one == 1 and isinstance(other, sympy.exp)

    def as_sigmoid(e):
        other = [a for a in e.base.args if a != 1][0]
        return sigmoid(-other.args[0])

    expr = expr.replace(is_logistic, as_sigmoid)
    return expr.replace(
        lambda e: isinstance(e, sigmoid) and e.args[0].could_extract_minus_sign(),
        lambda e: 1 - sigmoid(-e.args[0]),
    )  # σ(-u) = 1 - σ(u)


def _guide_order(expr: sympy.Mul) -> list | None:
    """A product's factors as the guide orders them: a number, symbols, sums, then symbols that
    come after every symbol of the sums (``x·(x + y)``, ``(y1 + y2 + y3)·z``), functions before sums
    (``σ(x)·(1 - σ(x))``); None where there is no sum or there is a fraction (SymPy's order then)."""
    coeff, rest = expr.as_coeff_mul()
    factors = list(rest)
    sums = [f for f in factors if f.is_Add]
    others = [f for f in factors if not f.is_Add]
    if not sums or not coeff.is_Integer or any(f.is_Pow and f.exp.could_extract_minus_sign() for f in others):
        return None
    first = [coeff] if coeff != 1 else []
    others = sorted(others, key=sympy.default_sort_key)
    if not all(f.is_Symbol for f in others):
        return first + others + sums
    names = [s.name for f in sums for s in f.free_symbols if s.is_Symbol]
    after = [f for f in others if names and all(f.name > n for n in names)]  # weights last: (y1 + y2)·z
    return first + [f for f in others if f not in after] + sums + after


def _sign_and_product(printer, expr, separator: str, brackets: str) -> str | None:
    if expr.could_extract_minus_sign() and not expr.args[0].is_Add:
        inner = _sign_and_product(printer, -expr, separator, brackets) if (-expr).is_Mul else None
        return None if inner is None else "-" + inner
    order = _guide_order(expr)
    if order is None:
        return None
    prec = precedence(expr)
    return separator.join(
        brackets.format(printer._print(f)) if f.is_Add and any(a.is_Add for a in f.args)
        else printer.parenthesize(f, prec, strict=False)
        for f in order
    )  # fmt: skip


class TextPrinter(StrPrinter):
    """SymPy's text, with the guide's order of factors and grouped sums kept in their order."""

    def _print_Mul(self, expr):
        return _sign_and_product(self, expr, "*", "[{}]") or super()._print_Mul(expr)

    def _print_Add(self, expr, order=None):
        if any(a.is_Add for a in expr.args):  # a grouped sum: its groups in their own order
            return _grouped(self, expr.args, "({})")
        return super()._print_Add(expr, order)


class GuideLatexPrinter(LatexPrinter):
    """SymPy's LaTeX with ``\\cdot`` products, the guide's order of factors and grouped sums."""

    def __init__(self):
        super().__init__({"mul_symbol": "dot"})

    def _print_Mul(self, expr):
        return _sign_and_product(self, expr, r" \cdot ", r"\left[{}\right]") or super()._print_Mul(expr)

    def _print_Add(self, expr, order=None):
        if any(a.is_Add for a in expr.args):
            return _grouped(self, expr.args, r"\left({}\right)")
        return super()._print_Add(expr, order)


def _grouped(printer, args, wrap: str) -> str:
    out = ""
    for k, a in enumerate(args):
        negative = not a.is_Add and a.could_extract_minus_sign()
        body = printer._print(-a if negative else a)
        body = wrap.format(body) if a.is_Add else body
        out += ("- " if k == 0 else " - ") + body if negative else ("" if k == 0 else " + ") + body
    return out


_TEXT = TextPrinter()
_LATEX = GuideLatexPrinter()


def text(expr) -> str:
    """``expr`` in the guide's text notation: ``x1·y1 + x2^2``."""
    return _cached_text(expr) if isinstance(expr, sympy.Basic) and _hashable(expr) else _text(expr)


@functools.lru_cache(maxsize=8192)
def _cached_text(expr: sympy.Basic) -> str:  # a derivation prints each element several times
    return _text(expr)


def _text(expr) -> str:
    printed = _TEXT.doprint(expr)
    return re.sub(r"(?<!\*)\*(?!\*)", "·", printed).replace("**", "^")


def _hashable(expr) -> bool:
    try:
        hash(expr)
    except TypeError:  # a mutable array
        return False
    return True


@functools.lru_cache(maxsize=8192)
def common_factors(expr):
    """``sympy.factor_terms(expr)``, once per expression (the sum, the forward result and tidy
    all ask for it)."""
    return sympy.factor_terms(expr)


def latex(expr) -> str:
    """``expr`` in the guide's LaTeX notation (``x_{1} \\cdot y_{1}``)."""
    return _LATEX.doprint(expr)


def number(value) -> str:
    """A number as the text prints it: at most 8 decimals, the shortest that reads back (0.51)."""
    value = np.asarray(value)[()]
    if isinstance(value, np.bool_ | bool):
        return str(bool(value))
    if isinstance(value, np.integer | int):
        return str(int(value))
    if np.isfinite(value) and value != 0 and not 1e-4 <= abs(value) < 1e8:
        return np.format_float_scientific(value, precision=8, unique=True, trim="-")
    return np.format_float_positional(value, precision=8, unique=True, trim="-")


@functools.lru_cache(maxsize=4096)
def tidy(expr, seconds: float | None = None):
    """The shortest of ``expr``, its common factors taken out, its ``factor`` and (beyond
    polynomials) its ``simplify``, for display.

    Bounded: expressions over SIMPLIFY_MAX_OPS operations are returned as they are; larger than
    quick ones are searched only when ``seconds`` is given (on a thread, abandoned after it),
    else they keep their common factors. Where the common factors taken
    out already are the factorization, ``factor`` is not run; small expressions (most of a
    derivation's elements) are worked on in this thread. Both give the same form, sooner.
    """
    if not isinstance(expr, sympy.Expr) or expr.is_Atom or sympy.count_ops(expr) > SIMPLIFY_MAX_OPS:
        return expr
    common = common_factors(expr)
    polynomial = expr.is_polynomial() or _polynomial_in_unrelated_functions(expr)
    found: list = []

    def work():
        for candidate in (sympy.factor, None if polynomial else sympy.simplify):
            if candidate is not None:
                found.append(candidate(expr))

    if polynomial and _factored(common):
        pass  # factor would give these factors again
    elif _quick(expr, polynomial):
        work()
    elif seconds is not None:  # derive's one formula: searched on a thread with a time bound
        _bounded(work, seconds)
    # otherwise (explanations: many formulas beside other SymPy work) larger ones keep their common
    # factors only: SymPy threads left running past their time crashed a test run (a segfault)
    candidates = [expr, common, *list(found)]
    return min(candidates, key=lambda e: (sympy.count_ops(e), len(text(e))))


def _bounded(work, seconds: float) -> None:
    """Run ``work`` on a thread with a deep stack (MindSpore raises the recursion limit to 10000,
    past what a default thread stack holds in SymPy's recursions) for at most ``seconds``."""
    previous = threading.stack_size(THREAD_STACK_BYTES)
    try:
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join(seconds)


def _quick(expr: sympy.Expr, polynomial: bool) -> bool:
    """Whether the search for ``expr`` is short enough to run without a thread and a time bound."""
    if polynomial:
        return sympy.count_ops(expr) <= INLINE_POLYNOMIAL_OPS and _degree(expr) <= INLINE_DEGREE
    return sympy.count_ops(expr) <= INLINE_OPS


def _degree(expr) -> int:
    """The total degree of a polynomial (function applications counted as variables)."""
    if expr.is_Add:
        return max(_degree(a) for a in expr.args)
    if expr.is_Mul:
        return sum(_degree(a) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Integer:
        return int(expr.exp) * _degree(expr.base)
    return 0 if expr.is_Number else 1


def _factored(expr: sympy.Expr) -> bool:
    """Whether ``expr`` is a number times powers of variables times at most one sum whose terms
    have no variable in common, one of them with a variable to the first power
    (``2·(s_a1·y1 + s_b1·x1)``, ``(3·v1·x1^2 + w1)·z``): such a sum is irreducible (linear in
    that variable, with a coefficient no other term shares a factor with), so this is the
    polynomial's factorization. Variables are symbols and function applications of a symbol."""
    sums = [f for f in sympy.Mul.make_args(expr) if f.is_Add]
    if len(sums) > 1 or _powers(sympy.Mul(*[f for f in sympy.Mul.make_args(expr) if not f.is_Add])) is None:
        return False
    if not sums:
        return True
    seen: set = set()
    linear = False
    for term in sums[0].args:
        powers = _powers(term)
        if powers is None or seen & set(powers):
            return False
        seen |= set(powers)
        linear = linear or 1 in powers.values()
    return linear


def _powers(monomial: sympy.Expr) -> dict | None:
    """{variable: exponent} of a rational number times powers of variables; None for anything else
    (floats too: factor treats them its own way)."""
    powers: dict = {}
    for f in sympy.Mul.make_args(monomial):
        base, exp = f.as_base_exp()
        if f.is_Rational:
            continue
        is_variable = base.is_Symbol or (isinstance(base, sympy.Function) and _of_one_symbol(base))
        if not (is_variable and exp.is_Integer and exp > 0) or base in powers:
            return None
        powers[base] = int(exp)
    return powers


def _polynomial_in_unrelated_functions(expr: sympy.Expr) -> bool:
    """Whether ``expr`` is a polynomial of degree at most 1 in each of its function applications
    (``v·cos(x1) - w·sin(y1)``), each of one symbol, no two sharing a function or a symbol:
    no identity relates them (as sin^2 + cos^2 = 1 or exp(x)·exp(y) = exp(x + y) would), so
    ``simplify`` finds nothing ``factor`` does not, and is skipped (it is the slow part)."""
    calls = expr.atoms(sympy.Function)
    if not calls or not all(_of_one_symbol(c) for c in calls):
        return False
    if len({c.func for c in calls}) != len(calls) or len({c.args[0] for c in calls}) != len(calls):
        return False
    stand_ins = {c: sympy.Dummy() for c in calls}
    polynomial = expr.xreplace(stand_ins)
    return polynomial.is_polynomial() and all(sympy.degree(polynomial, d) <= 1 for d in stand_ins.values())


def _of_one_symbol(call) -> bool:
    return len(call.args) == 1 and call.args[0].is_Symbol


def grouped_sum(terms: list):
    """Σ of ``terms`` as the guide writes it: each multi-term element a parenthesized group, their
    common factor outside (``[(x1·y1 + x2·y4) + (x1·y2 + x2·y5)]·z``); a plain sum otherwise."""
    groups = [common_factors(t) for t in terms]
    if len(groups) < 2 or not any(sympy.expand(g).is_Add for g in groups):
        return sympy.Add(*terms)
    common = None
    for g in groups:
        factors = set(sympy.Mul.make_args(g)) - {f for f in sympy.Mul.make_args(g) if f.is_Number}
        common = factors if common is None else common & factors
    outside = sympy.Mul(*sorted(common or [], key=sympy.default_sort_key))
    inner = [g / outside for g in groups]
    grouped = sympy.Add(*inner, evaluate=False)
    return grouped if outside == 1 else sympy.Mul(grouped, outside, evaluate=False)
