"""``tidy`` skips ``factor`` and ``simplify`` only where they cannot give a shorter form (issue 43:
the tour had become twice as slow); the forms it shows are those of the full search."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import sympy

from symgrad.explain.formula import parse

notation = importlib.import_module("symgrad.explain.notation")


def _full_search(expr):
    """What tidy chose before the shortcuts: the shortest of every candidate, each computed."""
    candidates = [expr, sympy.factor_terms(expr), sympy.factor(expr)]
    if not expr.is_polynomial():
        candidates.append(sympy.simplify(expr))
    return min(candidates, key=lambda e: (sympy.count_ops(e), len(notation.text(e))))


def _random_expressions(count: int) -> list:
    rng = np.random.default_rng(7)
    pool = sympy.symbols("s1:4 v1:4 w1:4 x1:4 y1:4 z", real=True)
    heads = [sympy.sin, sympy.cos, sympy.exp, sympy.tanh, sympy.log]
    out = []
    for _ in range(count):
        terms = []
        for _ in range(int(rng.integers(1, 4))):
            factors = [int(rng.integers(-3, 4)) or 1]
            for _ in range(int(rng.integers(1, 4))):
                s = pool[int(rng.integers(len(pool)))]
                kind = int(rng.integers(4))
                factors.append(
                    heads[int(rng.integers(len(heads)))](s) if kind == 0 else s ** int(rng.integers(1, 3))
                )
            terms.append(sympy.Mul(*factors))
        out.append(sympy.Add(*terms) * (pool[int(rng.integers(len(pool)))] if rng.integers(2) else 1))
    return out


KNOWN = [
    "1 - sin(x1)**2",  # cos(x1)^2: simplify must still run
    "sin(x1)**2 + cos(x1)**2",
    "exp(x1)*exp(y1)",
    "x1*z - y1*z",
    "-x1*z + y1*z",
    "-2*s1*x1 + 2*v1*y1",
    "3*v1*x1**2 + w1",
    "-3*v1*x1**2 - w1",
    "x1**2 - y1**2",  # (x1 - y1)(x1 + y1): factor must still run
    "x1*y1 + x1*y2 + x2*y1 + x2*y2",
    "v1*cos(x1) - w1*sin(y1)",
    "sin(x1) + cos(x1)",
    "2*s1*y1 + 2*v1*x1",
]


@pytest.mark.parametrize("expr", [parse(k) for k in KNOWN] + _random_expressions(40), ids=str)
def test_tidy_gives_the_form_of_the_full_search(expr):
    assert notation.tidy.__wrapped__(expr) == _full_search(expr)


def test_tidy_skips_the_slow_searches_for_the_forms_of_the_tour(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("not skipped")

    x1, y1, s1, s2, v1, w1, z = sympy.symbols("x1 y1 s_a1 s_b1 v_a1 v_b1 z", real=True)
    monkeypatch.setattr(sympy, "simplify", refuse)
    monkeypatch.setattr(sympy, "factor", refuse)
    for expr in [
        2 * s1 * y1 + 2 * s2 * x1,
        v1 * sympy.cos(x1) - w1 * sympy.sin(y1),
        -sympy.sin(x1),
        (x1 + y1) * z,
    ]:
        notation.tidy.__wrapped__(expr)
