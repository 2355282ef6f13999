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


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_a_jacobian_over_some_parameters_is_their_columns_and_reads_the_others_current_values(backend):
    """jacobian(params=...) gives the chosen Parameters' columns of the full Jacobian, in the order
    asked, for every term (a derivative term too); after the other weights change it follows
    them (they are inputs of its kernel, not constants), and the residuals are the same."""
    if backend == "c" and symgrad.pinn.fast_backend() != "c":
        pytest.skip("no C compiler here")
    net, terms = _fit_sine(backend)
    params = net.trainable_params()
    offsets = np.cumsum([0] + [int(np.prod(p.shape)) for p in params])
    columns = {id(p): np.arange(offsets[i], offsets[i + 1]) for i, p in enumerate(params)}
    rng = np.random.default_rng(4)
    for chosen in ([params[-2], params[-1]], [params[-1], params[0]], [params[2]]):
        picked = np.concatenate([columns[id(p)] for p in chosen])
        for _ in range(2):
            for term, points in terms:
                r, jac = term.jacobian(*points)
                r_some, jac_some = term.jacobian(*points, params=chosen)
                np.testing.assert_array_equal(r_some, r)
                np.testing.assert_allclose(jac_some, jac[:, picked], rtol=1e-13, atol=1e-15)
            theta = flatten(params)  # move every weight: the partial kernels must follow
            unflatten(params, theta + 0.1 * rng.standard_normal(theta.shape))


def test_a_jacobian_over_some_parameters_refuses_others_and_repeats():
    net, terms = _fit_sine()
    (term, points), other = terms[0], MLP([1, 3, 1], seed=1)
    with pytest.raises(ValueError, match="'fit': jacobian\\(params=...\\) takes the term's own Parameters"):
        term.jacobian(*points, params=[other.trainable_params()[0]])
    with pytest.raises(ValueError, match="needs one or more distinct Parameters"):
        term.jacobian(*points, params=[net.trainable_params()[0]] * 2)
    with pytest.raises(ValueError, match="needs one or more distinct Parameters"):
        term.jacobian(*points, params=[])


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


@pytest.mark.parametrize("rows, weights", [(5, 12), (12, 5)])
def test_the_damped_step_is_the_normal_equations_step_from_either_side(rows, weights):
    """Fewer residuals than weights: the step from the residuals' system J J^T equals the step
    from the weights' normal equations (solved here directly, by NumPy)."""
    from scipy.linalg import cho_factor, cho_solve

    from symgrad.pinn.levenberg_marquardt import _DampedSolver

    rng = np.random.default_rng(1)
    jac, r = rng.normal(size=(rows, weights)), rng.normal(size=rows)
    solver = _DampedSolver(jac, r, cho_factor, cho_solve)
    assert solver.dual == (rows < weights) and solver.normal.shape == (min(rows, weights),) * 2
    for damping in (1e-6, 0.3, 50.0):
        expected = -np.linalg.solve(jac.T @ jac + damping * np.eye(weights), jac.T @ r)
        np.testing.assert_allclose(solver.step(damping), expected, rtol=1e-7, atol=1e-12)


def test_fewer_residuals_than_weights_converge_to_the_points():
    """81 weights, 11 residuals (a fit through points): the residuals' system reaches them."""
    net = MLP([1, 8, 8, 1], seed=2, dtype=symgrad.float64)
    x = np.linspace(-1, 1, 11)
    fit = ResidualLoss(lambda t: net(t) - ops.sin(3 * t), ["x"], net, backend="numpy", name="fit")
    result = levenberg_marquardt([(fit, (x,))], net, max_iterations=200, progress=False)
    assert result.history[-1] < 1e-14
    np.testing.assert_allclose(np.ravel(symgrad.pinn.predict(net, x[None, :])), np.sin(3 * x), atol=1e-7)


class _Slow:
    """A residual term whose every evaluation takes ``pause`` seconds (one weight, r = w - 3)."""

    def __init__(self, pause: float):
        from symgrad import Parameter, Tensor

        self.pause = pause
        self.params = [Parameter(Tensor(np.array(0.0)), name="w")]

    def _r(self) -> np.ndarray:
        import time

        time.sleep(self.pause)
        return np.array([float(self.params[0].asnumpy()) - 3.0])

    def __call__(self, *points):
        r = self._r()
        return float(r @ r), [2 * r[0] * np.ones(())]

    def jacobian(self, *points):
        return self._r(), np.ones((1, 1))


def test_levenberg_marquardt_ends_within_max_seconds_when_trials_are_slow():
    """Each trial takes 0.3 s (one evaluation) to 0.6 s (and a Jacobian): the run ends within
    max_seconds and a tenth, not a trial later."""
    import time

    slow = _Slow(0.3)
    begun = time.perf_counter()
    result = levenberg_marquardt([(slow, ())], slow.params, max_seconds=2.0, damping=1e6, progress=False)
    took = time.perf_counter() - begun
    assert 1.0 < took < 2.0 * 1.1, took
    assert "max_seconds=2.0" in result.message and result.history == sorted(result.history, reverse=True)


def test_a_jacobian_prepared_in_the_background_is_the_same_and_gives_the_gradient():
    net, terms = _fit_sine()
    fit, points = terms[0]
    fit.prepare_jacobian()
    fit.prepare_jacobian()  # once is enough: a second call starts nothing
    r, jac = fit.jacobian(*points)
    _, other_terms = _fit_sine()
    r2, jac2 = other_terms[0][0].jacobian(*points)  # built where it is called
    np.testing.assert_array_equal(r, r2)
    np.testing.assert_array_equal(jac, jac2)
    loss, grads = fit(*points)
    np.testing.assert_allclose(
        2 * jac.T @ r, np.concatenate([g.ravel() for g in grads]), rtol=1e-10, atol=1e-14
    )
