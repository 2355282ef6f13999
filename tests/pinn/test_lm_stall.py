"""``solve`` stops a Levenberg-Marquardt that is not converging (``Stall``) and hands its time to
L-BFGS; one that converges runs on."""

from __future__ import annotations

import importlib
import math

import numpy as np

from symgrad.pinn import predict, solve
from tests.pinn.test_solve import decay_problem  # u' = -u, u(0) = 1: small enough for LM

solve_module = importlib.import_module("symgrad.pinn.solve")


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


def test_a_stalled_levenberg_marquardt_hands_the_time_left_to_lbfgs(monkeypatch):
    # judged at its first step, whose loss is its first: 1 > 0.5, a stall whatever the machine's speed
    monkeypatch.setattr(solve_module, "STALL_SHARE", 0.0)
    monkeypatch.setattr(solve_module, "STALL_GAIN", 0.5)
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
