"""``solve``'s point-subset rule (``symgrad.pinn.point_subsets``): where the residual rows are many
for the weights and few evaluations of every point fit in the time, Adam and L-BFGS train on a
subset first, and L-BFGS ends on every point; elsewhere every point is used throughout."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, predict, solve
from symgrad.pinn.point_subsets import EVALUATIONS, ROWS_PER_WEIGHT, subset_share, subset_terms

solve_module = importlib.import_module("symgrad.pinn.solve")


def decay_problem(points: int):
    """u' = -u on [0, 2], u(0) = 1 (u = exp(-t)), 37 weights, ``points`` collocation points."""
    time = TimeDomain(0, 2)
    net = MLP([1, 12, 1], seed=3)
    start = initial(net, time, 1.0)
    ode = ResidualLoss(lambda t: grad(net, 0)(t) + net(t), ("t",), net, backend="numpy")
    return net, [
        (ode, time.interior(points, "sobol")),
        (start.loss(net, backend="numpy"), start.sample(1)),
    ]


def test_the_share_follows_the_evaluations_that_fit_and_keeps_two_rows_a_weight():
    # Klein-Gordon's sizes: 37,500 rows, 1,801 weights, about 170 evaluations in 30 s
    assert subset_share(37_500, 1_801, 170) == pytest.approx(ROWS_PER_WEIGHT * 1_801 / 37_500)
    assert subset_share(37_500, 1_801, 1_000) == pytest.approx(1_000 / EVALUATIONS)
    assert subset_share(37_500, 1_801, EVALUATIONS) == 1.0  # enough evaluations: every point
    assert subset_share(37_500, 1_801, 0.6 * EVALUATIONS) == 1.0  # over half the points: all of them
    assert subset_share(3_020, 1_600, 10) == 1.0  # under two rows a weight: every point
    assert subset_share(5_020, 921, 10) == pytest.approx(2 * 921 / 5_020)
    assert subset_share(3_020, 921, 10) == 1.0  # Burgers' sizes: two rows a weight is over half


def test_a_subset_keeps_whole_points_in_order_and_small_terms_whole():
    points = np.arange(2 * 1000, dtype=float).reshape(2, 1000)
    columns = (np.arange(500, dtype=float), np.arange(500, dtype=float) * 3)  # one array per input
    few = np.ones((1, 20))
    cut = subset_terms([("a", points), ("b", columns), ("c", few)], 0.1, seed=1)
    a, b, c = (p for _, p in cut)
    assert a.shape == (2, 100) and np.all(a[1] == a[0] + 1000) and np.all(np.diff(a[0]) > 0)
    assert isinstance(b, tuple) and b[0].shape == (50,) and np.all(b[1] == 3 * b[0])
    assert c is few  # 20 points: kept whole
    assert subset_terms([("a", points)], 1.0)[0][1] is points
    with pytest.raises(ValueError, match="subset_terms: share must be in \\(0, 1\\], got 0"):
        subset_terms([("a", points)], 0)


def test_many_points_for_few_weights_train_on_a_subset_then_end_on_every_point(monkeypatch):
    """Levenberg-Marquardt ruled out; 4,000 points for 37 weights and (EVALUATIONS raised) too
    few evaluations: Adam and L-BFGS on 2% of the points (two rows a weight), then L-BFGS on every
    point; u reaches exp(-t) and the loss reported is the caller's, over every point."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "EVALUATIONS", 10**12)
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.point_subsets"), "EVALUATIONS", 10**12)
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.resampling"), "SPREAD", 10**9)  # no new points
    net, terms = decay_problem(4000)
    result = solve(terms, net, seconds=5)
    methods = [stage[0] for stage in result.stages]
    # t is an input: time windows on the subset, then the subset over every time, then every point
    assert methods == ["Adam", "L-BFGS on time windows", "L-BFGS on a subset", "L-BFGS"], result
    assert any(
        c.startswith("Adam and L-BFGS on 2% of the points first: 4001 residuals") for c in result.choices
    )
    assert any(c.startswith("L-BFGS on every point for the last") for c in result.choices), result
    t = np.linspace(0, 2, 40)
    assert (
        np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-4
    )  # measured 1.8e-6 .. 5.4e-6 (every point: 6.9e-6)
    own = sum(term(*points)[0] for term, points in terms)
    assert own == pytest.approx(result.loss, rel=1e-6, abs=1e-14)
    assert result.seconds < 5 * 1.1


def test_few_points_for_the_weights_or_levenberg_marquardt_use_every_point(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.point_subsets"), "EVALUATIONS", 10**12)
    monkeypatch.setattr(solve_module, "EVALUATIONS", 10**12)
    net, terms = decay_problem(64)  # 65 rows for 37 weights: under two rows a weight
    result = solve(terms, net, seconds=2, min_steps=10**6)  # L-BFGS
    assert "L-BFGS on a subset" not in [s[0] for s in result.stages], result
    assert not any("of the points first" in c for c in result.choices), result
    net, terms = decay_problem(4000)  # many points, but a Levenberg-Marquardt step is cheap
    result = solve(terms, net, seconds=3)
    assert [s[0] for s in result.stages][:2] == ["Adam", "Levenberg-Marquardt"], result
    assert not any("of the points first" in c for c in result.choices), result
