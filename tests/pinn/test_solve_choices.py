"""``solve``'s point-subset rules (``symgrad.pinn.point_subsets``): where the residual rows are many
for the weights and few evaluations of every point fit in the time, Adam and L-BFGS train on a
subset first, and L-BFGS ends on every point; where a Levenberg-Marquardt step fits on two rows a
weight but not on every point, Adam and Levenberg-Marquardt train on that subset; elsewhere every
point is used throughout."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, parameters_of, predict, solve
from symgrad.pinn.lm_choice import sizes
from symgrad.pinn.point_subsets import (
    EVALUATIONS,
    ROWS_PER_WEIGHT,
    levenberg_marquardt_subset,
    subset_share,
    subset_terms,
)
from symgrad.pinn.training import loss_value

solve_module = importlib.import_module("symgrad.pinn.solve")
lm_choice = importlib.import_module("symgrad.pinn.lm_choice")


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


def test_levenberg_marquardt_takes_the_fewest_points_that_keep_two_rows_a_weight_where_its_step_fits():
    net, terms = decay_problem(4000)  # 4,001 rows, 37 weights
    rows, size = sizes(terms, parameters_of(net))
    chosen = levenberg_marquardt_subset(terms, parameters_of(net), 10.0, 40, 1.0, 3000)
    assert chosen is not None
    share, cut = chosen
    cut_rows, _ = sizes(cut, parameters_of(net))
    assert share == cut_rows / rows  # the rows taken, the one-point term whole among them
    assert ROWS_PER_WEIGHT * size <= cut_rows <= ROWS_PER_WEIGHT * size + 2
    expected = subset_terms(terms, ROWS_PER_WEIGHT * size / rows)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(cut, expected))
    # a step on the subset (1 s an evaluation of every point: about 0.02 s there) must fit 40 times
    assert levenberg_marquardt_subset(terms, parameters_of(net), 0.5, 40, 1.0, 3000) is None
    assert (
        levenberg_marquardt_subset(terms, parameters_of(net), 10.0, 40, 1.0, 10) is None
    )  # too many weights
    small_net, few = decay_problem(64)  # two rows a weight is over half the points
    assert levenberg_marquardt_subset(few, parameters_of(small_net), 10.0, 40, 1.0, 3000) is None


def test_levenberg_marquardt_on_a_subset_where_a_step_on_every_point_is_too_slow():
    """400,001 rows for 37 weights, and 100 steps asked for: on every point they do not fit (an
    evaluation of every point takes 50-100 ms), on 75 rows they do (a step: about 5 ms); Adam and
    Levenberg-Marquardt train there and u reaches exp(-t)."""
    net, terms = decay_problem(400_000)
    result = solve(terms, net, seconds=6, min_steps=100)
    assert [s[0] for s in result.stages][:2] == ["Adam", "Levenberg-Marquardt"], result
    assert any(
        c.startswith(
            "Adam and then Levenberg-Marquardt (if its step fits) on a random 0.019% of the points (75 of 400001 residuals"
        )
        for c in result.choices
    ), result
    assert any(c.startswith("Levenberg-Marquardt: 37 weights, 75 residuals") for c in result.choices), result
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-4, result  # measured 2e-8
    assert result.seconds < 6 * 1.1
    trained = "Levenberg-Marquardt and the stages after it trained on a random 0.019% of the points"
    assert any(c.startswith(trained) for c in result.choices), result  # the end says so


def test_after_a_subset_solve_says_the_loss_on_every_point_where_one_evaluation_fits():
    net, terms = decay_problem(4000)
    subset = subset_terms(terms, 0.01)
    result = solve_module.Solution(history=[loss_value(subset)])
    solve_module._every_point_loss(terms, 0.01, evaluation=0.01, rest=0.5, result=result)
    (said,) = result.choices
    assert said.startswith(
        "Levenberg-Marquardt and the stages after it trained on a random 1% of the points: "
    )
    every = float(said.split("the loss on every point is ")[1].split()[0])
    assert every == pytest.approx(loss_value(terms), rel=1e-3) and f"({result.loss:.3e} on" in said
    result = solve_module.Solution(history=[1.0])
    solve_module._every_point_loss(terms, 0.01, evaluation=2.0, rest=0.5, result=result)
    assert result.choices == [
        "Levenberg-Marquardt and the stages after it trained on a random 1% of the points; the loss on every "
        "point was not evaluated (about 2 s an evaluation)"
    ]


def test_a_subset_chosen_for_levenberg_marquardt_falls_back_to_l_bfgs_where_its_timed_step_is_slow(
    monkeypatch,
):
    monkeypatch.setattr(lm_choice, "jacobian_seconds", lambda losses: 1.0)  # a slow machine's Jacobian
    net, terms = decay_problem(400_000)
    result = solve(terms, net, seconds=5, min_steps=100)
    methods = [s[0] for s in result.stages]
    assert not any(m.startswith("Levenberg-Marquardt") for m in methods), result
    assert methods.index("L-BFGS on a subset") < methods.index("L-BFGS"), result  # then every point
    assert "then L-BFGS on those points, and on every point for the end" in result.choices, result
    assert any(c.startswith("L-BFGS on every point for the last") for c in result.choices), result
