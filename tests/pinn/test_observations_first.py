"""``solve`` fits observed values first (``observations``' terms say ``observes``) where L-BFGS
trains, keeps the start's balanced weights after that, and leaves anchors and Levenberg-Marquardt
problems alone."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from symgrad import Parameter, Tensor
from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, observations, solve
from symgrad.pinn.training import norm_weights

solve_module = importlib.import_module("symgrad.pinn.solve")


def decay_inverse(observed: int, seed: int = 3):
    """u' = -k u on [0, 2], u(0) = 1, k unknown (starts at 0.2, truth 1); u = exp(-t) observed at
    ``observed`` times. Returns the terms, the weights with k, and k."""
    time = TimeDomain(0, 2)
    net = MLP([1, 12, 1], seed=seed)
    k = Parameter(Tensor(np.array(0.2)), name="k")
    params = [*net.trainable_params(), k]
    ode = ResidualLoss(lambda t: grad(net, 0)(t) + k * net(t), ("t",), params, backend="numpy", name="ode")
    start = initial(net, time, 1.0)
    times = np.linspace(0.1, 1.9, observed)[None, :]
    data = observations(net, times, np.exp(-times[0]), ("t",))
    terms = [
        (ode, time.interior(64, "sobol")),
        (start.loss(params, backend="numpy"), start.sample(1)),
        (data.loss(params, backend="numpy"), data.sample()),
    ]
    return terms, params, k


def test_only_observations_say_they_observe():
    time = TimeDomain(0, 1)
    net = MLP([1, 4, 1], seed=0)
    data = observations(net, np.array([[0.5, 0.7]]), np.array([1.0, 2.0]), ("t",))
    assert data.observes and data.loss(net, backend="numpy").observes
    assert not initial(net, time, 1.0).loss(net, backend="numpy").observes
    assert not ResidualLoss(lambda t: net(t), ("t",), net, backend="numpy").observes


def test_lbfgs_problems_fit_the_observations_first_and_find_the_unknown(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)  # Levenberg-Marquardt ruled out
    terms, params, k = decay_inverse(observed=20)
    result = solve(terms, params, seconds=4.0)
    first, steps, seconds, loss = result.stages[0]
    assert first == solve_module.OBSERVATIONS_STAGE and steps > 0
    assert seconds <= solve_module.OBSERVATIONS_SHARE * 4.0 + 0.3
    assert any(c.startswith(f"{solve_module.OBSERVATIONS_STAGE} (data: 20 points)") for c in result.choices)
    assert [m for m, *_ in result.stages].count(solve_module.OBSERVATIONS_STAGE) == 1
    assert abs(float(k.asnumpy()) - 1.0) < 0.05, result


def test_anchors_and_levenberg_marquardt_problems_skip_the_stage(monkeypatch):
    terms, params, _ = decay_inverse(observed=20)
    gauss_newton = solve(terms, params, seconds=1.5)  # 37 weights: Levenberg-Marquardt is likely
    assert solve_module.OBSERVATIONS_STAGE not in [m for m, *_ in gauss_newton.stages]
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    terms, params, _ = decay_inverse(observed=solve_module.FEWEST_OBSERVED - 1)
    anchored = solve(terms, params, seconds=1.5)
    assert solve_module.OBSERVATIONS_STAGE not in [m for m, *_ in anchored.stages]
    assert not any("observations" in c for c in anchored.choices)


def test_after_the_observations_the_balanced_weights_are_the_starts(monkeypatch):
    """Balancing forced (ratio 1): the weights are sum_j |g_j| / |g_i| of the gradients at the start,
    not rebalanced after the data were fitted (their gradient then near zero)."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    terms, params, _ = decay_inverse(observed=20)
    norms = []
    for term, points in terms:
        _, grads = term(*points)
        norms.append(math.sqrt(sum(float(np.vdot(g, g)) for g in grads)))
    result = solve(terms, params, seconds=2.0, balance_ratio=1.0)
    assert result.stages[0][0] == solve_module.OBSERVATIONS_STAGE
    assert result.weights == pytest.approx(norm_weights(norms), rel=1e-9)
    assert any(c.startswith("the terms keep the weights balanced at the start") for c in result.choices)
    assert norm_weights([1.0, 3.0, 0.0]) == [4.0, 4.0 / 3.0, 1.0]


def test_a_plain_callable_term_beside_observations(monkeypatch):
    """A term that is only a function (no ``observes``, no ``name``) is fitted after the data."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    terms, params, _ = decay_inverse(observed=20)
    ode, points = terms[0]
    terms[0] = (lambda *arrays: ode(*arrays), points)  # gradients in the order of params
    result = solve(terms, params, seconds=1.5)
    assert result.stages[0][0] == solve_module.OBSERVATIONS_STAGE
    assert any("(data: 20 points)" in c for c in result.choices)
