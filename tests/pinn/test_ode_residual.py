"""``ode_residual``: an ODE's residual from its rates as solve_ivp takes them. Which components are
divided by themselves is checked against systems built with a known answer (a rate with the
component as a factor, plus or not a term without it); the residual values against central
differences of the solution and the rates evaluated in NumPy; solve's report and a short solve
against the closed-form solution of the logistic equation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import ops
from symgrad.kernels import placeholder
from symgrad.parameter import Parameter
from symgrad.pinn import MLP, ResidualLoss, TimeDomain, ode_residual, predict, solve
from symgrad.pinn.ode import vanishes_with

RATE = Parameter(np.array(0.7), name="rate")


def polynomial_rates(factors: list[float], extras: list[tuple[float, int, int] | None]):
    """rates_k = factors[k] * y_k * (1 + y_{k+1}) * (1 - t / 2) [+ a * t^p * y_j or a constant]:
    the extra term (coefficient a, power p, j: another component, or -1 for a constant) breaks the
    rate's vanishing with y_k."""
    m = len(factors)

    def rates(t, y):
        out = []
        for k in range(m):
            rate = factors[k] * y[k] * (1 + y[(k + 1) % m]) * (1 - t / 2)
            extra = extras[k]
            if extra is not None:
                a, p, j = extra
                rate = rate + (a if j < 0 else a * t**p * y[j])
            out.append(rate)
        return tuple(out)

    return rates


@st.composite
def systems(draw):
    m = draw(st.integers(1, 3))
    factors = [draw(st.sampled_from([-2.0, -0.5, 0.7, 3.0])) for _ in range(m)]
    extras = []
    for k in range(m):
        others = [j for j in range(m) if j != k] or [-1]
        extra = draw(
            st.one_of(
                st.none(),
                st.tuples(st.sampled_from([0.3, -1.5]), st.integers(0, 2), st.sampled_from([*others, -1])),
            )
        )
        extras.append(extra)
    y0 = [draw(st.sampled_from([0.0, 0.4, -1.2, 2.0])) for _ in range(m)]
    return factors, extras, y0


def network_solution(m: int, seed: int, hard: list[float] | None):
    """A small network's m outputs plus 3, or with ``hard`` the outputs y0 + tanh(t) * net / 10 (as
    DeepXDE's output transform): kept away from 0 on [0.05, 1], where a division must stay finite."""
    net = MLP([1, 6, m], "tanh", seed=seed)

    def u(t):
        outs = net(t)
        outs = outs if isinstance(outs, tuple) else (outs,)
        if hard is None:
            return tuple(o + 3.0 for o in outs)
        return tuple(y + ops.tanh(t) * o * 0.1 for y, o in zip(hard, outs))

    return net, u


@settings(max_examples=25, deadline=None)
@given(systems())
def test_components_whose_rate_vanishes_with_them_are_divided(system):
    factors, extras, y0 = system
    rates = polynomial_rates(factors, extras)
    _, u = network_solution(len(factors), 0, None)
    expected = tuple(k for k in range(len(factors)) if extras[k] is None and y0[k] != 0.0)
    found = ode_residual(u, rates, y0)
    assert found.divided == expected
    assert ("divided" in found.choice) == bool(expected)
    assert ode_residual(u, rates).divided == ()  # no initial values: nothing divided


@pytest.mark.parametrize(
    "rate, vanishes",
    [
        (lambda t, y: ops.sin(y), True),
        (lambda t, y: ops.exp(y) - 1.0, True),
        (lambda t, y: ops.cos(y) - 1.0, True),
        (lambda t, y: ops.cos(y), False),
        (lambda t, y: y * (1 + y) - y - y * y, True),  # 0 only once simplified
        (lambda t, y: ops.sin(t), False),
        (lambda t, y: 0.0, True),
        (lambda t, y: y * ops.exp(-t) + t * y * y, True),
        (lambda t, y: RATE * y * (1 - y), True),  # a Parameter to learn (an inverse problem): any value
        (lambda t, y: RATE + 0 * y, False),
    ],
)
def test_vanishing_by_the_closed_form(rate, vanishes):
    t, y = placeholder("t"), placeholder("y")
    assert vanishes_with(rate(t, y), y) is vanishes


