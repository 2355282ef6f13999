"""lgamma, polygamma (digamma its order 0) and erfinv: values on every backend and dtype against
SciPy, poles and edges as SciPy values them, derivatives against SymPy and central differences,
and MindSpore's spellings."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import lowering
import symgrad
from symgrad import ops

special = pytest.importorskip("scipy.special", reason="SciPy is the reference here")
BACKENDS = [b for b in ("numpy", "c") if b in lowering.available_backends()]
EDGES = np.array([0.0, -0.0, -1.0, -3.0, 1.0, 2.0, 0.5, -0.5, -2.5, 1e-8, 1e3, 1e6, np.inf, np.nan])


def _cases():
    """(name, symgrad function, SciPy reference) for every op and order the rows hold."""
    yield "lgamma", ops.lgamma, special.gammaln
    for n in range(5):
        yield f"polygamma{n}", (lambda x, n=n: ops.polygamma(n, x)), (lambda v, n=n: special.polygamma(n, v))
    yield "digamma", ops.digamma, special.digamma


def _same(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    """Equal non-finite patterns; finite values within rtol of each value (or of 1e-300)."""
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    infinite = np.isinf(want)
    assert np.array_equal(got[infinite], want[infinite]), (got, want)
    finite = np.isfinite(want)
    gap = np.abs(got[finite] - want[finite])
    assert np.all(gap <= rtol * np.maximum(np.abs(want[finite]), 1.0)), (got[finite], want[finite])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(_cases()), ids=[c[0] for c in _cases()])
def test_gamma_family_values_equal_scipys_on_every_backend(backend, case, rng):
    _name, fn, reference = case
    points = np.concatenate(
        [rng.uniform(-9.9, 12, 300), rng.uniform(1e-3, 3, 100), rng.uniform(20, 500, 50), EDGES]
    )
    x = symgrad.placeholder("x")
    (got,) = symgrad.kernel([fn(x)], [x], backend=backend)(points)
    with np.errstate(all="ignore"):
        want = reference(points)
    _same(got, want, 1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_erfinv_equals_scipys_to_the_last_digits_including_the_tails(backend, rng):
    points = np.concatenate([
        rng.uniform(-1, 1, 300), 1 - 10.0 ** -rng.uniform(1, 15, 50), -(1 - 10.0 ** -rng.uniform(1, 15, 50)),
        [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.nan, 1e-300, 0.5, -0.5],
    ])  # fmt: skip
    x = symgrad.placeholder("x")
    (got,) = symgrad.kernel([ops.erfinv(x)], [x], backend=backend)(points)
    with np.errstate(all="ignore"):
        _same(got, special.erfinv(points), 1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_graphs_compute_the_special_functions_in_float32(backend, rng):
    points = rng.uniform(0.1, 0.9, 64).astype(np.float32)
    x = symgrad.placeholder("x", dtype=symgrad.float32)
    outs = symgrad.kernel(
        [ops.lgamma(x), ops.digamma(x), ops.polygamma(2, x), ops.erfinv(x)], [x], backend=backend
    )(points)
    wide = points.astype(np.float64)
    for got, want in zip(
        outs, [special.gammaln(wide), special.digamma(wide), special.polygamma(2, wide), special.erfinv(wide)]
    ):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)


def test_each_derivative_is_the_next_row_as_sympy_says():
    x = sympy.Symbol("x")
    assert sympy.simplify(sympy.diff(sympy.loggamma(x), x) - sympy.polygamma(0, x)) == 0
    assert sympy.simplify(sympy.diff(sympy.polygamma(2, x), x) - sympy.polygamma(3, x)) == 0
    assert (
        sympy.simplify(
            sympy.diff(sympy.erfinv(x), x) - sympy.sqrt(sympy.pi) / 2 * sympy.exp(sympy.erfinv(x) ** 2)
        )
        == 0
    )


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0.05, 30.0) | st.floats(-7.95, -0.05).filter(lambda v: abs(v - round(v)) > 0.05),
    st.integers(0, 3),
)
def test_derivatives_of_every_order_match_central_differences(v, n):
    """d^k/dx^k of lgamma and polygamma(n) by ops.grad, against central differences of SciPy's
    values (k = 1, 2) at positive and negative non-integer points."""
    h = 1e-5 * max(1.0, abs(v))
    for fn, reference in (
        (ops.lgamma, special.gammaln),
        (lambda t: ops.polygamma(n, t), lambda t: special.polygamma(n, t)),
    ):
        first = ops.grad(fn)(symgrad.Tensor(np.float64(v))).asnumpy()
        second = ops.grad(ops.grad(fn))(symgrad.Tensor(np.float64(v))).asnumpy()
        f = [float(reference(v + k * h)) for k in (-1, 0, 1)]
        scale = max(1.0, abs(float(reference(v))))
        assert abs(first - (f[2] - f[0]) / (2 * h)) <= 1e-5 * max(scale, abs(first))
        assert abs(second - (f[2] - 2 * f[1] + f[0]) / h**2) <= 1e-4 * max(scale, abs(second))


@settings(max_examples=40, deadline=None)
@given(st.floats(-0.999, 0.999))
def test_erfinv_derivative_matches_its_closed_form(v):
    got = ops.grad(ops.erfinv)(symgrad.Tensor(np.float64(v))).asnumpy()
    assert math.isclose(got, math.sqrt(math.pi) / 2 * math.exp(special.erfinv(v) ** 2), rel_tol=1e-12)


def test_mindspore_spellings_and_a_bad_order_named():
    x = symgrad.Tensor(np.array([0.7, 2.5]))
    want = special.polygamma(2, np.array([0.7, 2.5]))
    np.testing.assert_allclose(ops.polygamma(symgrad.Tensor(np.array(2)), x).asnumpy(), want, rtol=1e-13)
    np.testing.assert_allclose(ops.Polygamma()(2, x).asnumpy(), want, rtol=1e-13)
    np.testing.assert_allclose(ops.Digamma()(x).asnumpy(), special.digamma([0.7, 2.5]), rtol=1e-13)
    np.testing.assert_allclose(ops.Lgamma()(x).asnumpy(), special.gammaln([0.7, 2.5]), rtol=1e-13)
    np.testing.assert_allclose(ops.Erfinv()(x * 0.3).asnumpy(), special.erfinv([0.21, 0.75]), rtol=1e-13)
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(TypeError, match="Polygamma: n must be a whole number >= 0"):
            ops.polygamma(bad, x)


def test_the_formulas_print_with_the_familiar_names():
    x = symgrad.placeholder("x")
    assert "polygamma(1, x)" in str(symgrad.closed_form(ops.grad(ops.grad(ops.lgamma))(x)))
