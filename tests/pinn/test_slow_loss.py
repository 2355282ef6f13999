"""``slow_loss.Slow``: solve's L-BFGS convergence rule, in units of the loss."""

import numpy as np
import pytest

from symgrad.pinn.slow_loss import SLOW_GAIN, SLOW_ITERATIONS, Slow


def first_fired(losses) -> int | None:
    slow = Slow()
    for iteration, loss in enumerate(losses, 1):
        if slow(iteration, float(loss)):
            assert "converged" in slow.fired and f"{SLOW_ITERATIONS} iterations" in slow.fired
            return iteration
    return None


@pytest.mark.parametrize("units", [1e-30, 1e-10, 1.0, 1e10])
def test_it_fires_at_the_same_iteration_in_any_units(units):
    """Fast decay, then a plateau: the rule fires SLOW_ITERATIONS into the plateau, whatever the
    loss's units (SciPy's tests are absolute below a loss of 1: not so)."""
    falling = 0.9 ** np.arange(300)
    plateau = falling[-1] * (1 - 0.1 * SLOW_GAIN * np.arange(1, 400) / 400)
    losses = units * np.concatenate([falling, plateau])
    assert first_fired(losses) == 300 + SLOW_ITERATIONS


def test_a_slow_but_steady_fall_is_not_converged():
    """A loss falling 10x every 10,000 iterations is still going: never judged converged."""
    gain_per_step = 10 ** (-1 / 10_000)
    assert (1 - gain_per_step**SLOW_ITERATIONS) > SLOW_GAIN  # the premise: faster than the rule's gain
    assert first_fired(1e-12 * gain_per_step ** np.arange(5000)) is None


def test_the_callback_it_wraps_stops_first():
    calls: list[int] = []

    def gap(iteration: int, loss: float) -> bool:
        calls.append(iteration)
        return iteration == 3

    slow = Slow(then=gap)
    assert [slow(i, 1.0) for i in (1, 2, 3)] == [False, False, True]
    assert calls == [1, 2, 3] and slow.fired == ""
