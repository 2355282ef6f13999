"""The output layer solved by least squares (``output_layer``): which layers qualify, the solve
against NumPy's, and the projected loss's gradient against central finite differences."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import ops
from symgrad.parameter import flatten, unflatten
from symgrad.pinn import MLP, ResidualLoss, grad, laplacian, lbfgs, predict, solve, weighted_terms
from symgrad.pinn.output_layer import (
    Projected,
    Trial,
    affine_output_layer,
    least_squares_step,
    projected_terms,
    race,
)
from symgrad.pinn.training import NonFiniteLoss

solve_module = importlib.import_module("symgrad.pinn.solve")


def poisson(seed: int = 0, weight: float = 1.0):
    """-u'' = pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0: every residual affine in the output layer."""
    net = MLP([1, 8, 8, 1], "tanh", seed=seed)
    pde = ResidualLoss(
        lambda x: -laplacian(net, (0,))(x) - np.pi**2 * np.sin(np.pi * x), ("x",), net, backend="numpy"
    )
    ends = ResidualLoss(lambda x: net(x), ("x",), net, backend="numpy", weight=weight)
    return net, [(pde, [np.linspace(0, 1, 24)]), (ends, [np.array([0.0, 1.0])])]


def burgers_like(seed: int = 0):
    """u u' = cos x: the residual is quadratic in the output layer."""
    net = MLP([1, 6, 1], "tanh", seed=seed)
    term = ResidualLoss(lambda x: net(x) * grad(net, 0)(x) - np.cos(x), ("x",), net, backend="numpy")
    return net, [(term, [np.linspace(0, 1, 16)])]


def test_the_output_layer_of_a_linear_problem_qualifies_and_the_weights_are_left_as_they_were():
    net, terms = poisson()
    params = net.trainable_params()
    before = flatten(params).copy()
    layer = affine_output_layer(terms, params)
    assert layer is not None and [id(p) for p in layer] == [id(p) for p in params[-2:]]
    np.testing.assert_array_equal(flatten(params), before)


def test_a_residual_quadratic_in_the_output_layer_does_not_qualify():
    net, terms = burgers_like()
    assert affine_output_layer(terms, net.trainable_params()) is None


