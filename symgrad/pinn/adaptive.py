"""Residual-based adaptive points (refinement, resampling) and hard constraints by output transforms."""

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


def resample(
    candidates: np.ndarray,
    residuals: Callable[..., np.ndarray],
    count: int,
    k: float = 1.0,
    c: float = 1.0,
    seed: int | None = None,
) -> np.ndarray:
    """``count`` of the ``candidates`` (shape (dim, n)) drawn without replacement with probability
    proportional to ``|r|^k / mean(|r|^k) + c``: the residual-based adaptive distribution (RAD, Wu,
    Zhu, Tan, Kartha & Lu 2023), whose default is k = 1, c = 1. A larger ``c`` is closer to uniform;
    ``c = 0`` follows the residual alone. Returns shape (dim, count).

    Train on the points, resample, train again: the count stays the same while the points move to
    where the equation is least satisfied (a shock, a thin layer).
    """
    candidates = np.asarray(candidates)
    if candidates.ndim != 2:
        raise ValueError(f"resample: candidates must have shape (dim, n), got {candidates.shape}")
    n = candidates.shape[1]
    if not isinstance(count, int | np.integer) or not 0 < count <= n:
        raise ValueError(f"resample: count must be a whole number in 1..{n} (the candidates), got {count!r}")
    if not (np.isfinite(k) and k >= 0 and np.isfinite(c) and c >= 0):
        raise ValueError(f"resample: k and c must be finite and >= 0, got k={k!r}, c={c!r}")
    result = residuals(*candidates)  # one array per point, or a tuple of them (a system's components)
    parts = result if isinstance(result, tuple) else (result,)
    size = sum(np.abs(np.asarray(part, dtype=float)).reshape(n, -1).sum(axis=1) for part in parts)
    if not np.all(np.isfinite(size)):
        raise ValueError(
            f"resample: {int(np.sum(~np.isfinite(size)))} of {n} candidates have a non-finite residual"
        )
    density = size**k
    mean = density.mean()
    weights = (density / mean if mean > 0 else np.zeros(n)) + c
    if weights.sum() == 0:  # c = 0 and every residual 0: nothing to prefer
        weights = np.ones(n)
    rng = np.random.default_rng(seed)
    return candidates[:, rng.choice(n, count, replace=False, p=weights / weights.sum())]


def hard_constraint(net: Callable, boundary_value: Callable, distance: Callable) -> Callable:
    """``u = g + d * net``: ``g`` meets the conditions and ``d`` vanishes where they hold.

    With u written this way the boundary/initial terms drop out of the loss, e.g. for Burgers
    ``g = -sin(pi x)``, ``d = t (1 - x^2)``.
    """

    def u(*xs):
        return boundary_value(*xs) + distance(*xs) * net(*xs)

    return u
