"""Closed forms in the guide's notation, checked as SymPy equalities (not numbers)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad import Parameter, ParameterTuple, Tensor, nn, ops
from symgrad.closed_form import symbol_names

x1, x2, x3, x4, x5, x6 = sympy.symbols("x1:7", real=True)
y1, y2, y3, y4, y5, y6, y7, y8, y9 = sympy.symbols("y1:10", real=True)
s1, s2, s3, s4, s5, s6 = sympy.symbols("s1:7", real=True)
z = sympy.Symbol("z", real=True)

X = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=symgrad.dtype.float32)
Y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=symgrad.dtype.float32)
SENS = Tensor([[0.1, 0.6, 0.2], [0.8, 1.3, 1.1]], dtype=symgrad.dtype.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return self.matmul(x * self.z, y)


def same(a, b) -> bool:
    return sympy.simplify(sympy.expand(a - b)) == 0


def test_input_gradient_element_is_y_row_sum_times_z():
    g = ops.GradOperation()(Net())(X, Y)
    assert same(g.expr[0, 0], (y1 + y2 + y3) * z)
    assert same(g.expr[1, 2], (y7 + y8 + y9) * z)


def test_weight_gradient_is_the_sum_of_the_six_products():
    net = Net()
    (gz,) = ops.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))(X, Y)
    six = (
        (x1 * y1 + x2 * y4 + x3 * y7) + (x1 * y2 + x2 * y5 + x3 * y8) + (x1 * y3 + x2 * y6 + x3 * y9)
        + (x4 * y1 + x5 * y4 + x6 * y7) + (x4 * y2 + x5 * y5 + x6 * y8) + (x4 * y3 + x5 * y6 + x6 * y9)
    )  # fmt: skip
    assert gz.shape == (1,)
    assert same(gz.expr[0], six)


def test_sens_weights_each_output_element():
    g = ops.GradOperation(sens_param=True)(Net())(X, Y, SENS)
    assert same(g.expr[1, 2], (s4 * y7 + s5 * y8 + s6 * y9) * z)
    assert same(g.expr[0, 0], (s1 * y1 + s2 * y2 + s3 * y3) * z)


def test_sin_second_derivative_is_minus_sin():
    first = ops.GradOperation()(ops.Sin())
    second = ops.GradOperation()(first)(Tensor(np.array([1.0], np.float32)))
    assert second.expr[0] == -sympy.sin(x1)


def test_stop_gradient_removes_its_branch():
    class Stopped(nn.Cell):
        def construct(self, x, y):
            return ops.matmul(x, y) + ops.stop_gradient(ops.matmul(x, y))

    class Both(nn.Cell):
        def construct(self, x, y):
            return ops.matmul(x, y) + ops.matmul(x, y)

    stopped = ops.GradOperation()(Stopped())(X, Y).expr
    both = ops.GradOperation()(Both())(X, Y).expr
    assert same(stopped[0, 0], y1 + y2 + y3)
    assert same(both[0, 0], 2 * (y1 + y2 + y3))
    # the forward value still contains the stopped branch
    assert same(Stopped()(X, Y).asnumpy()[0, 0], 2 * Net()(X, Y).asnumpy()[0, 0])


def test_cross_terms_keep_the_selected_first_order_result():
    class Cube(nn.Cell):
        def construct(self, x, y):
            return x * x * y

    first = ops.GradOperation(get_all=True)(Cube())
    one, zero = Tensor(np.array([1.0], np.float32)), Tensor(np.array([0.0], np.float32))
    dxdx, dxdy = ops.GradOperation(get_all=True, sens_param=True)(first)(
        Tensor(np.array([4.0], np.float32)), Tensor(np.array([5.0], np.float32)), (one, zero)
    )
    sa, sb = sympy.symbols("s_a1 s_b1", real=True)
    assert same(dxdx.expr[0], 2 * sa * y1 + 2 * sb * x1)
    assert same(dxdy.expr[0], 2 * sa * x1)


def test_expr_is_a_sympy_object_to_keep_working_with():
    g = ops.GradOperation()(Net())(X, Y)
    assert isinstance(g.expr, sympy.NDimArray)
    assert g.expr.shape == (2, 3)
    assert symgrad.closed_form(g)[0, 1].free_symbols == {y4, y5, y6, z}
    scalar = ops.grad(lambda a: ops.sin(a) * a)(Tensor(np.float64(0.5)))
    assert same(
        scalar.expr,
        sympy.sin(sympy.Symbol("a", real=True))
        + sympy.Symbol("a", real=True) * sympy.cos(sympy.Symbol("a", real=True)),
    )


def test_gradient_of_one_element_is_a_one_hot_formula():
    w = symgrad.placeholder("w", (3,))
    g = ops.grad(lambda w: w[1] * w[2])(w).expr
    w2, w3 = sympy.symbols("w2 w3", real=True)
    assert list(g) == [0, w3, w2]


def test_symbol_naming_follows_the_guide():
    assert symbol_names("x", (2, 3), False) == ["x1", "x2", "x3", "x4", "x5", "x6"]
    assert symbol_names("x", (1,), False) == ["x1"]
    assert symbol_names("z", (1,), True) == ["z"]
    assert symbol_names("t", (), False) == ["t"]
    assert symbol_names("W1", (2,), True) == ["W1_1", "W1_2"]


def test_constants_become_exact_numbers():
    g = ops.grad(lambda a: 0.1 * a**3)(Tensor(np.array([2.0])))
    a1 = sympy.Symbol("a1", real=True)
    assert g.expr[0] == sympy.Rational(3, 10) * a1**2


def test_big_graphs_are_not_flattened_unless_asked():
    net = nn.SequentialCell([nn.Dense(4, 4, activation="tanh") for _ in range(30)])
    out = net(Tensor(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="max_ops=None"):
        symgrad.closed_form(out, max_ops=50)


@given(
    base=st.sampled_from(["x", "w", "theta"]),
    size=st.integers(2, 4),
    k=st.integers(1, 4),
    underscore=st.booleans(),
    concrete=st.booleans(),
)
@settings(max_examples=30, deadline=None)
def test_printed_formulas_name_distinct_inputs_distinctly(base, size, k, underscore, concrete):
    """A scalar named like an element of another input (``x1`` or ``x_1`` beside ``x`` (2,), whose
    elements print x1, x2 and in LaTeX x_{1}, x_{2}) keeps a name of its own, as text and as LaTeX,
    in every formula and heading that shows it."""
    k = min(k, size)
    scalar_name = f"{base}_{k}" if underscore else f"{base}{k}"
    rng = np.random.default_rng(k)
    if concrete:
        vec, s = Tensor(rng.normal(size=size)), Tensor(np.array(1.5))
    else:
        vec, s = symgrad.placeholder(base, (size,)), symgrad.placeholder(scalar_name)

    def f(**kw):
        return (kw[base] * kw[scalar_name]).sum()

    two_args = named_two_args(f, base, scalar_name)
    d_vec, d_s = ops.grad(two_args, grad_position=(0, 1))(vec, s)
    symbols = {sym for e in (d_vec.expr, d_s.expr) for sym in sympy.sympify(e).free_symbols}
    assert len({str(sym) for sym in symbols}) == len({sympy.latex(sym) for sym in symbols}) == size + 1
    if concrete:
        text = str(symgrad.explain(ops.grad(two_args, grad_position=(0, 1)), vec, s))
        headings = re.findall(r"d\(Σ output\)/d(\S+) =", text)
        names = {str(sym) for sym in symbols}
        assert len(set(headings)) == 2 and not set(headings) & (names - {headings[1]})


def named_two_args(f, first: str, second: str):
    """``f(**{first: a, second: b})`` as a two-argument function whose parameters carry those names."""
    sig = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in (first, second)]
    )

    def two(*args):
        return f(**dict(zip((first, second), args)))

    two.__signature__ = sig  # type: ignore[attr-defined]
    return two
