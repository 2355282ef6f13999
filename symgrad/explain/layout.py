"""Long formulas broken into lines that fit a page (plain amsmath, no breqn).

A formula is cut into LaTeX pieces at the places a person breaks it: between the terms of a
sum, the factors of a product, the elements of an array, inside a long function argument.
Only a part too wide for a line is cut further, and pieces are packed greedily into lines
of at most ``budget`` units (about the width of one math character; see :func:`width`).
Parentheses that span a break are plain ``(`` ``)``: ``\\left(`` cannot span lines.
"""

from __future__ import annotations

import re

import numpy as np
import sympy

from symgrad.explain.notation import _guide_order, latex, number

LINE = 78.0  # units in a line of the documents' text width (18.5 cm at 10 pt); checked by compiling

_WIDE = re.compile(r"\\(cdot|sigma|Sigma|pi|partial|infty|quad|qquad)(?![a-zA-Z])")
_INVISIBLE = re.compile(r"\\(left|right|bigl|bigr|mathrm|operatorname|text|displaystyle)(?![a-zA-Z])")


def width(tex: str) -> float:
    """About how many characters wide ``tex`` prints (sub- and superscripts count 0.7, binary
    signs with their spacing 2, a fraction its wider part)."""
    total, k, scale = 0.0, 0, [1.0]
    tex = _INVISIBLE.sub("", tex)
    while k < len(tex):
        c = tex[k]
        if tex.startswith(r"\frac", k):
            top, k = _group(tex, k + 5)
            bottom, k = _group(tex, k)
            total += scale[-1] * max(width(top), width(bottom))
            continue
        wide = _WIDE.match(tex, k)
        if wide:
            total += scale[-1] * {"cdot": 2.0, "quad": 2.0, "qquad": 4.0}.get(wide.group(1), 1.0)
            k = wide.end()
            continue
        if c == "\\":
            name = re.match(r"\\([a-zA-Z]+|.)", tex[k:])
            assert name is not None
            word = name.group(1)
            total += scale[-1] * (len(word) if len(word) > 1 else 1.0)
            k += len(name.group(0))
            continue
        if c in "_^":
            part, k = _group(tex, k + 1)
            total += 0.7 * width(part)
            continue
        if c in "{} ":
            k += 1
            continue
        total += scale[-1] * (2.0 if c in "+-=<>" else 1.0)
        k += 1
    return total


def _group(tex: str, k: int) -> tuple[str, int]:
    """The braced group (or single character) at ``k`` and the position after it."""
    while k < len(tex) and tex[k] == " ":
        k += 1
    if k >= len(tex):
        return "", k
    if tex[k] != "{":
        return tex[k], k + 1
    depth, start = 0, k
    while k < len(tex):
        depth += {"{": 1, "}": -1}.get(tex[k], 0)
        k += 1
        if depth == 0:
            break
    return tex[start + 1 : k - 1], k


def _as_tree(value):
    """Nested lists for arrays (numbers as the text prints them), the value itself otherwise."""
    if isinstance(value, np.generic | float | int) and not isinstance(value, bool):
        return _Raw(number(value))
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return _Raw(number(value))
        return [_as_tree(v) for v in value]
    if isinstance(value, sympy.NDimArray | sympy.MatrixBase):
        return _as_tree_list(value.tolist())
    return value


def _as_tree_list(items):
    return [_as_tree_list(i) if isinstance(i, list) else i for i in items]


class _Raw(str):
    """LaTeX already printed (a number)."""


def tex_of(value) -> str:
    """``value`` as one line of LaTeX (arrays as the guide's nested brackets)."""
    return " ".join(pieces(value, float("inf")))


