"""Levenberg-Marquardt on the flat weight vector, from the residuals' closed-form Jacobians.

A PINN's loss is a sum of squares, sum_i r_i(w)^2. Gauss-Newton steps solve (J^T J + lambda I)
d = -J^T r with J the residuals' Jacobian, which symgrad's kernels give per point; lambda grows
when a step does not lower the loss and shrinks when it does. Where there are fewer residuals
than weights the same step comes from the residuals' smaller system, J^T (J J^T + lambda I)^-1 r.
A step refused costs one loss evaluation (no Jacobian). For a few thousand weights or residuals
each step costs one Jacobian evaluation and one dense solve (SciPy's Cholesky), and converges far
further than first-order methods. ``max_seconds`` holds within an iteration: a trial that would
not end in time (by the longest one so far) is not begun.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from symgrad.parameter import flatten, parameters_of, unflatten
from symgrad.pinn.alignment import aligned_columns, check_terms, optimized_parameters
from symgrad.pinn.threads import one_pool
from symgrad.pinn.training import History, NonFiniteLoss, Stop, progress_bar, term_names

LARGEST_COMFORTABLE = 3000  # weights past which a dense step costs seconds on a laptop-class CPU


LevenbergMarquardtResult = History  # what levenberg_marquardt returned before one History


def levenberg_marquardt(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]],
    params,
    max_iterations: int = 1000,
    damping: float = 1e-3,
    max_seconds: float | None = None,
    loss_tol: float | None = None,
    progress: bool = True,
    callback: Callable[[int, float], bool | None] | None = None,
) -> History:
    """Minimise the sum of ``losses`` (``ResidualLoss`` terms with their points) over ``params``.

    Each iteration takes the residuals and Jacobian of every term (``ResidualLoss.jacobian``),
    solves (J^T J + damping I) d = -J^T r, and keeps the step if it lowers the loss (then the
    damping is divided by up to 3, by how well the step's gain matched the linear model's), else
    multiplies the damping by 2, then 4, 8, ... and solves again (Nielsen's rule). Stops after
    ``max_iterations`` steps tried, ``max_seconds``, at ``loss_tol``, when ``callback(iteration,
    loss)`` returns True, or when the damping passes 1e12 (no step lowers the loss). A NaN or
    infinite residual raises :class:`NonFiniteLoss` with the weights at the last accepted step.
    """
    try:
        from scipy.linalg import LinAlgError, cho_factor, cho_solve
    except ImportError:
        raise ImportError(
            "levenberg_marquardt uses SciPy's Cholesky: pip install scipy (or 'symgrad[pinn]')"
        ) from None
    if not isinstance(max_iterations, int) or max_iterations < 1:
        raise ValueError(
            f"levenberg_marquardt: max_iterations must be a whole number >= 1, got {max_iterations!r}"
        )
    if not (isinstance(damping, int | float) and math.isfinite(damping) and damping > 0):
        raise ValueError(f"levenberg_marquardt: damping must be a finite number > 0, got {damping!r}")
    stop_rule = Stop(max_iterations, max_seconds, loss_tol).checked(
        "levenberg_marquardt", "max_iterations", 1
    )
    losses, params = list(losses), optimized_parameters(parameters_of(params), "levenberg_marquardt")
    if not losses:
        raise ValueError("levenberg_marquardt: no loss terms; pass a list of (loss, points) pairs")
    check_terms(losses, params, "levenberg_marquardt")
    jacobians = []  # each term's residuals-and-Jacobian method, with its points
    for term, points in losses:
        jacobian = getattr(term, "jacobian", None)
        if not callable(jacobian):
            raise TypeError(
                f"levenberg_marquardt: term {term_names([(term, ())])[0]!r} has no jacobian(); use ResidualLoss terms"
            )
        jacobians.append((term, jacobian, points))
    result = History()
    clock = stop_rule.clock(lambda: time.perf_counter())  # this module's clock (tests replace it)
    bar = progress_bar(max_iterations, progress, "Levenberg-Marquardt", "it")

    def residuals_and_jacobian() -> tuple[np.ndarray, np.ndarray]:
        parts = [(term, *jacobian(*points)) for term, jacobian, points in jacobians]
        r = np.concatenate([p[1] for p in parts])
        jac = np.concatenate([aligned_columns(params, t, j, "levenberg_marquardt") for t, _, j in parts])
        if not (np.all(np.isfinite(r)) and np.all(np.isfinite(jac))):
            raise NonFiniteLoss(
                f"levenberg_marquardt: a residual or its derivative is not finite after {len(result.history)} "
                "accepted steps; the weights are back at the last accepted step"
            )
        return r, jac

    theta = flatten(params)
    r, jac = residuals_and_jacobian()
    small = min(jac.shape)  # the normal equations are over the weights or the residuals, the fewer
    if small > LARGEST_COMFORTABLE:
        warnings.warn(
            f"levenberg_marquardt: {jac.shape[1]} weights: each step forms and solves a dense "
            f"{small} x {small} system from {jac.shape[0]} residuals (about "
            f"{(max(jac.shape) * small**2 + small**3 / 3) / 1e9:.0f} GFLOP); few steps fit in a "
            "training budget, and lbfgs usually does better on a network this size",
            RuntimeWarning,
            stacklevel=2,
        )
    loss = float(r @ r)
    trial_seconds = 0.0  # the longest trial so far: a trial that would not end in time is not begun

    def out_of_time() -> bool:
        return clock.out_of_time(trial_seconds)

    def trial_loss() -> float:
        """The loss at the weights as they are (the terms' values; no Jacobian is built for a
        step that may be refused)."""
        values = []
        for term, jacobian, points in jacobians:
            if callable(term):
                values.append(float(term(*points)[0]))
            else:  # a term with residuals only
                trial_r = jacobian(*points)[0]
                values.append(float(trial_r @ trial_r))
        total = math.fsum(values)
        return total if math.isfinite(total) else math.inf

    def _iteration(damping: float) -> tuple[bool, float]:
        """Trial steps from the current Jacobian until one lowers the loss (True), or the damping,
        the iterations or the time run out (False). Nielsen's rule: after a refused step the
        damping is multiplied by 2, 4, 8, ...; after an accepted one by max(1/3, 1 - (2 rho - 1)^3),
        rho the actual over the predicted decrease (a step as good as predicted divides it by 3,
        a poor one keeps it about as it was)."""
        nonlocal theta, r, jac, loss, trial_seconds
        factor = 2.0
        if out_of_time():
            return False, damping
        begun = time.perf_counter()  # the first trial's time includes forming the system
        solver = _DampedSolver(jac, r, cho_factor, cho_solve)
        while result.iterations < max_iterations and damping <= 1e12 and not out_of_time():
            result.iterations += 1
            try:
                step = solver.step(damping)
            except LinAlgError:
                damping, factor = damping * factor, factor * 2
                continue
            unflatten(params, theta + step)
            trial = trial_loss()
            if trial < loss:
                try:
                    trial_r, trial_jac = residuals_and_jacobian()
                except NonFiniteLoss:
                    trial = math.inf
            trial_seconds = max(trial_seconds, time.perf_counter() - begun)
            begun = time.perf_counter()
            if trial < loss:
                predicted = float(damping * (step @ step) - step @ solver.gradient)  # > 0
                rho = (loss - trial) / predicted if predicted > 0 else 1.0
                theta, r, jac, loss = theta + step, trial_r, trial_jac, float(trial_r @ trial_r)
                return True, max(damping * max(1 / 3, 1 - (2 * rho - 1) ** 3), 1e-15)
            unflatten(params, theta)
            damping, factor = damping * factor, factor * 2
        return False, damping

    try:
        with one_pool():  # BLAS on one thread: its threads' waits cost seconds on a busy machine
            while result.iterations < max_iterations:
                accepted, damping = _iteration(damping)
                result.history.append(loss)
                result.damping.append(damping)
                if bar is not None:
                    bar.set_postfix(loss=f"{loss:.3e}", damping=f"{damping:.1e}", refresh=False)
                    bar.update(1)
                if not accepted:
                    if damping > 1e12:
                        result.message = f"no step lowers the loss (damping {damping:.1e})"
                    elif out_of_time():
                        result.message = (
                            f"stopped after max_seconds={max_seconds} ({result.iterations} iterations; "
                            f"another trial would take about {trial_seconds:.2g} s)"
                        )
                    else:
                        result.message = "max_iterations reached"
                    break
                if callback is not None and callback(result.iterations, loss) is True:
                    result.message = f"stopped by the callback at iteration {result.iterations}"
                    break
                if loss_tol is not None and loss <= loss_tol:
                    result.message = f"loss {loss:.3e} <= loss_tol {loss_tol:g}"
                    break
                if out_of_time():
                    result.message = (
                        f"stopped after max_seconds={max_seconds} ({result.iterations} iterations)"
                    )
                    break
            else:
                result.message = "max_iterations reached"
    finally:
        unflatten(params, theta)
        if bar is not None:
            bar.close()
    result.seconds = clock.seconds()
    return result


class _DampedSolver:
    """The step -(J^T J + damping I)^-1 J^T r for one Jacobian and any damping: through the
    weights' normal equations, or where there are fewer residuals than weights through the
    residuals' (J J^T + damping I)^-1, the same step (J^T (J J^T + d I)^-1 = (J^T J + d I)^-1 J^T)
    from a far smaller system."""

    def __init__(self, jac: np.ndarray, r: np.ndarray, factor: Callable, solve: Callable):
        self.jac, self.r, self.factor, self.solve = jac, r, factor, solve
        self.dual = jac.shape[0] < jac.shape[1]
        self.normal = jac @ jac.T if self.dual else jac.T @ jac
        self.gradient = jac.T @ r  # half the loss's gradient
        self.right = r if self.dual else self.gradient

    def step(self, damping: float) -> np.ndarray:
        damped = self.normal + damping * np.eye(self.normal.shape[0])
        solved = self.solve(self.factor(damped), self.right)
        return -(self.jac.T @ solved) if self.dual else -solved


__all__ = ["LevenbergMarquardtResult", "levenberg_marquardt"]
