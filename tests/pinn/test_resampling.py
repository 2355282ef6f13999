"""New points once the loss has converged (``symgrad.pinn.resampling``): only terms of one input
spread over an interval are redrawn, inside it, in the form given; ``solve`` adds points and
goes on where its optimizer converged with time left, and the error between the points falls."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, dirichlet, grad, predict, solve
from symgrad.pinn.resampling import SPREAD, resampleable, resampled


class Named:
    def __init__(self, *names: str):
        self.names = list(names)


def test_only_terms_of_one_input_spread_over_an_interval_are_resampled():
    spread = np.linspace(-1, 1, 18)[None, :]
    terms = [
        (Named("x"), spread),
        (Named("x"), np.array([[-1.0, 1.0]])),  # a boundary condition: two points
        (Named("t"), np.zeros((1, 20))),  # an initial condition: one time
        (Named("x", "t"), np.vstack([spread, spread])),  # two inputs: the domain is not known
        (Named("t"), [np.linspace(0, 5, SPREAD)]),  # one array per input, SPREAD distinct points
        (Named("t"), (np.linspace(0, 5, SPREAD - 1)[:, None],)),  # too few distinct points
        (object(), spread),  # no input names
    ]
    assert resampleable(terms) == [0, 4]


@pytest.mark.parametrize(
    "points",
    [np.linspace(-1, 2, 12)[None, :], [np.linspace(-1, 2, 12)], (np.linspace(-1, 2, 12)[:, None],)],
)
def test_redrawn_points_keep_the_count_the_ends_and_the_form_and_lie_inside(points):
    rng = np.random.default_rng(5)
    ((_, new),) = resampled([(Named("x"), points)], [0], rng)
    values = np.ravel(new[0])
    assert type(new) is type(points) and np.shape(new[0]) == np.shape(points[0])
    assert values.size == 12 and values[0] == -1.0 and values[-1] == 2.0 and np.all(np.diff(values) >= 0)
    assert not np.allclose(values, np.ravel(points[0]))  # new points, not the old ones
    ((_, grown),) = resampled([(Named("x"), points)], [0], rng, add=12)
    grown = np.ravel(grown[0])
    assert grown.size == 24 and np.isin(np.ravel(points[0]), grown).all()  # the old kept, 12 added
    assert grown.min() == -1.0 and grown.max() == 2.0


def poisson(seed: int = 2):
    """-u'' = pi^2 sin(pi x) on [-1, 1], u = sin(pi x) at both ends, on 10 points: the loss
    converges at them long before the time is up."""
    line = Interval(-1, 1)
    net = MLP([1, 16, 16, 1], seed=seed)
    pde = ResidualLoss(
        lambda x: -grad(grad(net, 0), 0)(x) - np.pi**2 * ops.sin(np.pi * x),
        ("x",),
        net,
        backend="numpy",
        name="pde",
    )
    walls = dirichlet(net, line, lambda x: ops.sin(np.pi * x))
    points = np.hstack([line.interior(8, "halton", seed), line.boundary(2)])
    terms = [(pde, points), (walls.loss(net, backend="numpy"), line.boundary(2))]
    for term, at in terms:  # the kernels built before the clock starts
        term(*at)
    return net, terms


def test_solve_adds_points_where_the_loss_converged_and_the_error_falls(monkeypatch):
    x = np.linspace(-1, 1, 201)
    net, terms = poisson()
    fixed = solve(terms, net, seconds=3.5, warmup=0.3)
    before = np.abs(predict(net, [x]) - np.sin(np.pi * x)).max()
    net, terms = poisson()
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.resampling"), "SPREAD", 10**9)
    kept = solve(terms, net, seconds=3.5, warmup=0.3)
    without = np.abs(predict(net, [x]) - np.sin(np.pi * x)).max()
    assert not any("new points" in s[0] for s in kept.stages), kept
    assert any(s[0] == "Levenberg-Marquardt on new points" for s in fixed.stages), fixed
    assert any("on new points of pde" in c for c in fixed.choices), fixed
    assert before < without / 3, (before, without)  # measured 2.3e-4, 3.7e-4 against 1.4e-3


def test_levenberg_marquardt_counts_as_converged_once_its_loss_is_rounding_errors():
    solve_module = importlib.import_module("symgrad.pinn.solve")
    converged = solve_module._roundoff()
    first = 8e-3
    assert converged(1, first) is False and converged(2, first * 1e-20) is False
    assert converged(3, first * solve_module.ROUNDOFF) is True  # DeepXDE's 1-D Poisson: 8e-3 to 2e-30
    # after an Adam that left 1.8e-8 of a start at 39, the rounding errors are those of 39's scale
    after_adam = solve_module._roundoff(start=39.0)
    assert after_adam(1, 1.8e-8) is False and after_adam(2, 1e-21) is False
    assert after_adam(3, 1.3e-30) is True  # float64's floor for this problem: it stops there
