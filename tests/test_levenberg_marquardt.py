"""Levenberg-Marquardt on PINN losses: the residual Jacobian is right, and the steps converge."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import ops
from symgrad.pinn import MLP, NonFiniteLoss, ResidualLoss, flatten, lbfgs, levenberg_marquardt, unflatten


def _fit_sine(backend: str = "numpy"):
    """u(x) ~ sin(3x) on [-1, 1] as a residual u(x) - sin(3x), plus u'(0) = 3 (a derivative term)."""
    net = MLP([1, 8, 8, 1], seed=0, dtype=symgrad.float64)
    fit = ResidualLoss(lambda x: net(x) - ops.sin(3 * x), ["x"], net, backend=backend, name="fit")
    slope = ResidualLoss(
        lambda x: symgrad.grad(net)(x) - 3, ["x"], net, weight=0.5, backend=backend, name="slope"
    )
    return net, [(fit, (np.linspace(-1, 1, 40),)), (slope, (np.zeros(1),))]


def test_the_jacobian_gives_the_loss_and_its_gradient():
    net, terms = _fit_sine()
    for term, points in terms:
        r, jac = term.jacobian(*points)
        loss, grads = term(*points)
        assert r @ r == pytest.approx(loss, rel=1e-12)  # scaled so that |r|^2 is the loss
        gradient = np.concatenate([g.ravel() for g in grads])
        np.testing.assert_allclose(2 * jac.T @ r, gradient, rtol=1e-10, atol=1e-14)


def test_the_jacobian_matches_central_differences_of_the_residuals():
    net, terms = _fit_sine()
    term, points = terms[0]
    r, jac = term.jacobian(*points)
    theta = flatten(net.trainable_params())
    for k in (0, 5, len(theta) - 1):
        step = np.zeros_like(theta)
        step[k] = 1e-6
        unflatten(net.trainable_params(), theta + step)
        up = term.jacobian(*points)[0]
        unflatten(net.trainable_params(), theta - step)
        down = term.jacobian(*points)[0]
        unflatten(net.trainable_params(), theta)
        np.testing.assert_allclose((up - down) / 2e-6, jac[:, k], rtol=1e-6, atol=1e-9)


def test_levenberg_marquardt_goes_far_below_lbfgs_with_as_many_evaluations():
    net, terms = _fit_sine()
    result = levenberg_marquardt(terms, net, max_iterations=400, progress=False)
    assert result.history == sorted(result.history, reverse=True)  # only steps that lower the loss
    x = np.linspace(-1, 1, 7)
    np.testing.assert_allclose(np.ravel(symgrad.pinn.predict(net, x[None, :])), np.sin(3 * x), atol=1e-4)
    other, other_terms = _fit_sine()
    reference = lbfgs(other_terms, other, max_iterations=400, progress=False)  # about 500 evaluations
    assert result.history[-1] < 1e-8 and result.history[-1] < 1e-3 * reference.history[-1]


def test_arguments_are_checked_and_non_finite_residuals_stop_with_the_weights_kept():
    net, terms = _fit_sine()
    with pytest.raises(ValueError, match="damping must be a finite number > 0"):
        levenberg_marquardt(terms, net, damping=0)
    with pytest.raises(TypeError, match="has no jacobian"):
        levenberg_marquardt([(lambda x: (0.0, []), (np.zeros(1),))], net)
    before = flatten(net.trainable_params())
    bad = ResidualLoss(lambda x: net(x) * ops.log(x), ["x"], net, backend="numpy", name="bad")
    with pytest.raises(NonFiniteLoss, match="not finite"):
        levenberg_marquardt([(bad, (np.array([-1.0, 0.5]),))], net, progress=False)
    np.testing.assert_array_equal(flatten(net.trainable_params()), before)
