"""Random small networks: symgrad's derivatives against sympy.diff and finite differences, to third order.

A network is a random program over x (2,), y (2,) and a weight w (2, 2), built from
the ops symgrad supports, each wrapped to stay in its domain (log(1 + a^2), ...).
"""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad import Parameter, Tensor, ops

# ----- the op vocabulary: name -> function of earlier values -----
UNARY = {
    "sin": ops.sin,
    "cos": ops.cos,
    "tanh": ops.tanh,
    "sigmoid": ops.sigmoid,
    "atan": ops.atan,
    "square": ops.square,
    "neg": ops.neg,
    "exp": lambda a: ops.exp(ops.tanh(a)),
    "log": lambda a: ops.log(1 + ops.square(a)),
    "sqrt": lambda a: ops.sqrt(1 + ops.square(a)),
    "atanh": lambda a: ops.atanh(0.5 * ops.tanh(a)),
    "asin": lambda a: ops.asin(0.5 * ops.tanh(a)),
    "acos": lambda a: ops.acos(0.5 * ops.tanh(a)),
    "tan": lambda a: ops.tan(0.5 * ops.tanh(a)),
    "sinh": lambda a: ops.sinh(ops.tanh(a)),
    "cosh": lambda a: ops.cosh(ops.tanh(a)),
    "reverse": lambda a: a[::-1],
    "outer_sum": lambda a: ops.ReduceSum()(ops.matmul(a.reshape(2, 1), a.reshape(1, 2)), 0),
    "mean_shift": lambda a: a - ops.ReduceMean(keep_dims=True)(a, 0) * 0.5,
    "stack": lambda a: ops.stack([a[1], a[0] * a[1]]),
    "transpose": lambda a: ops.Transpose()(ops.broadcast_to(a, (2, 2)), (1, 0)).sum(axis=1),
    # kinks sit at a random offset, so a sampled point lands within the FD step of one with
    # probability ~1e-6
    "relu": lambda a: ops.relu(a - 0.123) + a,
    "abs": lambda a: ops.abs(a + 0.0711),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1.5 + ops.cos(b)),
    "pow_const": lambda a, b: a**3 + b,
    "pow": lambda a, b: ops.pow(1.5 + ops.tanh(a), ops.tanh(b)),
    "maximum": lambda a, b: ops.maximum(a, b + 0.0917),
    "minimum": lambda a, b: ops.minimum(a, b - 0.0413) * a,
    "matmul_w": None,  # uses the weight, see build()
}

step = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY)), st.integers(0, 99), st.just(0)),
    st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY)), st.integers(0, 99), st.integers(0, 99)),
)
programs = st.lists(step, min_size=1, max_size=4)


def build(program, w):
    """The network as a function of (x, y), using weight ``w``."""

    def fn(x, y):
        values = [x, y]
        for kind, name, i, j in program:
            a, b = values[i % len(values)], values[j % len(values)]
            if name == "matmul_w":
                values.append(ops.tanh(ops.matmul(w, a)) + b)
            else:
                values.append(UNARY[name](a) if kind == "unary" else BINARY[name](a, b))
        return values[-1].sum() + 0.1 * values[-2].sum()

    return fn


def setup(program, seed):
    rng = np.random.default_rng(seed)
    w = Parameter(Tensor(rng.uniform(-1, 1, (2, 2))), name="w")
    x, y = (Tensor(rng.uniform(-1.2, 1.2, 2)) for _ in range(2))
    return build(program, w), w, x, y


SYMS = sympy.symbols("x1 x2 y1 y2 w1 w2 w3 w4", real=True)


def reference(fn, w, x, y):
    """The flattened expression and a way to evaluate any SymPy formula at the point."""
    px, py = symgrad.placeholder("x", (2,)), symgrad.placeholder("y", (2,))
    expr = fn(px, py).expr
    point = [*x.asnumpy(), *y.asnumpy(), *w.asnumpy().ravel()]

    # points are away from kinks, where sympy.diff's DiracDelta vanishes and Heaviside is a step
    kinks = {"DiracDelta": lambda *a: 0, "Heaviside": lambda v, *h0: 1 if v > 0 else 0}

    def at(formula):
        return float(sympy.lambdify(SYMS, formula, [kinks, "mpmath"])(*point))

    return expr, at


