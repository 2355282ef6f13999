"""New collocation points for ``solve`` once its optimizer has converged on the fixed ones.

Where Levenberg-Marquardt or L-BFGS stop lowering the loss before the time is up, the loss has
converged at the fixed points (DeepXDE's 1-D Poisson: 16 points, converged at 3 s of 17). ``solve``
then draws new points for the terms it can resample, as many as before (as DeepXDE's
``PDEPointResampler`` does), and goes on. It can resample a term of one input whose points are
spread over an interval (at least ``SPREAD`` distinct values, given as a (1, n) array or one array
of shape (n,) or (n, 1)): the points at both ends are kept (a boundary point of the interval), the
others drawn uniformly between them. Terms of several inputs (their domain is not known from the
points), of fewer distinct points (boundary and initial conditions) or of other forms are kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.pinn.point_subsets import point_count
from symgrad.pinn.time_windows import input_names, input_values

SPREAD = 8  # a term of one input with at least this many distinct points is a collocation set


def _values(points) -> np.ndarray:
    """The values of a term's one input."""
    values = input_values(points, 0)
    if values is None:
        raise ValueError("resampling: a term to resample has no input values")
    return values


def resampleable(losses: Sequence) -> list[int]:
    """The indices of the terms whose points ``resampled`` can redraw."""
    found = []
    for i, (term, points) in enumerate(losses):
        if len(input_names(term)) != 1 or point_count(points) is None:
            continue
        if isinstance(points, np.ndarray) and points.shape[0] != 1:
            continue
        if not isinstance(points, np.ndarray) and len(points) != 1:
            continue
        values = _values(points)
        if np.isfinite(values).all() and np.unique(values).size >= SPREAD:
            found.append(i)
    return found


def resampled(losses: Sequence, indices: Sequence[int], rng: np.random.Generator, add: int = 0) -> list:
    """``losses`` with the points of the terms at ``indices`` redrawn: as many points, the two ends
    kept, the others uniform between them, sorted, in the form given; with ``add`` > 0, the points
    kept and ``add`` new ones added."""
    out = list(losses)
    for i in indices:
        term, points = out[i]
        values = _values(points)
        low, high = float(values.min()), float(values.max())
        if add:
            new = np.sort(np.concatenate([values, rng.uniform(low, high, add)]))
        else:
            new = np.sort(np.concatenate([[low, high], rng.uniform(low, high, values.size - 2)]))
        new = new.astype(values.dtype)
        if isinstance(points, np.ndarray):
            out[i] = (term, new[None, :])
        else:
            shaped = new.reshape((-1, 1) if np.ndim(points[0]) == 2 else (-1,))
            out[i] = (term, type(points)([shaped]) if isinstance(points, tuple | list) else [shaped])
    return out


__all__ = ["SPREAD", "resampleable", "resampled"]
