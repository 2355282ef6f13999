"""Time windows: ``solve``'s L-BFGS trains a time-dependent problem on growing spans of time first.

A PINN trained on every time at once can settle in a solution that fits late times before early
ones and so does not follow from the initial condition (Wang, Sankaran & Perdikaris 2022). Where a
term has an input named ``t`` whose points span an interval, ``solve`` marches instead: L-BFGS on
the points with t <= t0 + k (t1 - t0) / ``WINDOWS`` for k = 1, 2, ..., each window starting from the
weights the one before left, then on every point. Terms without ``t`` (or whose points are all at
one time, an initial condition) are in every window.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.pinn.alignment import wrapped_term
from symgrad.pinn.point_subsets import point_count, taken

TIME = "t"  # the input name that marks time (conditions name it so on SpaceTime and TimeDomain)
WINDOWS = 8  # growing windows before the whole span


def input_names(term) -> list[str]:
    """A term's input names (``ResidualLoss.names``), through the wrappers solve and the user may
    put around it (a weighted or causal term); [] where it has none."""
    found = wrapped_term(term, lambda t: isinstance(getattr(t, "names", None), list | tuple))
    return [] if found is None else [str(n) for n in found.names]


def input_values(points, row: int) -> np.ndarray | None:
    """Input ``row`` of each point, as floats ((dim, n) array, or one array per input); None where
    the points have no such input."""
    if row >= (points.shape[0] if isinstance(points, np.ndarray) else len(points)):
        return None
    return np.ravel(np.asarray(points[row], float))


def times(term, points) -> np.ndarray | None:
    """The time of each of a term's points (its input named ``t``), or None where it has no such
    input or its points are of a form that cannot be cut (``point_subsets.point_count``)."""
    names = input_names(term)
    if TIME not in names or point_count(points) is None:
        return None
    return input_values(points, names.index(TIME))


def time_span(losses: Sequence) -> tuple[float, float] | None:
    """The interval of time the terms' points span, where some term's points span more than one
    time; None for a problem without time (or where every term sits at one time)."""
    spans = [
        (float(t.min()), float(t.max()))
        for t in (times(*pair) for pair in losses)
        if t is not None and t.size
    ]
    if not spans or not any(high > low for low, high in spans):
        return None
    return min(low for low, _ in spans), max(high for _, high in spans)


def windowed(losses: Sequence, end: float) -> list:
    """``losses`` with each term's points cut to those at times up to ``end`` (terms without time
    whole; a term with no point there is left out)."""
    cut = []
    for term, points in losses:
        t = times(term, points)
        if t is None:
            cut.append((term, points))
            continue
        keep = np.flatnonzero(t <= end)
        if keep.size == t.size:
            cut.append((term, points))
        elif keep.size:
            cut.append((term, taken(points, keep)))
    return cut


def window_ends(span: tuple[float, float], windows: int | None = None) -> list[float]:
    """The ends of the growing windows before the whole span (``windows - 1`` of them; default
    ``WINDOWS``)."""
    low, high = span
    windows = WINDOWS if windows is None else windows
    return [low + k * (high - low) / windows for k in range(1, windows)]


__all__ = ["TIME", "WINDOWS", "input_names", "input_values", "time_span", "times", "window_ends", "windowed"]
