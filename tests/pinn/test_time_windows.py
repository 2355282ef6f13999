"""``solve``'s time windows (``symgrad.pinn.time_windows``): where a term has an input named t whose
points span an interval and L-BFGS trains, it first trains on growing spans of time; a steady
problem, or one Levenberg-Marquardt trains, gets none."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from symgrad.pinn import MLP, Interval, ResidualLoss, TimeDomain, dirichlet, grad, initial, predict, solve
from symgrad.pinn.time_windows import WINDOWS, input_names, time_span, window_ends, windowed

solve_module = importlib.import_module("symgrad.pinn.solve")


class Named:
    """A stand-in term: only its input names matter here."""

    def __init__(self, *names: str):
        self.names = list(names)


class Wrapped:
    """A term around another (as ``weighted_terms`` and ``CausalLoss`` wrap theirs)."""

    def __init__(self, term):
        self.term = term


def test_the_span_covers_every_term_with_time_and_windows_cut_each_term_by_its_time_row():
    space_time = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 1.0, 3.0, 4.0]])  # (x, t)
    start = np.array([[0.5, 0.6], [0.0, 0.0]])  # an initial condition: every point at t = 0
    columns = (np.array([2.0, 5.0, 8.0]),)  # an ODE's points, one array per input (t only)
    steady = np.ones((1, 5))  # no time input
    terms = [
        (Wrapped(Named("x", "t")), space_time),
        (Named("x", "t"), start),
        (Named("t"), columns),
        (Named("x"), steady),
    ]
    assert input_names(terms[0][0]) == ["x", "t"] and input_names(object()) == []
    assert time_span(terms) == (0.0, 8.0)
    cut = windowed(terms, 3.0)
    assert np.array_equal(cut[0][1], space_time[:, :3]) and cut[1][1] is start and cut[3][1] is steady
    assert isinstance(cut[2][1], tuple) and np.array_equal(cut[2][1][0], [2.0])
    early = windowed(terms, 0.5)  # the ODE term has no point there: left out
    assert [term for term, _ in early] == [terms[0][0], terms[1][0], terms[3][0]]
    assert early[0][1].shape == (2, 1)
    assert window_ends((0.0, 8.0), 4) == [2.0, 4.0, 6.0] and len(window_ends((0.0, 1.0))) == WINDOWS - 1


def test_a_problem_without_time_spread_has_no_span():
    assert time_span([(Named("x"), np.ones((1, 5)))]) is None
    assert time_span([(Named("x", "t"), np.array([[0.1, 0.2], [0.0, 0.0]]))]) is None  # one time only


def oscillator(seconds_net_seed: int = 3):
    """u'' = -u on [0, 6], u(0) = 0, u'(0) = 1: u = sin t (a long horizon for a small net)."""
    time = TimeDomain(0, 6)
    net = MLP([1, 16, 16, 1], seed=seconds_net_seed)
    ode = ResidualLoss(lambda t: grad(grad(net, 0), 0)(t) + net(t), ("t",), net, backend="numpy")
    value, slope = initial(net, time, 0.0), initial(net, time, 1.0, derivative=1, name="u'(0)")
    return net, [
        (ode, np.hstack([time.interior(96, "sobol"), time.boundary(2)])),
        (value.loss(net, backend="numpy"), value.sample(1)),
        (slope.loss(net, backend="numpy"), slope.sample(1)),
    ]


def test_a_time_problem_on_lbfgs_marches_through_growing_windows_and_says_so(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)  # no Levenberg-Marquardt
    net, terms = oscillator()
    result = solve(terms, net, seconds=5)
    methods = [stage[0] for stage in result.stages]
    assert methods[:3] == ["Adam", "L-BFGS on time windows", "L-BFGS"], result
    (said,) = [c for c in result.choices if c.startswith("L-BFGS on 7 growing time windows")]
    assert "t from 0 to 0.75" in said and "spans [0, 6]" in said, said
    t = np.linspace(0, 6, 50)
    assert np.abs(predict(net, [t]) - np.sin(t)).max() < 1e-2, result  # measured 1e-4 .. 2e-4


def test_a_steady_problem_and_levenberg_marquardt_get_no_windows(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    line = Interval(0, 1)
    net = MLP([1, 8, 1], seed=1)
    pde = ResidualLoss(lambda x: grad(grad(net, 0), 0)(x) + 1.0, ("x",), net, backend="numpy")
    walls = dirichlet(net, line, 0.0)
    steady = [(pde, line.interior(32, "sobol")), (walls.loss(net, backend="numpy"), line.boundary(2))]
    result = solve(steady, net, seconds=2)
    assert "L-BFGS on time windows" not in [s[0] for s in result.stages], result
    assert not any("time windows" in c for c in result.choices)
    monkeypatch.undo()  # Levenberg-Marquardt for the oscillator: it needs no windows
    net, terms = oscillator()
    result = solve(terms, net, seconds=3)
    assert [s[0] for s in result.stages][:2] == ["Adam", "Levenberg-Marquardt"], result
    assert not any("time windows" in c for c in result.choices)


@pytest.mark.parametrize("share", [0])
def test_march_share_zero_turns_the_windows_off(monkeypatch, share):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "MARCH_SHARE", share)
    net, terms = oscillator()
    result = solve(terms, net, seconds=1.5)
    assert "L-BFGS on time windows" not in [s[0] for s in result.stages], result