def pieces(value, budget: float = LINE) -> list[str]:
    """LaTeX fragments of ``value``, joined without separators; a line may break between any two."""
    value = _as_tree(value)
    if isinstance(value, list):
        whole = _sequence([pieces(v, float("inf")) for v in value], "[", "]", ", ")
        if width(" ".join(whole)) <= budget:
            return [" ".join(whole)]
        return _sequence([pieces(v, budget) for v in value], "[", "]", ", ")
    if isinstance(value, _Raw):
        return [str(value)]
    if isinstance(value, str):
        return [r"\text{" + value + "}"]
    tex = latex(value)
    if width(tex) <= budget or not isinstance(value, sympy.Basic):
        return [tex]
    if value.is_Add:
        return _sum(value, budget)
    if value.is_Mul:
        return _product(value, budget)
    if value.is_Pow and value.exp.is_Integer and value.exp > 0:
        return _wrap(pieces(value.base, budget), "(", ")^{" + latex(value.exp) + "}")
    if isinstance(value, sympy.Function) and len(value.args) == 1:
        head, tail = _call_parts(value)
        return _wrap(pieces(value.args[0], budget), head, tail)
    return [tex]


def _sequence(parts: list[list[str]], open_: str, close: str, separator: str) -> list[str]:
    out: list[str] = []
    for k, p in enumerate(parts):
        p = list(p) or [""]
        if k < len(parts) - 1:
            p[-1] += separator
        out += p
    return _wrap(out or [""], open_, close)


def _wrap(items: list[str], open_: str, close: str) -> list[str]:
    items = list(items)
    items[0] = open_ + items[0]
    items[-1] = items[-1] + close
    return items


def _grouped(term, budget: float) -> list[str]:
    """A term inside a sum or product, parenthesized where it is itself a sum."""
    inner = pieces(term, budget)
    if not term.is_Add:
        return inner
    if len(inner) == 1:
        return [r"\left(" + inner[0] + r"\right)"]
    return _wrap(inner, "(", ")")


def _sum(value: sympy.Add, budget: float) -> list[str]:
    grouped = any(a.is_Add for a in value.args)
    terms = list(value.args) if grouped else value.as_ordered_terms()
    out: list[str] = []
    for k, term in enumerate(terms):
        negative = not term.is_Add and term.could_extract_minus_sign()
        body = _grouped(-term if negative else term, budget)
        sign = "- " if negative else ("+ " if k else "")
        out += _wrap(body, sign, "")
    return out


def _product(value: sympy.Mul, budget: float) -> list[str]:
    top, bottom = sympy.fraction(value)
    if bottom != 1:
        return _grouped_factor(top, budget) + _wrap(_grouped_factor(bottom, budget), "/ ", "")
    order = _guide_order(value) or list(value.as_ordered_factors())
    out: list[str] = []
    for k, factor in enumerate(order):
        if factor == -1 and k == 0:
            out.append("-")
            continue
        part = _grouped(factor, budget)
        out += _wrap(part, r"\cdot " if out and out != ["-"] else "", "")
    return out


def _grouped_factor(term, budget: float) -> list[str]:
    inner = pieces(term, budget)
    if term.is_Atom or isinstance(term, sympy.Function):
        return inner
    if len(inner) == 1:
        return [r"\left(" + inner[0] + r"\right)"]
    return _wrap(inner, "(", ")")


def _call_parts(call) -> tuple[str, str]:
    """``\\sin(`` and ``)`` for a one-argument function: plain parentheses that may span lines."""
    hole = sympy.Symbol("HOLE")
    head, tail = latex(call.func(hole)).split(latex(hole), 1)
    head, tail = head.replace(r"\left(", "(").replace(r"\left[", "["), tail.replace(r"\right)", ")")
    head, tail = head.replace("{(", "(", 1), tail.replace(")}", ")", 1)  # SymPy's \sin{\left(x \right)}
    return head, tail.replace(r"\right]", "]")


def lines(value, budget: float = LINE) -> list[str]:
    """``value``'s LaTeX as lines of at most ``budget`` units (one piece may be longer)."""
    out: list[str] = []
    current, used = "", 0.0
    for piece in pieces(value, budget):
        w = width(piece)
        if current and used + w > budget:
            out.append(current)
            current, used = "", 0.0
        if not current and piece.startswith(("+ ", "- ", r"\cdot ", "/ ")):
            piece = "{}" + piece  # a sign that starts a line stays a binary sign
        current += (" " if current else "") + piece
        used += w
    return [*out, current] if current else out
