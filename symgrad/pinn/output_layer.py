"""The output layer solved by linear least squares where every residual is affine in it.

A PINN's residuals for a linear equation with linear conditions (Poisson, Helmholtz, heat, wave...)
are affine in the network's output layer: for fixed hidden weights, the best output layer is a
linear least-squares solution. ``Projected`` is the loss as a function of the hidden weights alone,
the output layer solved at every call (variable projection): its gradient by the hidden weights is
the full loss's at that solution (the output layer's own gradient is zero there), so L-BFGS
minimises it as it would any loss term.

``affine_output_layer`` finds the layer: the last two of the Parameters (an MLP's output weight and
bias), where every term has a Jacobian over them and the loss along a random direction in them is a
quadratic (its third difference vanishes): Burgers' u u_x, say, is not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.parameter import Parameter, flatten, unflatten
from symgrad.pinn.alignment import term_parameters
from symgrad.pinn.lbfgs import lbfgs
from symgrad.pinn.training import loss_value, term_names, term_values, total_loss

RIDGE = 1e-12  # the least-squares ridge, as a share of the mean squared singular value
AFFINE_TOLERANCE = 1e-7  # the third difference of the loss along a line, relative to the loss there


def affine_output_layer(losses, params: Sequence[Parameter], seed: int = 0) -> list[Parameter] | None:
    """The last two of ``params`` where every term of ``losses`` holds them, has a Jacobian and is a
    quadratic in them along a random line (its residuals affine in them), and each term's Jacobian
    takes ``params=``; else None. The weights are left as they were."""
    if len(params) < 3:  # no hidden weights would be left
        return None
    layer = list(params[-2:])
    for term, _ in losses:
        own = {id(p) for p in term_parameters(term) or []}
        if not callable(getattr(term, "jacobian", None)) or not all(id(p) in own for p in layer):
            return None
    start = flatten(layer)
    scale = float(np.sqrt(np.mean(start**2))) or 1.0
    direction = 0.1 * scale * np.random.default_rng(seed).standard_normal(start.size)
    values = []
    try:
        for t in range(4):
            unflatten(layer, start + t * direction)
            values.append(loss_value(losses))
    finally:
        unflatten(layer, start)
    third = values[3] - 3 * values[2] + 3 * values[1] - values[0]
    if not all(math.isfinite(v) for v in values) or abs(third) > AFFINE_TOLERANCE * max(map(abs, values)):
        return None
    try:  # a term's own Jacobian that takes no params= (its kernels are built here, once)
        for term, points in losses:
            term.jacobian(*points, params=layer)
    except TypeError:
        return None
    return layer


def least_squares_step(
    jacobian: np.ndarray, residual: np.ndarray, at: np.ndarray, ridge: float
) -> np.ndarray:
    """The step ``d`` minimising ``|residual + jacobian d|^2 + ridge |at + d|^2`` (``ridge`` > 0), by
    the triangular factor of a QR factorisation of the ridge-stacked system (as accurate as an SVD
    and 3x faster; the Gram matrix ``J^T J`` would square the condition number: the Helmholtz
    hole's error 3e-6 by QR or SVD, 3e-4 by the Gram matrix)."""
    if not ridge > 0:
        raise ValueError(f"least_squares_step: ridge must be > 0, got {ridge!r}")
    size = jacobian.shape[1]
    target = jacobian @ at - residual  # the layer x = at + d fits jacobian @ x = target
    stacked = np.block([[jacobian, target[:, None]], [math.sqrt(ridge) * np.eye(size), np.zeros((size, 1))]])
    factor: np.ndarray = np.linalg.qr(stacked, mode="r")  # type: ignore[assignment]  # R of [J target]: no Q
    return np.linalg.solve(factor[:size, :size], factor[:size, size]) - at


class Projected:
    """The sum of ``losses`` as a loss term over the Parameters other than ``layer``, with ``layer``
    solved by least squares (a ridge of ``RIDGE`` of the mean squared singular value, fixed at the
    first call) at every call. Call with no points."""

    def __init__(self, losses, layer: Sequence[Parameter], params: Sequence[Parameter]):
        self.losses, self.layer = list(losses), list(layer)
        held = {id(p) for p in self.layer}
        self.params = [p for p in params if id(p) not in held]
        self.name = "projected"
        self.ridge: float | None = None
        self.last_terms: list[float] = []
        self.term_names = term_names(self.losses)

    def solve_layer(self) -> float:
        """Put the least-squares output layer in place for the current hidden weights; returns the
        ridge's share of the objective (``ridge |layer|^2``)."""
        parts = [term.jacobian(*points, params=self.layer) for term, points in self.losses]
        residual = np.concatenate([r for r, _ in parts])
        jacobian = np.vstack([j for _, j in parts])
        if not (np.isfinite(residual).all() and np.isfinite(jacobian).all()):
            return 0.0  # the layer is left: the loss's own evaluation reports where it is not finite
        if not self.ridge:
            self.ridge = RIDGE * float(np.sum(jacobian**2)) / jacobian.shape[1]
        if not self.ridge:  # the residuals do not depend on the layer here: nothing to solve
            return 0.0
        at = flatten(self.layer)
        solved = at + least_squares_step(jacobian, residual, at, self.ridge)
        unflatten(self.layer, solved)
        return self.ridge * float(solved @ solved)

    def __call__(self) -> tuple[float, list[np.ndarray]]:
        penalty = self.solve_layer()
        total, grads = total_loss(self.losses, self.params)
        self.last_terms = term_values(self.losses)
        return total + penalty, grads


@dataclass
class Trial:
    """L-BFGS with the output layer solved at every evaluation against plain L-BFGS, from the same
    weights for the same time: the losses each reached, the winner's history and both runs' time."""

    projected: bool
    with_layer: float
    without: float
    history: list[float]
    seconds: float
    size: int


def race(
    losses, params: Sequence[Parameter], solver: Projected, seconds: float, progress: bool = False
) -> Trial:
    """Run L-BFGS for ``seconds`` on ``losses`` over ``params``, then from the same weights on
    ``solver`` (the projected loss) over the hidden weights; leave the weights where the lower
    loss was reached and say which."""
    start = flatten(params).copy()
    plain = lbfgs(losses, params, max_iterations=10**9, max_seconds=seconds, progress=progress)
    plain_end, without = flatten(params).copy(), loss_value(losses)
    unflatten(params, start)
    projected = lbfgs(
        [(solver, ())], solver.params, max_iterations=10**9, max_seconds=seconds, progress=progress
    )
    solver.solve_layer()
    with_layer = loss_value(losses)
    wins = with_layer < without
    if not wins:
        unflatten(params, plain_end)
    return Trial(
        wins,
        with_layer,
        without,
        [*projected.history[:-1], with_layer] if wins else plain.history,  # the last without the ridge's term
        plain.seconds + projected.seconds,
        flatten(solver.layer).size,
    )


def projected_terms(losses, layer: Sequence[Parameter], params: Sequence[Parameter]) -> tuple[list, list]:
    """``(terms, hidden)``: ``losses`` as one :class:`Projected` term over the hidden Parameters."""
    term = Projected(losses, layer, params)
    return [(term, ())], term.params


__all__ = ["Projected", "Trial", "affine_output_layer", "least_squares_step", "projected_terms", "race"]