def central_difference(fn, args, k, h=1e-6):
    """d fn / d args[k] by central differences in float64."""
    base = args[k].asnumpy()
    out = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        for sign in (1, -1):
            bumped = base.copy()
            bumped[idx] += sign * h
            moved = list(args)
            moved[k] = Tensor(bumped)
            out[idx] += sign * float(fn(*moved).asnumpy()) / (2 * h)
    return out


@settings(max_examples=80)
@given(programs, st.integers(0, 2**31))
def test_first_order_matches_sympy_and_finite_differences(program, seed):
    fn, w, x, y = setup(program, seed)
    expr, at = reference(fn, w, x, y)
    gx, gy = ops.grad(fn, (0, 1))(x, y)
    (gw,) = ops.grad(fn, None, weights=[w])(x, y)
    for g, syms, k in ((gx, SYMS[0:2], 0), (gy, SYMS[2:4], 1)):
        expected = [at(sympy.diff(expr, s)) for s in syms]
        np.testing.assert_allclose(g.asnumpy(), expected, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(g.asnumpy(), central_difference(fn, [x, y], k), rtol=1e-5, atol=1e-7)
    expected_w = np.array([at(sympy.diff(expr, s)) for s in SYMS[4:]]).reshape(2, 2)
    np.testing.assert_allclose(gw.asnumpy(), expected_w, rtol=1e-9, atol=1e-11)
    # symgrad's own closed form of the gradient is the same function as sympy.diff's
    for i, s in enumerate(SYMS[0:2]):
        assert abs(at(gx.expr[i]) - at(sympy.diff(expr, s))) <= 1e-9 * (1 + abs(at(gx.expr[i])))


@settings(max_examples=50)
@given(programs, st.integers(0, 2**31))
def test_second_and_third_order_cross_terms_match_sympy(program, seed):
    fn, w, x, y = setup(program, seed)
    expr, at = reference(fn, w, x, y)

    def dy_sum(x, y):
        return ops.grad(fn, 1)(x, y).sum()

    def dxdy_sum(x, y):
        return ops.grad(dy_sum, 0)(x, y).sum()

    second = ops.grad(dy_sum, 0)(x, y)  # d/dx_i sum_j df/dy_j
    third = ops.grad(dxdy_sum, 1)(x, y)  # d/dy_k sum_i d/dx_i sum_j df/dy_j
    s_dy = sum(sympy.diff(expr, s) for s in SYMS[2:4])
    s_dxdy = sum(sympy.diff(s_dy, s) for s in SYMS[0:2])
    np.testing.assert_allclose(
        second.asnumpy(), [at(sympy.diff(s_dy, s)) for s in SYMS[0:2]], rtol=1e-8, atol=1e-10
    )
    np.testing.assert_allclose(
        third.asnumpy(), [at(sympy.diff(s_dxdy, s)) for s in SYMS[2:4]], rtol=1e-8, atol=1e-10
    )
    np.testing.assert_allclose(second.asnumpy(), central_difference(dy_sum, [x, y], 0), rtol=1e-5, atol=1e-6)


@settings(max_examples=50)
@given(programs, st.integers(0, 2**31))
def test_forward_mode_agrees_with_reverse_mode(program, seed):
    fn, w, x, y = setup(program, seed)
    rng = np.random.default_rng(seed + 1)
    u, v = Tensor(rng.normal(size=2)), Tensor(rng.normal(size=2))
    _, tangent = ops.jvp(fn, (x, y), (u, v))
    gx, gy = ops.grad(fn, (0, 1))(x, y)
    expected = np.dot(gx.asnumpy(), u.asnumpy()) + np.dot(gy.asnumpy(), v.asnumpy())
    np.testing.assert_allclose(tangent.asnumpy(), expected, rtol=1e-9, atol=1e-11)
    hx = ops.jacfwd(ops.jacrev(fn, 0), 0)(x, y).asnumpy()
    np.testing.assert_allclose(hx, hx.T, rtol=1e-9, atol=1e-11)  # a Hessian is symmetric
