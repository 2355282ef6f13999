"""Formulas typed by a person, read as data: never evaluated as Python.

``parse("2x^2 + sin(x) y")`` tokenizes the text, inserts the multiplications a
student leaves out (``2x``, ``2 sin(x)``, ``x y``, ``x(x+1)``, ``(x+1)(x-1)``; a name of
two or more letters before ``(`` is a function call), reads ``^`` as a power, and walks
the syntax tree of the result, accepting only numbers, names,
``+ - * / **`` (``·`` is ``*``, so what ``derive`` prints reads back), unary minus and calls of known functions. Everything else (attribute
access, subscripts, keywords, strings, lambdas, ...) is refused with a message that
says what was found. Numbers stay exact (``0.1`` is 1/10); ``pi`` and ``E`` (or ``e``:
``e^x`` is exp(x)) are SymPy's constants.

The work is bounded, so no text can make it hang or crash: at most MAX_CHARACTERS
characters and MAX_TOKENS tokens, nesting (parentheses, signs, powers, calls) at most
MAX_DEPTH deep, number literals within MAX_DIGITS digits and exponents, and a power of
two numbers only where its exact value has at most MAX_DIGITS digits (``10^10^10`` is
refused rather than computed).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable

import sympy

from symgrad.core.registry import MAP, OPS

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_σ]\w*)|(?P<op>\*\*|[-+*/^(),·])|(?P<bad>\S))"
)
CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "e": sympy.E}  # e^x is exp(x), as students write it
MAX_CHARACTERS = 10_000
MAX_TOKENS = 4_000
MAX_DEPTH = 200
MAX_DIGITS = 1_000
_EXTRA_FUNCTIONS: dict[str, Callable] = {
    "ln": sympy.log,
    "max": sympy.Max,
    "min": sympy.Min,
    "Max": sympy.Max,
}
_EXTRA_FUNCTIONS["Min"] = sympy.Min
_EXTRA_FUNCTIONS["σ"] = lambda u: 1 / (1 + sympy.exp(-u))  # as derive prints the logistic function


class FormulaError(ValueError):
    """Text that is not a formula symgrad accepts (one line for the user)."""


def functions() -> dict[str, Callable]:
    """Function names a formula may call: every op's public functions (read off the op
    table, each meaning its op's SymPy form) plus ``ln``, ``max`` and ``min``."""
    table: dict[str, Callable] = {}
    for op in OPS.values():
        if op.pattern == MAP and op.arity is not None and not op.api.internal:
            for name in op.api.functions:
                table[name] = op.sympy
    table.update(_EXTRA_FUNCTIONS)
    return table


