"""L-BFGS on the flat weight vector, by SciPy's L-BFGS-B (an optional extra: ``pip install scipy``).

SciPy's implementation is well kept and widely checked, so symgrad does not write its own: it
only flattens the weights, sums the loss terms and their gradients, guards against non-finite
values, keeps BLAS off the kernels' cores, and reports progress.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from symgrad.parameter import flatten, parameters_of, unflatten
from symgrad.pinn.alignment import check_terms, optimized_parameters
from symgrad.pinn.threads import one_pool
from symgrad.pinn.training import (
    History,
    NonFiniteLoss,
    Stop,
    explain_non_finite,
    kernels_in_use,
    progress_bar,
    term_names,
    term_values,
    total_loss,
)

LbfgsResult = History  # what lbfgs returned before every loop returned one History


class _Stop(Exception):
    """Raised from SciPy's callback to end the run at the current iterate."""


def lbfgs(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]],
    params,
    max_iterations: int = 5000,
    ftol: float = 1e-14,
    gtol: float = 1e-9,
    history_size: int = 50,
    max_seconds: float | None = None,
    progress: bool = True,
    callback: Callable[[int, float], bool | None] | None = None,
    loss_tol: float | None = None,
) -> History:
    """Minimise the sum of ``losses`` (each a ``ResidualLoss``-like callable with its points) over ``params``
    (Parameters, or a network).

    Stops after ``max_iterations`` or ``max_seconds`` of wall time, when the loss falls to ``loss_tol``,
    when an iteration lowers the loss by less than ``ftol * max(loss, 1)`` or the largest gradient entry
    falls below ``gtol`` (SciPy's tests), or when ``callback(iteration, loss)`` returns True. The weights are
    left at the last iterate. A NaN or infinite loss or gradient raises :class:`NonFiniteLoss` with the
    weights put back at the last finite evaluation. Returns a :class:`History` of the loss per evaluation.
    """
    try:
        from scipy.optimize import minimize
    except ImportError:
        raise ImportError("lbfgs uses SciPy's L-BFGS-B: pip install scipy (or 'symgrad[pinn]')") from None
    if not isinstance(max_iterations, int) or max_iterations < 1:
        raise ValueError(f"lbfgs: max_iterations must be a whole number >= 1, got {max_iterations!r}")
    stop_rule = Stop(max_iterations, max_seconds, loss_tol).checked("lbfgs", "max_iterations", 1)
    for label, value in (("ftol", ftol), ("gtol", gtol)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
            raise ValueError(f"lbfgs: {label} must be a finite number >= 0, got {value!r}")
    losses, params = list(losses), optimized_parameters(parameters_of(params), "lbfgs")
    if not losses:
        raise ValueError("lbfgs: no loss terms; pass a list of (loss, points) pairs")
    check_terms(losses, params, "lbfgs")
    names = term_names(losses)
    result = History()
    result.terms = {name: [] for name in names}
    clock = stop_rule.clock()
    bar = progress_bar(max_iterations, progress, "L-BFGS", "it")
    last_finite = last_iterate = flatten(params)
    iterate_loss: float | None = None
    stopped = ""

    def loss_and_gradient(theta: np.ndarray) -> tuple[float, np.ndarray]:
        nonlocal last_finite, stopped
        if clock.out_of_time() and result.history:
            # inside an iteration (a line search may take many evaluations): end at the last iterate
            stopped = f"stopped after max_seconds={max_seconds} ({result.iterations} iterations, inside one)"
            raise _Stop
        unflatten(params, theta)
        total, grads = total_loss(losses, params)
        gradient = np.concatenate([np.asarray(g, np.float64).ravel() for g in grads])
        if not (math.isfinite(total) and np.isfinite(gradient).all()):
            where = f"lbfgs: evaluation {len(result.history)} (iteration {result.iterations})"
            raise NonFiniteLoss(
                explain_non_finite(losses, params, where)
                + "; the weights are back at the last finite evaluation"
            )
        last_finite = theta.copy()
        result.history.append(total)
        for name, value in zip(names, term_values(losses)):
            result.terms[name].append(value)
        return total, gradient

    def step(theta: np.ndarray) -> None:
        nonlocal stopped, last_iterate, iterate_loss
        result.iterations += 1
        last_iterate = np.array(theta, copy=True)
        loss = iterate_loss = result.history[-1]
        if bar is not None:
            bar.set_postfix(loss=f"{loss:.3e}", kernel=kernels_in_use(losses), refresh=False)
            bar.update()
        if callback is not None and callback(result.iterations, loss) is True:
            stopped = f"stopped by the callback at iteration {result.iterations}"
        elif loss_tol is not None and loss <= loss_tol:
            stopped = f"loss {loss:.3e} <= loss_tol {loss_tol:g} at iteration {result.iterations}"
        elif clock.out_of_time():
            stopped = f"stopped after max_seconds={max_seconds} ({result.iterations} iterations)"
        if stopped:
            raise StopIteration  # SciPy ends the run and returns this iterate

    options = {"maxiter": max_iterations, "maxfun": 2 * max_iterations, "ftol": ftol, "gtol": gtol}
    final, success = last_iterate, False
    try:
        with one_pool():
            done = minimize(
                loss_and_gradient,
                flatten(params),
                jac=True,
                method="L-BFGS-B",
                callback=step,
                options={**options, "maxcor": history_size},
            )
        final, success = done.x, bool(done.success)
        stopped = stopped or _said(str(done.message))
    except _Stop:  # the weights and the last loss recorded are the last iterate's, not a trial's
        final = last_iterate
        result.history.append(iterate_loss if iterate_loss is not None else result.history[0])
    except NonFiniteLoss:
        unflatten(params, last_finite)
        raise
    finally:
        if bar is not None:
            bar.close()
    unflatten(params, final)
    result.message, result.success = stopped, success
    result.seconds = clock.seconds()
    return result


def _said(message: str) -> str:
    """SciPy's stopping message, with the words newer SciPy leaves out (1.15+: ``"ABNORMAL: "``;
    before: ``"ABNORMAL_TERMINATION_IN_LNSRCH"``)."""
    if message.strip() in ("ABNORMAL:", "ABNORMAL", "ABNORMAL_TERMINATION_IN_LNSRCH"):
        return "ABNORMAL: the line search found no lower loss along L-BFGS's direction"
    return message


__all__ = ["LbfgsResult", "flatten", "lbfgs", "unflatten"]
