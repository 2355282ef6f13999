"""When ``solve``'s L-BFGS has converged, judged in units of the loss itself.

SciPy's L-BFGS-B ends a run when its largest gradient entry falls below ``gtol`` or an iteration
lowers the loss by less than ``ftol * max(loss, 1)``: both are absolute below a loss of 1. On the
Helmholtz hole of DeepXDE's gallery the gradient test ended L-BFGS at a loss of 6.4e-11 with 107 of
150 s left (error 2.1e-6-2.4e-6), and without the gradient test, on a small fit the step test
ends each run after a few iterations at a loss of 1e-10 (144 restarts in 2 s). ``Slow`` asks
instead how much the loss fell over its last ``SLOW_ITERATIONS`` iterations, a share of the loss:
the same rule for a loss scaled by any factor (the hole: 1.1e-7-1.3e-7).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

SLOW_ITERATIONS = 100  # L-BFGS has converged once its loss fell ...
SLOW_GAIN = 1e-4  # ... by less than this share over so many iterations


class Slow:
    """An L-BFGS callback: True (converged) once the loss at an iteration is more than
    ``1 - SLOW_GAIN`` times its value ``SLOW_ITERATIONS`` iterations before; before that, True where
    ``then`` (another callback, e.g. ``domain_points.Gap``) is. ``fired`` says why it stopped."""

    def __init__(self, then: Callable[[int, float], bool] | None = None):
        self.then, self.fired = then, ""
        self.losses: deque[float] = deque(maxlen=SLOW_ITERATIONS + 1)

    def __call__(self, iteration: int, loss: float) -> bool:
        if self.then is not None and self.then(iteration, loss):
            return True
        self.losses.append(loss)
        before = self.losses[0]
        if len(self.losses) > SLOW_ITERATIONS and loss > before * (1 - SLOW_GAIN):
            self.fired = (
                f"converged: over its last {SLOW_ITERATIONS} iterations the loss fell from {before:.3e} "
                f"to {loss:.3e}, by less than {SLOW_GAIN:g} of it"
            )
        return bool(self.fired)


__all__ = ["SLOW_GAIN", "SLOW_ITERATIONS", "Slow"]
