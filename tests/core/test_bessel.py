"""BesselI0 and BesselI1 (one op-table row, I_n with n a parameter) against 50-digit mpmath values."""

from __future__ import annotations

import shutil

import mpmath
import numpy as np
import pytest
import sympy

import symgrad
from symgrad import Tensor, ops

POINTS = np.array([-30.0, -2.5, 0.0, 1e-3, 0.7, 2.0, 10.0, 50.0, 300.0])


def exact(n: int, derivative: int = 0) -> np.ndarray:
    """mpmath's I_n, differentiated numerically by mpmath at 50 digits."""
    with mpmath.workdps(50):
        return np.array(
            [float(mpmath.diff(lambda t: mpmath.besseli(n, t), mpmath.mpf(x), derivative)) for x in POINTS]
        )


@pytest.mark.parametrize("n, fn", [(0, ops.bessel_i0), (1, ops.bessel_i1)])
def test_values_first_and_second_derivatives_are_within_a_few_ulp(n, fn):
    x = Tensor(POINTS)
    np.testing.assert_allclose(fn(x).asnumpy(), exact(n), rtol=4e-15, atol=0)
    first = symgrad.grad(lambda t: fn(t).sum())
    np.testing.assert_allclose(first(x).asnumpy(), exact(n, 1), rtol=4e-15, atol=1e-300)
    second = symgrad.grad(lambda t: first(t).sum())
    np.testing.assert_allclose(second(x).asnumpy(), exact(n, 2), rtol=4e-15, atol=1e-300)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler here")
def test_the_c_kernel_sums_the_same_series():
    x = symgrad.placeholder("x")
    kernel = symgrad.kernel(ops.bessel_i0(x) + ops.BesselI1()(x) * 3, [x], backend="c")
    np.testing.assert_allclose(kernel(POINTS)[0], exact(0) + 3 * exact(1), rtol=4e-15)
    for backend in ("c", "numpy"):  # NaN in, NaN out; inf overflows to inf
        edges = symgrad.kernel(ops.bessel_i0(x), [x], backend=backend)(np.array([np.nan, np.inf, -np.inf]))[0]
        np.testing.assert_array_equal(edges, [np.nan, np.inf, np.inf])


def test_the_closed_form_is_sympys_besseli_and_its_derivative():
    def f(x):
        return ops.bessel_i0(x * x)

    dx = symgrad.grad(f)(Tensor(np.array(0.8)))
    (x,) = dx.expr.free_symbols
    assert sympy.simplify(dx.expr - sympy.diff(sympy.besseli(0, x**2), x)) == 0


def test_mindspores_nested_high_grad_value():
    # MindSpore's test_nested_highgrad_net3: d/dx (I0'(2x))^2 at x = 2, exactly as MindSpore's float32
    def inner(x):
        dx = symgrad.grad(lambda t: ops.BesselI0()(t))(x + x)
        return dx * dx

    result = symgrad.grad(inner)(Tensor(np.array([2.0], np.float32)))
    assert result.asnumpy()[0] == np.float32(345.9557)