FUNCTIONS = functions()


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: number, name or op; anything else is refused."""
    if len(text) > MAX_CHARACTERS:
        raise FormulaError(f"the formula has {len(text)} characters; the limit is {MAX_CHARACTERS}")
    out: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # only trailing whitespace is left
            break
        kind = match.lastgroup
        assert kind is not None  # every alternative of _TOKEN is a named group
        if kind == "bad":
            raise FormulaError(
                f"unexpected character {match.group(kind)!r} at position {match.start(kind) + 1}"
            )
        if kind == "number":
            _check_number(match.group(kind))
        out.append((kind, match.group(kind)))
        position = match.end()
        if len(out) > MAX_TOKENS:
            raise FormulaError(f"the formula has more than {MAX_TOKENS} numbers, names and signs (the limit)")
    return out


def _check_number(text: str) -> None:
    mantissa, _, exponent = text.lower().partition("e")
    digits = len(mantissa.replace(".", "").lstrip("0"))
    if digits > MAX_DIGITS or (exponent and abs(int(exponent)) > MAX_DIGITS):
        raise FormulaError(
            f"the number {text[:40]}{'...' if len(text) > 40 else ''} is too long or large "
            f"(at most {MAX_DIGITS} digits and exponents up to {MAX_DIGITS})"
        )


def with_implicit_products(items: list[tuple[str, str]]) -> str:
    """The tokens as Python text, ``*`` between juxtaposed factors and ``**`` for ``^``."""
    parts: list[str] = []
    previous: tuple[str, str] | None = None
    for kind, text in items:
        if previous is not None:
            p_kind, p_text = previous
            # a one-letter name before "(" multiplies (x(x+1)); a longer one is a call (gamma(x))
            called = p_kind == "name" and text == "(" and (p_text in FUNCTIONS or len(p_text) > 1)
            is_function = p_text in FUNCTIONS or called
            ends_factor = p_kind == "number" or p_text == ")" or (p_kind == "name" and not is_function)
            starts_factor = kind in ("number", "name") or text == "("
            if ends_factor and starts_factor:
                parts.append("*")
        parts.append({"^": "**", "·": "*"}.get(text, text))
        previous = (kind, text)
    return " ".join(parts)


def parse(text: str) -> sympy.Expr:
    """The SymPy expression ``text`` stands for; FormulaError if it is not a formula."""
    source = with_implicit_products(tokens(text))
    if not source:
        raise FormulaError("the formula is empty")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse {text[:80]!r}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise FormulaError(f"the formula nests too deeply (the limit is {MAX_DEPTH} levels)") from None
    expr = _build(tree.body, 0)
    if not isinstance(expr, sympy.Expr):
        raise FormulaError(f"{text!r} is not a formula")
    return expr


def _power(base, exponent):
    """``base ** exponent``, refused where both are numbers and the exact value would be huge."""
    if isinstance(base, sympy.Number) and isinstance(exponent, sympy.Number) and abs(base) not in (0, 1):
        size = max(abs(base.p), abs(base.q)) if isinstance(base, sympy.Rational) else abs(float(base))
        digits = float(abs(exponent)) * math.log10(float(size)) if size > 1 else 0.0
        if digits > MAX_DIGITS:
            raise FormulaError(
                f"{base}^{exponent} has about {digits:.3g} digits; exact numbers are limited to {MAX_DIGITS}"
            )
    return base**exponent


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: _power,
}
_CHAINED = (ast.Add, ast.Sub, ast.Mult, ast.Div)  # left-associative: a long chain is a loop, not nesting


def _build(node: ast.AST, depth: int):
    if depth > MAX_DEPTH:
        raise FormulaError(f"the formula nests more than {MAX_DEPTH} levels deep (the limit)")
    if isinstance(node, ast.BinOp) and isinstance(node.op, _CHAINED):
        chain = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, _CHAINED):
            chain.append((type(node.op), node.right))
            node = node.left
        value = _build(node, depth + 1)
        for op, right in reversed(chain):
            value = _BINARY[op](value, _build(right, depth + 1))
        return value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_build(node.left, depth + 1), _build(node.right, depth + 1))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _build(node.operand, depth + 1)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return (
            sympy.Rational(ast.unparse(node)) if isinstance(node.value, float) else sympy.Integer(node.value)
        )
    if isinstance(node, ast.Name):
        return CONSTANTS.get(node.id) or sympy.Symbol(node.id, real=True)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name = node.func.id
        if name not in FUNCTIONS:
            raise FormulaError(f"unknown function {name!r}; known: {', '.join(sorted(FUNCTIONS))}")
        args = [_build(a, depth + 1) for a in node.args]
        try:
            return FUNCTIONS[name](*args)
        except (TypeError, ValueError) as exc:  # wrong argument count, or a relation where a number goes
            raise FormulaError(f"{name}({', '.join(map(str, args))}): {exc}") from None
    raise FormulaError(
        f"{_describe(node)} is not allowed in a formula (numbers, names, + - * / ^ and functions)"
    )


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return "a call of something other than a known function name"
    if isinstance(node, ast.Constant):
        return f"the constant {node.value!r}"
    return f"{type(node).__name__.lower()} syntax"
