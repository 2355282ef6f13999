"""Residual-based adaptive points (refinement, resampling) and hard constraints by output transforms."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _candidates(candidates, what: str) -> np.ndarray:
    candidates = np.asarray(candidates)
    if candidates.ndim != 2 or candidates.shape[1] == 0 or candidates.dtype.kind not in "fiu":
        raise ValueError(
            f"{what}: candidates must have shape (dim, n), n >= 1, of numbers; got shape "
            f"{candidates.shape} of {candidates.dtype}"
        )
    return candidates


def _count(count, largest: int, what: str, smallest: int) -> int:
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or not smallest <= count <= largest:
        raise ValueError(
            f"{what}: count must be a whole number in {smallest}..{largest} (the candidates), got {count!r}"
        )
    return int(count)


def residual_sizes(candidates: np.ndarray, residuals: Callable[..., np.ndarray], what: str) -> np.ndarray:
    """|r| at each candidate (summed over a system's components and a vector's entries): one finite
    value per candidate, or a ValueError that says what came back."""
    n = candidates.shape[1]
    result = residuals(*candidates)  # one array per point, or a tuple of them (a system's components)
    parts = result if isinstance(result, tuple) else (result,)
    size = np.zeros(n)
    for k, part in enumerate(parts):
        values = np.abs(np.asarray(part, dtype=float))
        if values.ndim == 0 or values.shape[0] != n:
            label = f"component {k} of the residual" if len(parts) > 1 else "the residual"
            raise ValueError(
                f"{what}: {label} gave shape {values.shape} for {n} candidates; it must give one value "
                "(or one row) per candidate"
            )
        size += values.reshape(n, -1).sum(axis=1)
    if not np.all(np.isfinite(size)):
        raise ValueError(
            f"{what}: {int(np.sum(~np.isfinite(size)))} of {n} candidates have a non-finite residual"
        )
    return size


def refine(
    points: np.ndarray, candidates: np.ndarray, residuals: Callable[..., np.ndarray], count: int
) -> np.ndarray:
    """``points`` plus the ``count`` candidates where |residual| is largest (RAR, Lu et al. 2021).

    ``points`` and ``candidates`` have shape (dim, n); ``residuals(*candidates)`` gives one value per
    candidate (``ResidualLoss.residuals``; a system's components are added in absolute value).
    """
    points, candidates = np.asarray(points), _candidates(candidates, "refine")
    if points.ndim != 2 or candidates.shape[0] != points.shape[0]:
        raise ValueError(f"refine: candidates {candidates.shape} must be (dim, n) like points {points.shape}")
    count = _count(count, candidates.shape[1], "refine", 0)
    size = residual_sizes(candidates, residuals, "refine")
    worst = np.argsort(size, kind="stable")[::-1][:count]
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
    candidates = _candidates(candidates, "resample")
    n = candidates.shape[1]
    count = _count(count, n, "resample", 1)
    for label, value in (("k", k), ("c", c)):
        if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
            raise ValueError(f"resample: {label} must be a finite number >= 0, got {value!r}")
    if not (np.isfinite(k) and k >= 0 and np.isfinite(c) and c >= 0):
        raise ValueError(f"resample: k and c must be finite and >= 0, got k={k!r}, c={c!r}")
    density = residual_sizes(candidates, residuals, "resample") ** k
    mean = density.mean()
    weights = (density / mean if mean > 0 else np.zeros(n)) + c
    if weights.sum() == 0:  # c = 0 and every residual 0: nothing to prefer
        weights = np.ones(n)
    rng = np.random.default_rng(seed)
    return candidates[:, rng.choice(n, count, replace=False, p=weights / weights.sum())]


def hard_constraint(net: Callable, boundary_value: Callable | float, distance: Callable) -> Callable:
    """``u = g + d * net``: ``g`` meets the conditions and ``d`` vanishes where they hold.

    With u written this way the boundary/initial terms drop out of the loss, e.g. for Burgers
    ``g = -sin(pi x)``, ``d = t (1 - x^2)``. ``g`` may be a number (a constant boundary value).
    """
    for label, fn in (("net", net), ("distance", distance)):
        if not callable(fn):
            raise TypeError(f"hard_constraint: {label} must be a function of the inputs, got {fn!r}")
    if not callable(boundary_value):
        if isinstance(boundary_value, bool) or not isinstance(boundary_value, int | float | np.number):
            raise TypeError(
                "hard_constraint: boundary_value must be a function of the inputs or a number, "
                f"got {boundary_value!r}"
            )
    g = boundary_value if callable(boundary_value) else _constant(float(boundary_value))

    def u(*xs):
        return g(*xs) + distance(*xs) * net(*xs)

    return u


def _constant(value: float) -> Callable:
    return lambda *xs: value