@settings(max_examples=12, deadline=None)
@given(systems(), st.integers(0, 3), st.booleans())
def test_residuals_against_central_differences(system, seed, hard):
    factors, extras, y0 = system
    m = len(factors)
    rates = polynomial_rates(factors, extras)
    start = [v if v != 0.0 else 1.0 for v in y0]  # a hard start of 0 would let u_k cross 0
    net, u = network_solution(m, seed, start if hard else None)
    ode = ode_residual(u, rates, start)
    term = ResidualLoss(ode, ("t",), net, backend="numpy")
    t = np.linspace(0.05, 1.0, 41)
    got = term.residuals(t[None])
    got = got if isinstance(got, tuple) else (got,)

    def values(times):
        out = predict(u, times[None])
        return out if isinstance(out, tuple) else (out,)

    h = 1e-5
    slopes = [(a - b) / (2 * h) for a, b in zip(values(t + h), values(t - h))]
    at = values(t)
    rate_values = rates(t, at)
    for k in range(m):
        expected = slopes[k] - rate_values[k]
        if k in ode.divided:
            expected = expected / at[k]
        np.testing.assert_allclose(got[k], expected, rtol=1e-6, atol=1e-7)


def test_bad_input_names_the_argument():
    _, u = network_solution(2, 0, None)

    def lotka(t, y):
        return y[0] * (2 - y[1]), y[1] * (y[0] - 1)

    with pytest.raises(ValueError, match="y0 has 3 values for the 2 components"):
        ode_residual(u, lotka, (1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match=r"y0\[1\] must be a number"):
        ode_residual(u, lotka, (1.0, "2"))
    with pytest.raises(ValueError, match=r"y0\[0\] must be finite"):
        ode_residual(u, lotka, (float("nan"), 1.0))
    with pytest.raises(ValueError, match="returned 1 rates for the 2 components"):
        ode_residual(u, lambda t, y: (y[0],), (1.0, 1.0))
    with pytest.raises(TypeError, match="rates.*component 1 is a str"):
        ode_residual(u, lambda t, y: (y[0], "y1"), (1.0, 1.0))
    with pytest.raises(TypeError, match=r"ode_residual: rates\(t, y\) asked a component for its number"):
        ode_residual(u, lambda t, y: (math.exp(y[0]), y[1]), (1.0, 1.0))
    with pytest.raises(ValueError, match=r"u\(t\) component 0 has shape \(2,\)"):
        ode_residual(lambda t: ops.stack([t, t]), lotka, (1.0, 1.0))
    with pytest.raises(TypeError, match="u and rates must be callables"):
        ode_residual(u, None, (1.0, 1.0))


def test_solve_reports_the_division_and_solves_the_logistic_equation():
    """u' = 3 u (1 - u), u(0) = 0.05 on [0, 3] (hard initial value): u = 1 / (1 + 19 e^(-3t))."""
    net = MLP([1, 16, 16, 1], "tanh", seed=0)

    def u(t):
        return 0.05 + ops.tanh(t) * net(t)

    ode = ode_residual(u, lambda t, y: (3.0 * y[0] * (1 - y[0]),), (0.05,))
    assert ode.divided == (0,)
    points = TimeDomain(0, 3).interior(200, "halton", 0)
    found = solve([(ResidualLoss(ode, ("t",), net, name="logistic"), points)], net, seconds=6)
    assert any(c.startswith("logistic: the residual of u0 divided") for c in found.choices)
    t = np.linspace(0, 3, 101)
    exact = 1 / (1 + 19 * np.exp(-3 * t))
    assert np.max(np.abs(predict(u, t[None]) - exact)) < 1e-3


@pytest.mark.parametrize("start", [0.05, None])
def test_solve_trains_every_time_at_once_where_the_residual_divides(start):
    """Growing time windows would leave the later times free to cross 0, a pole of the divided
    residual: where L-BFGS trains (a network too large for Levenberg-Marquardt), solve does not
    march such a term, and marches the absolute one (no initial values: nothing divided)."""
    net = MLP([1, 64, 64, 64, 64, 1], "tanh", seed=0)

    def u(t):
        return 0.05 + ops.tanh(t) * net(t)

    ode = ode_residual(u, lambda t, y: (3.0 * y[0] * (1 - y[0]),), None if start is None else (start,))
    points = TimeDomain(0, 3).interior(2000, "halton", 0)
    found = solve([(ResidualLoss(ode, ("t",), net, name="logistic"), points)], net, seconds=4)
    assert any(c.startswith("L-BFGS: ") for c in found.choices)  # not Levenberg-Marquardt
    marched = any("growing time windows" in c for c in found.choices)
    refused = any(c.startswith("no time windows: logistic divides") for c in found.choices)
    assert (marched, refused) == ((False, True) if start else (True, False))
