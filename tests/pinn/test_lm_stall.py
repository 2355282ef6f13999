"""``solve`` stops a Levenberg-Marquardt that is not converging (``Stall``) and hands its time to
L-BFGS; one that converges runs on."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from symgrad.pinn import predict, solve
from tests.pinn.test_solve import decay_problem  # u' = -u, u(0) = 1: small enough for LM

solve_module = importlib.import_module("symgrad.pinn.solve")


@pytest.fixture
def stalls_at_once(monkeypatch):
    """Judged at its first step, whose loss is its first: 1 > 0.5, a stall whatever the machine's speed."""
    monkeypatch.setattr(solve_module, "STALL_SHARE", 0.0)
    monkeypatch.setattr(solve_module, "STALL_GAIN", 0.5)


def test_the_stall_is_judged_once_at_its_share_of_the_time_against_the_first_loss():
    stall = solve_module.Stall(1.0)
    stall.when = math.inf  # not yet its time: never fires
    assert stall(1, 1.0) is False and stall(2, 0.99) is False and not stall.judged
    stall.when = -math.inf
    assert stall(3, 0.5) is True  # 0.5 of the first (1.0) > STALL_GAIN
    assert (
        "3 iterations" in stall.fired
        and "0.5 of its first" in stall.fired
        and "not converging" in stall.fired
    )
    fast = solve_module.Stall(1.0)
    fast.when = math.inf
    fast(1, 1.0)
    fast.when = -math.inf
    assert fast(2, 0.9 * solve_module.STALL_GAIN) is False and fast.judged
    assert fast(3, 1.0) is False and fast.fired == ""  # judged once: a later rise is not a stall


def test_a_stalled_levenberg_marquardt_hands_the_time_left_to_lbfgs(stalls_at_once):
    net, terms = decay_problem()
    result = solve(terms, net, seconds=6)
    methods = [stage[0] for stage in result.stages]
    assert methods[:3] == ["Adam", "Levenberg-Marquardt", "L-BFGS"], result
    assert "Levenberg-Marquardt on new points" not in methods  # new points go to L-BFGS too
    said = [c for c in result.choices if "not converging" in c]
    assert len(said) == 1 and said[0].endswith("L-BFGS takes the time left"), result.choices
    assert result.stages[1][1] == 1  # stopped at its first step, not at the end
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-3  # L-BFGS reached the solution


def test_a_converging_levenberg_marquardt_is_not_stopped():
    net, terms = decay_problem()
    result = solve(terms, net, seconds=4)
    assert [stage[0] for stage in result.stages][:2] == ["Adam", "Levenberg-Marquardt"], result
    assert not any("not converging" in c for c in result.choices), result.choices


class FixedTerm:
    """A term whose loss is a given number (no weights: the ratios alone are under test)."""

    def __init__(self, value: float, name: str):
        self.value, self.name = value, name

    def __call__(self, *points):
        return self.value, []


def test_lagging_terms_are_weighted_by_their_loss_ratio_over_the_least_up_to_the_cap():
    terms = [(FixedTerm(v, n), ()) for v, n in ((1e-4, "pde"), (0.5, "square"), (5.0, "disks"), (2.0, "far"))]
    starts = [1e-2, 1.0, 1.0, 1e-3]  # ratios 0.01, 0.5, 5, 2000
    choices: list[str] = []
    weights = solve_module._lagging_weights(terms, starts, choices)
    assert weights == pytest.approx([1.0, 50.0, 500.0, solve_module.LAG_CAP])
    assert len(choices) == 1 and "pde 0.01" in choices[0] and "square 0.5" in choices[0], choices


def test_no_term_lags_where_every_loss_fell_below_its_share_of_the_start():
    share = solve_module.LAG_SHARE
    terms = [(FixedTerm(v, n), ()) for v, n in ((1e-6, "pde"), (0.9 * share, "boundary"))]
    choices: list[str] = []
    assert solve_module._lagging_weights(terms, [1.0, 1.0], choices) is None and choices == []
    # a term that started at zero has no ratio: weight 1, and the others are judged without it
    terms = [(FixedTerm(v, n), ()) for v, n in ((1e-6, "pde"), (0.5, "boundary"), (0.3, "zero start"))]
    assert solve_module._lagging_weights(terms, [1.0, 1.0, 0.0], choices) == pytest.approx(
        [1.0, solve_module.LAG_CAP, 1.0]
    )


def test_after_a_stall_lbfgs_minimises_the_lagging_weights(stalls_at_once, monkeypatch):
    monkeypatch.setattr(solve_module, "LAG_SHARE", 0.0)  # every stall reweights
    net, terms = decay_problem()
    result = solve(terms, net, seconds=6)
    assert result.weights is not None and len(result.weights) == len(terms), result
    assert min(result.weights) == 1.0 and all(1.0 <= w <= solve_module.LAG_CAP for w in result.weights)
    assert any("some lag" in c for c in result.choices), result.choices
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-3  # the weighted sum has the same solution