def test_a_term_without_the_layer_or_without_a_jacobian_does_not_qualify():
    net, terms = poisson()
    other = MLP([1, 4, 1], seed=1)
    foreign = ResidualLoss(lambda x: other(x), ("x",), other, backend="numpy")
    params = net.trainable_params() + other.trainable_params()
    # the last two Parameters are other's output layer, which the Poisson terms do not hold
    assert affine_output_layer([*terms, (foreign, [np.array([0.5])])], params) is None

    def plain(x):  # a loss with no Jacobian
        return terms[0][0](x)

    plain.params = net.trainable_params()  # type: ignore[attr-defined]
    assert affine_output_layer([(plain, terms[0][1])], net.trainable_params()) is None
    assert affine_output_layer(terms, net.trainable_params()[-2:]) is None  # no hidden weights left


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 12),
    cols=st.integers(1, 12),
    rank=st.integers(1, 12),
    ridge=st.sampled_from([1e-6, 1e-2, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_the_least_squares_step_is_numpys_ridge_solution(rows, cols, rank, ridge, seed):
    rng = np.random.default_rng(seed)
    rank = min(rank, rows, cols)
    jacobian = rng.standard_normal((rows, rank)) @ rng.standard_normal((rank, cols))
    residual, at = rng.standard_normal(rows), rng.standard_normal(cols)
    target = jacobian @ at - residual  # the layer x = at + d fits jacobian @ x = target
    stacked = np.vstack([jacobian, np.sqrt(ridge) * np.eye(cols)])  # the ridge as rows: NumPy's lstsq
    expected = np.linalg.lstsq(stacked, np.concatenate([target, np.zeros(cols)]), rcond=None)[0]
    got = at + least_squares_step(jacobian, residual, at, ridge)
    assert np.abs(got - expected).max() <= 1e-9 * max(1.0, np.abs(expected).max()) / ridge


def test_the_least_squares_step_refuses_no_ridge():
    with pytest.raises(ValueError, match="ridge must be > 0, got 0.0"):
        least_squares_step(np.eye(2), np.ones(2), np.zeros(2), 0.0)


def test_the_projected_loss_solves_the_layer_and_its_gradient_is_the_finite_differences_of_it():
    net, terms = poisson(weight=10.0)
    params = net.trainable_params()
    projected = Projected(terms, params[-2:], params)
    assert [id(p) for p in projected.params] == [id(p) for p in params[:-2]]
    start = sum(term(*points)[0] for term, points in terms)
    value, grads = projected()
    assert value < start
    # the layer is optimal: the full loss's gradient by it is zero up to the ridge
    layer_grads = [sum(term(*points)[1][k] for term, points in terms) for k in (-2, -1)]
    assert max(np.abs(g).max() for g in layer_grads) < 1e-6 * max(np.abs(g).max() for g in grads)
    # the gradient by the hidden weights is the projected loss's (the envelope theorem)
    hidden = flatten(projected.params).copy()
    gradient = np.concatenate([g.ravel() for g in grads])
    rng, h = np.random.default_rng(0), 1e-6
    for k in rng.choice(hidden.size, 8, replace=False):
        step = np.zeros_like(hidden)
        step[k] = h
        unflatten(projected.params, hidden + step)
        up = projected()[0]
        unflatten(projected.params, hidden - step)
        down = projected()[0]
        assert abs((up - down) / (2 * h) - gradient[k]) < 1e-5 * max(1.0, abs(gradient[k])), k
    unflatten(projected.params, hidden)


def test_lbfgs_on_the_projected_loss_reaches_the_poisson_solution():
    net, terms = poisson()
    projected_losses, hidden = projected_terms(terms, net.trainable_params()[-2:], net.trainable_params())
    lbfgs(projected_losses, hidden, max_iterations=200, progress=False)
    projected_losses[0][0].solve_layer()
    x = np.linspace(0, 1, 50)
    assert np.abs(predict(net, [x]) - np.sin(np.pi * x)).max() < 1e-3


def total(terms) -> float:
    return sum(term(*points)[0] for term, points in terms)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_race_leaves_the_weights_where_the_lower_loss_was_reached_and_says_so(seed):
    net, terms = poisson(seed)
    params = net.trainable_params()
    solver = Projected(terms, params[-2:], params)
    trial = race(terms, params, solver, seconds=0.3)
    assert trial.projected is (trial.with_layer < trial.without)
    assert total(terms) == pytest.approx(min(trial.with_layer, trial.without), rel=1e-9)
    assert trial.history[-1] == pytest.approx(total(terms), rel=1e-9)
    assert trial.size == 9 and trial.history and 0 < trial.seconds < 2.0


def test_solve_projects_where_it_trains_by_lbfgs_and_the_trial_finds_it_lower(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)  # L-BFGS, not Levenberg-Marquardt
    monkeypatch.setattr(solve_module, "WIDE_LAYER", 9)  # the test network's output layer is wide enough
    monkeypatch.setattr(solve_module, "resampleable", lambda terms: [])  # no new points: the same loss
    net, terms = poisson()
    result = solve(terms, net, seconds=3)
    said = [c for c in result.choices if "solved by linear least squares at every evaluation" in c]
    assert result.projected is True and len(said) == 1, result
    assert "in a trial of" in said[0] and "with it and to" in said[0]
    weighted = terms if result.weights is None else weighted_terms(terms, result.weights)  # if balanced
    assert result.loss == pytest.approx(total(weighted), rel=1e-12)  # the loss itself, not the ridge's too
    x = np.linspace(0, 1, 50)
    assert np.abs(predict(net, [x]) - np.sin(np.pi * x)).max() < 1e-3


def test_solve_trains_every_weight_where_the_trial_finds_the_projection_no_lower(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    calls = []

    def losing(losses, params, solver, seconds, progress=False):
        calls.append(seconds)
        return Trial(False, 2.0, 1.0, [12345.0], 0.0, 9)

    monkeypatch.setattr(solve_module, "race", losing)
    monkeypatch.setattr(solve_module, "WIDE_LAYER", 9)
    projected = []
    monkeypatch.setattr(Projected, "solve_layer", lambda self: projected.append(1) or 0.0)
    net, terms = poisson()
    result = solve(terms, net, seconds=2)
    assert result.projected is False and len(calls) == 1 and not projected, result
    assert 12345.0 in result.history  # the trial's winning run is the L-BFGS stage's start
    assert any(
        c.startswith("L-BFGS on every weight, W3, b3 (the output layer, 9 weights) too")
        for c in result.choices
    )


def test_solve_does_not_project_a_nonlinear_problem(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 4)
    monkeypatch.setattr(solve_module, "WIDE_LAYER", 1)  # wide enough: the residual's form decides
    net, terms = burgers_like()
    result = solve(terms, net, seconds=1)
    assert not any("least squares" in c for c in result.choices) and result.projected is None, result


def test_solve_does_not_project_a_narrow_output_layer(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "WIDE_LAYER", 10)
    net, terms = poisson()  # 9 output weights
    result = solve(terms, net, seconds=1)
    assert result.projected is None and not any("least squares" in c for c in result.choices), result


@pytest.mark.parametrize("flag", [True, False])
def test_solve_projects_only_while_project_is_set(monkeypatch, flag):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "PROJECT", flag)
    monkeypatch.setattr(solve_module, "WIDE_LAYER", 9)
    net, terms = poisson()
    result = solve(terms, net, seconds=1)
    assert any("least squares" in c for c in result.choices) is flag
    assert (result.projected is not None) is flag  # the trial ran, whichever way it went


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_a_residual_not_finite_stops_lbfgs_on_the_projected_loss_with_the_term_named():
    net = MLP([1, 4, 1], seed=0)
    term = ResidualLoss(lambda x: net(x) - ops.log(x), ("x",), net, backend="numpy", name="logs")
    terms = [(term, [np.array([-1.0, 0.5, 1.0])])]
    assert affine_output_layer(terms, net.trainable_params()) is None  # not finite: not checked as affine
    projected_losses, hidden = projected_terms(terms, net.trainable_params()[-2:], net.trainable_params())
    with pytest.raises(NonFiniteLoss, match="logs"):
        lbfgs(projected_losses, hidden, max_iterations=5, progress=False)


def test_a_layer_the_residuals_do_not_depend_on_at_these_points_is_left_as_it_is():
    net = MLP([1, 4, 1], seed=0)
    term = ResidualLoss(lambda x: 0.0 * net(x) + x, ("x",), net, backend="numpy")
    terms = [(term, [np.array([0.5, 1.0])])]
    solver = Projected(terms, net.trainable_params()[-2:], net.trainable_params())
    before = flatten(solver.layer).copy()
    assert solver.solve_layer() == 0.0
    np.testing.assert_array_equal(flatten(solver.layer), before)
