"""Residual-based adaptive refinement and hard constraints by output transforms."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def refine(
    points: np.ndarray, candidates: np.ndarray, residuals: Callable[..., np.ndarray], count: int
) -> np.ndarray:
    """``points`` plus the ``count`` candidates where |residual| is largest (RAR, Lu et al. 2021).

    ``points`` and ``candidates`` have shape (dim, n); ``residuals(*candidates)`` gives one value per
    candidate (``ResidualLoss.residuals``).
    """
    if candidates.ndim != 2 or candidates.shape[0] != points.shape[0]:
        raise ValueError(f"refine: candidates {candidates.shape} must be (dim, n) like points {points.shape}")
    size = np.abs(np.asarray(residuals(*candidates))).ravel()
    worst = np.argsort(size)[::-1][: max(0, count)]
    return np.hstack([points, candidates[:, worst]])


def hard_constraint(net: Callable, boundary_value: Callable, distance: Callable) -> Callable:
    """``u = g + d * net``: ``g`` meets the conditions and ``d`` vanishes where they hold.

    With u written this way the boundary/initial terms drop out of the loss, e.g. for Burgers
    ``g = -sin(pi x)``, ``d = t (1 - x^2)``.
    """

    def u(*xs):
        return boundary_value(*xs) + distance(*xs) * net(*xs)

    return u
