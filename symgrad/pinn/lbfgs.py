"""L-BFGS on the flat weight vector, by SciPy's L-BFGS-B (an optional extra: ``pip install scipy``).

SciPy's implementation is well kept and widely checked, so symgrad does not write its own: it
only flattens the weights, sums the loss terms and their gradients, and reports progress.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from symgrad.parameter import Parameter, flatten, unflatten
from symgrad.pinn.training import kernels_in_use, progress_bar, total_loss


@dataclass
class LbfgsResult:
    """What :func:`lbfgs` did: the loss per evaluation, SciPy's result and why it stopped."""

    history: list[float] = field(default_factory=list)
    iterations: int = 0
    message: str = ""
    success: bool = False


def lbfgs(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]],
    params: Sequence[Parameter],
    max_iterations: int = 5000,
    ftol: float = 0.0,
    gtol: float = 1e-12,
    history_size: int = 50,
    max_seconds: float | None = None,
    progress: bool = True,
    callback: Callable[[int, float], None] | None = None,
) -> LbfgsResult:
    """Minimise the sum of ``losses`` (each a ``ResidualLoss``-like callable with its points) over ``params``.

    Stops after ``max_iterations`` or ``max_seconds`` of wall time, or when the relative loss
    decrease falls below ``ftol`` (0: never) or the largest gradient entry below ``gtol``, as
    SciPy's L-BFGS-B does. The weights are left at the last iterate.
    """
    try:
        from scipy.optimize import minimize
    except ImportError:
        raise ImportError("lbfgs uses SciPy's L-BFGS-B: pip install scipy (or 'symgrad[pinn]')") from None
    params = list(params)
    result = LbfgsResult()
    deadline = None if max_seconds is None else time.perf_counter() + max_seconds
    bar = progress_bar(max_iterations, progress, "L-BFGS", "it")

    def loss_and_gradient(theta: np.ndarray) -> tuple[float, np.ndarray]:
        unflatten(params, theta)
        total, grads = total_loss(losses)
        result.history.append(total)
        return total, np.concatenate([np.asarray(g, np.float64).ravel() for g in grads])

    def step(theta: np.ndarray) -> None:
        result.iterations += 1
        if bar is not None:
            bar.set_postfix(loss=f"{result.history[-1]:.3e}", kernel=kernels_in_use(losses), refresh=False)
            bar.update()
        if callback is not None:
            callback(result.iterations, result.history[-1])
        if deadline is not None and time.perf_counter() > deadline:
            raise StopIteration  # SciPy ends the run and returns this iterate

    options = {"maxiter": max_iterations, "maxfun": 2 * max_iterations, "ftol": ftol, "gtol": gtol}
    done = minimize(
        loss_and_gradient,
        flatten(params),
        jac=True,
        method="L-BFGS-B",
        callback=step,
        options={**options, "maxcor": history_size},
    )
    unflatten(params, done.x)
    if bar is not None:
        bar.close()
    result.message, result.success = str(done.message), bool(done.success)
    if deadline is not None and time.perf_counter() > deadline:
        result.message = f"stopped after max_seconds={max_seconds} ({result.iterations} iterations)"
    return result
