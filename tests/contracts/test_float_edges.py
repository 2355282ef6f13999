"""Derivatives at the edges of float64, where the true value is finite: the rules' cancellation-free
and scaled forms (sech^2 from exp(-2|x|), s * sigmoid(-x), (1 - x)(1 + x), atan2 and 2-norms divided
by a power of two) against 50-digit references, first and second order, on every compiled backend."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import lowering
import symgrad
from symgrad import Tensor, ops

mpmath.mp.dps = 50
BACKENDS = [b for b in ("numpy", "c") if b in lowering.available_backends()]


def _close(got: float, ref, rtol: float = 1e-12) -> bool:
    return abs(got - float(ref)) <= rtol * abs(float(ref)) or got == float(ref)


def _unary_derivatives(fn, points: np.ndarray, backend: str) -> list[np.ndarray]:
    x = symgrad.placeholder("x")
    d1 = ops.grad(fn)
    d2 = ops.grad(d1)
    return symgrad.kernel([d1(x), d2(x)], [x], backend=backend)(points)


UNARY_EDGES = {
    "tanh": (ops.tanh, mpmath.tanh, [20.0, -30.0, 300.0, 0.5]),
    "sigmoid": (ops.sigmoid, lambda x: 1 / (1 + mpmath.exp(-x)), [40.0, -40.0, 700.0, 0.5]),
    "elu": (lambda t: ops.elu(t, 1.5), lambda x: 1.5 * mpmath.expm1(x), [-40.0, -700.0, -0.5]),
    "asin": (ops.asin, mpmath.asin, [1 - 1e-10, -(1 - 1e-12), 0.5]),
    "acos": (ops.acos, mpmath.acos, [1 - 1e-10, -(1 - 1e-12)]),
    "atanh": (ops.atanh, mpmath.atanh, [1 - 1e-10, -(1 - 1e-12)]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(UNARY_EDGES))
def test_unary_slopes_far_out_keep_their_digits(name, backend):
    fn, exact, points = UNARY_EDGES[name]
    first, second = _unary_derivatives(fn, np.array(points), backend)
    for p, g1, g2 in zip(points, first, second):
        with mpmath.workdps(800):  # 1 - tanh(300) is 1e-260: enough digits to see it
            slope, curvature = (mpmath.diff(exact, mpmath.mpf(p), k) for k in (1, 2))
        assert _close(g1, slope), (name, p, g1)
        assert _close(g2, curvature, rtol=1e-9), (name, p, g2)


def test_tanh_slope_at_twenty_is_not_zero():
    (slope,) = [ops.grad(ops.tanh)(Tensor(np.array(20.0))).asnumpy()]
    assert slope == pytest.approx(1.6993417021166355e-17, rel=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "point",
    [(1e-200, 1e-200), (1e200, 1e200), (3e-200, -4e-200), (-5e150, 2e150), (1e-150, 2e-150), (3.0, 4.0)],
)
def test_atan2_slopes_at_tiny_and_huge_arguments(point, backend):
    y, x = symgrad.placeholder("y"), symgrad.placeholder("x")
    dy = ops.grad(ops.atan2, 0)
    py, px = (mpmath.mpf(v) for v in point)
    r2 = px**2 + py**2
    outs, refs = [dy(y, x), ops.grad(ops.atan2, 1)(y, x)], [px / r2, -py / r2]
    if abs(2 * px * py / r2**2) < 1e300:  # the second derivative where float64 holds it (not at 1e-200)
        outs, refs = [*outs, ops.grad(dy, 0)(y, x)], [*refs, -2 * px * py / r2**2]
    got = symgrad.kernel(outs, [y, x], backend=backend)(*(np.array([v]) for v in point))
    for value, ref in zip(got, refs):
        assert _close(float(value[0]), ref), (point, value, ref)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e-305, 1.0, 1e300])
def test_norm_gradient_and_hessian_at_any_scale(scale, backend):
    base = np.array([3.0, -4.0, 1.0])
    x = symgrad.placeholder("x", (3,))
    value = ops.norm(x)
    grad = ops.grad(ops.norm)(x)
    hess_row = ops.grad(lambda v: ops.grad(ops.norm)(v)[0])(x)  # d/dx of the first gradient entry
    got = symgrad.kernel([value, grad, hess_row], [x], backend=backend)(base * scale)
    v = [mpmath.mpf(b) * mpmath.mpf(scale) for b in base]
    r = mpmath.sqrt(sum(t**2 for t in v))
    assert _close(float(got[0]), r)
    for g, t in zip(got[1], v):
        assert _close(float(g), t / r)
    for i, h in enumerate(got[2]):
        assert _close(float(h), ((1 if i == 0 else 0) - v[0] * v[i] / r**2) / r, rtol=1e-11), (i, h)


def test_norm_closed_form_is_the_plain_formula():
    x = symgrad.placeholder("x", (2,))
    assert str(ops.norm(x).expr) == "sqrt(x1**2 + x2**2)"
    p_norm = ops.norm(x, ord=3).expr
    assert "pow2" not in str(p_norm) and p_norm.free_symbols == set(x.expr.free_symbols)


@pytest.mark.parametrize("name, reference", [("atan2", np.arctan2), ("div", np.divide), ("mul", np.multiply)])
def test_signed_zeros_and_infinities_keep_their_signs_as_numpy(name, reference):
    """-0.0 == 0.0 in Python, so constants were once shared by value: atan2(0, -0) came out 0, not
    pi (a hypothesis test of mindspore.numpy found it). Every pair of special values, eager and
    in a kernel, gives NumPy's result bit for bit in its sign. (Not add/sub: the graph's x - 0 -> x
    keeps x's own zero, where IEEE gives (-0) - (-0) = +0; a known, stated simplification.)"""
    import itertools

    from symgrad import ops

    specials = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf]
    fn = getattr(ops, name)
    y, x = symgrad.placeholder("y"), symgrad.placeholder("x")
    kernel = symgrad.kernel([fn(y, x)], [y, x])
    for a, b in itertools.product(specials, specials):
        with np.errstate(all="ignore"):
            want = reference(np.float64(a), np.float64(b))
            eager = fn(symgrad.Tensor(np.float64(a)), symgrad.Tensor(np.float64(b))).asnumpy()
            compiled = kernel(np.array([a]), np.array([b]))[0][0]
        for got in (eager, compiled):
            assert (np.isnan(got) and np.isnan(want)) or (
                got == want and np.signbit(got) == np.signbit(want)
            ), (
                name,
                a,
                b,
                got,
                want,
            )
