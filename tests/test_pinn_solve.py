"""``solve``: the default recipe picks methods from the problem's size and says why; it reaches the
closed-form solution of small problems without hand tuning."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, predict, solve

solve_module = importlib.import_module("symgrad.pinn.solve")


def decay_problem(weight: float = 1.0):
    """u' = -u on [0, 2], u(0) = 1: u = exp(-t)."""
    time = TimeDomain(0, 2)
    net = MLP([1, 12, 1], seed=3)
    start = initial(net, time, 1.0)
    ode = ResidualLoss(lambda t: grad(net, 0)(t) + net(t), ("t",), net, backend="numpy")
    terms = [
        (ode, time.interior(64, "sobol")),
        (start.loss(net, weight=weight, backend="numpy"), start.sample(1)),
    ]
    return net, terms


def test_small_networks_get_levenberg_marquardt_and_reach_the_solution():
    net, terms = decay_problem()
    result = solve(terms, net, seconds=6)
    methods = [stage[0] for stage in result.stages]
    assert methods[:2] == ["Adam", "Levenberg-Marquardt"], result
    assert any(c.startswith("Levenberg-Marquardt: 37 weights, 65 residuals, about") for c in result.choices)
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-4
    assert result.loss == result.history[-1] and "solve: loss" in str(result)


def test_large_networks_get_lbfgs_and_terms_far_apart_get_balanced(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    net, terms = decay_problem(weight=1e4)
    result = solve(terms, net, seconds=4)
    assert [stage[0] for stage in result.stages] == ["Adam", "L-BFGS"]
    assert any("37 weights make a dense Levenberg-Marquardt step too costly" in c for c in result.choices)
    assert any(c.startswith("balance the terms by gradient norms") for c in result.choices)
    assert (
        result.weights is not None
        and len(result.weights) == 2
        and all(math.isfinite(w) for w in result.weights)
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [({"seconds": 0}, "seconds must be a finite number > 0"), ({"warmup": 1.0}, "warmup must be a fraction")],
)
def test_solve_refuses_bad_arguments_by_name(kwargs, message):
    net, terms = decay_problem()
    with pytest.raises(ValueError, match=message):
        solve(terms, net, **kwargs)
