"""Issue 43 items 5, 6 and 7: the guide's factored forms, familiar forms (σ, x^x, softmax without
its stability shift, the chain rule through named intermediates) and one notation for derive,
tour and explain. Each shown formula is checked against sympy.diff or the guide's printed form."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgrad
from symgrad import Tensor, ops
from symgrad.closed_form import sigmoid
from symgrad.explain.derivation import _text
from symgrad.explain.derive import derive
from symgrad.explain.formula import parse
from symgrad.tour.guide import BY_KEY
from symgrad.tour.runner import run_recorded

x = sympy.Symbol("x", real=True)


def _entries(key: str) -> dict:
    _, _, explanation = run_recorded(BY_KEY[key])
    found: dict = {}
    for step in explanation[0].steps:
        for e in step.entries:
            found.setdefault(e.lhs, e)  # the formula, not the number printed under the same name
    return found


def test_the_sum_is_factored_as_the_guide_prints_it():
    entries = _entries("input")
    text = entries["output"].rhs
    shown = _text(text)
    assert shown.startswith("[[(x1·y1 + x2·y4 + x3·y7)·z, (x1·y2 + x2·y5 + x3·y8)·z")  # guide, forward result
    total = _text(entries["Σ output"].rhs)
    assert total == (
        "[(x1·y1 + x2·y4 + x3·y7) + (x1·y2 + x2·y5 + x3·y8) + (x1·y3 + x2·y6 + x3·y9) + "
        "(x4·y1 + x5·y4 + x6·y7) + (x4·y2 + x5·y5 + x6·y8) + (x4·y3 + x5·y6 + x6·y9)]·z"
    )  # the guide's (1) Summation formula, character for character but its \cdot
    derivative = _text(entries["d(Σ output)/dx"].rhs)
    assert derivative.startswith("[[(y1 + y2 + y3)·z, (y4 + y5 + y6)·z, (y7 + y8 + y9)·z]")  # guide (2)
    s = {n: sympy.Symbol(n, real=True) for n in "x1 x2 x3 x4 x5 x6 y1 y2 y3 y4 y5 y6 y7 y8 y9 z".split()}
    flat = sum(
        (
            s[f"x{3 * i + k + 1}"] * s[f"y{3 * k + j + 1}"] * s["z"]
            for i in range(2)
            for j in range(3)
            for k in range(3)
        ),
        sympy.S.Zero,
    )
    assert sympy.expand(entries["Σ output"].rhs - flat) == 0


@pytest.mark.parametrize(
    "formula, expected",
    [
        ("1/(1+exp(-x))", "σ(x)·(1 - σ(x))"),
        ("sigmoid(x)", "σ(x)·(1 - σ(x))"),
        ("x^x", "x^x·(log(x) + 1)"),
        ("x^3/3 + pi x^2 sin(y)", "x·(x + 2·pi·sin(y))"),
    ],
)
def test_derive_prints_familiar_forms_in_the_guides_notation(formula, expected):
    row = derive(formula, ["x"])[0]
    assert str(row).split(" = ", 1)[1] == expected
    meaning = parse(formula)
    plain = row.expr.replace(sigmoid, lambda u: 1 / (1 + sympy.exp(-u)))
    assert plain.equals(sympy.diff(meaning, x))
    assert parse(expected).equals(sympy.diff(meaning, x))  # what derive prints reads back as the derivative


def test_the_derivative_of_sigma_has_its_value():
    (row,) = derive("1/(1+exp(-x))", ["x"], at={"x": 0.5})
    s = 1 / (1 + np.exp(-0.5))
    assert row.value == pytest.approx(s * (1 - s), rel=1e-14) and row.expr.has(sigmoid)


def test_explain_and_derive_agree_on_x_to_the_x():
    (d,) = symgrad.explain(ops.grad(lambda x: x**x), Tensor(np.array([1.5])))
    shown = [e for e in d.steps[2].entries][0]
    (row,) = derive("x^x", ["x"])
    assert _text(shown.rhs) == "[" + str(row).split(" = ")[1].replace("x", "x1") + "]"


def test_softmax_shows_neither_the_shift_nor_a_stop_gradient():
    x1, x2 = sympy.symbols("v1 v2", real=True)
    (d,) = symgrad.explain(ops.grad(lambda v: ops.softmax(v)[0]), Tensor(np.array([1.5, 0.5])))
    text = d.text()
    assert "Max" not in text and "stop_gradient" not in text
    forward = d.steps[0].entries[0].rhs
    assert sympy.simplify(forward - sympy.exp(x1) / (sympy.exp(x1) + sympy.exp(x2))) == 0
    derivative = d.steps[2].entries[0].rhs
    for k, v in enumerate((x1, x2)):
        assert sympy.simplify(derivative[k] - sympy.diff(forward, v)) == 0
    label = Tensor(np.array([1.0, 0.0]))
    (ce,) = symgrad.explain(
        ops.grad(lambda v: -(label * ops.log_softmax(v)).sum()), Tensor(np.array([1.5, 0.5]))
    )
    assert "Max" not in ce.text() and "stop_gradient" not in ce.text()
    assert sympy.simplify(ce.steps[0].entries[0].rhs - (sympy.log(sympy.exp(x1) + sympy.exp(x2)) - x1)) == 0


def test_a_students_own_stop_gradient_stays_visible():
    (d,) = symgrad.explain(
        ops.grad(lambda v: (ops.sin(v) + ops.stop_gradient(ops.reduce_max(v))).sum()),
        Tensor(np.array([0.3, 0.2])),
    )
    assert "stop_gradient(Max(v1, v2))" in d.text()


def test_twenty_nested_sines_are_the_chain_rule_through_named_intermediates():
    def f(v):
        for _ in range(20):
            v = ops.sin(v)
        return v

    (d,) = symgrad.explain(ops.grad(f), Tensor(np.array([0.5])))
    text = d.text()
    assert "t19 = sin(t18)" in text and "cos(t18)" in text and "d(Σ output)/dv = t" in text
    assert max(len(line) for line in text.splitlines()) < 200
    value = 0.5
    chain = 1.0
    for _ in range(20):
        chain *= np.cos(value)
        value = np.sin(value)
    assert d.steps[-1].entries[0].rhs[0] == pytest.approx(chain, rel=1e-12)


def test_one_notation_for_derive_tour_and_explain():
    assert "**" not in str(derive("x^3 y + x y^2", ["x", "y"])[0])
    assert "*" not in str(derive("x^3 y + x y^2", ["x", "y"])[0]).replace("·", "")
    for row in derive("x^3 y + sin(x) y^2", ["x", "y"], order=2):
        assert parse(str(row).split(" = ")[1]).equals(row.expr)  # what derive prints reads back


def test_derive_latex_writes_f_in_the_derivative(capsys):
    from symgrad.cli import main

    main(["derive", "sin(x) y", "--wrt", "x", "--latex"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == r"f = y \cdot \sin{\left(x \right)}"
    assert lines[1].startswith(r"\frac{\partial f}{\partial x} = ")


def test_named_intermediates_in_latex_have_the_sum_in_the_numerator():
    nn = symgrad.nn
    nn.set_seed(0)
    net = nn.SequentialCell(
        [nn.Dense(2, 16, activation="tanh"), nn.Dense(16, 16, activation="tanh"), nn.Dense(16, 1)]
    )
    (d,) = symgrad.explain(ops.grad(net), Tensor(np.array([0.1, 0.2], np.float32)))
    (which,) = [s for s in d.steps if s.title.startswith("(2) Which intermediate")]
    assert [e.lhs_latex for e in which.entries] == [r"\frac{\mathrm{d}(\sum \mathrm{output})}{\mathrm{d}x}"]
