"""Which share of the points ``solve``'s first-order stages train on before they train on all.

Where the terms hold many residual rows for the weights (more than ``ROWS_PER_WEIGHT`` a weight)
and one evaluation of every point is slow for the time given (fewer than ``EVALUATIONS`` fit),
Adam and L-BFGS first train on a random subset of each term's points, as many as that many
evaluations allow (never fewer than ``ROWS_PER_WEIGHT`` rows a weight; where that is over half of
them, every point), and L-BFGS ends on every point. DeepXDE's Klein-Gordon example (1,801
weights, 37,500 residual rows) in 30 s on a loaded 2-core machine: on every point, 160-240 L-BFGS
iterations, loss 0.11-0.24 and relative error 1.7-1.9 (5 runs); on a tenth of the points first,
375-2,500 iterations, loss 4e-4-0.1 and error 0.17-2.0 (18 runs, 8 under DeepXDE's 0.94).

Where a Levenberg-Marquardt step on every point is too slow but one on ``ROWS_PER_WEIGHT`` rows a
weight is not (``levenberg_marquardt_subset``), Adam and Levenberg-Marquardt train on that subset:
Gauss-Newton gains by its number of steps. The same Klein-Gordon example in 150 s on an idle VM:
L-BFGS on every point, relative error 4.8e-2-6.5e-2 (seeds 1, 0); Levenberg-Marquardt on a tenth
of the points, 239-241 steps, 4.0e-4 and 7.6e-5; on a fifth, 125 steps, 4.4e-2 (seed 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.pinn.lm_choice import sizes, use_levenberg_marquardt

EVALUATIONS = 2000  # evaluations of every point the first-order stages should have, at least
ROWS_PER_WEIGHT = 2  # the subset keeps at least this many residual rows per weight
SMALLEST_TERM = 32  # a term with this many points or fewer is kept whole
LARGEST_SHARE = 0.5  # a larger share saves under 2x an evaluation: every point is used


def subset_share(rows: int, weights: int, evaluations: float) -> float:
    """The share of the points to train on first (1.0: all of them), given the residual rows, the
    weights, and how many evaluations of every point fit in the time left."""
    if evaluations >= EVALUATIONS or rows <= ROWS_PER_WEIGHT * weights:
        return 1.0
    share = max(evaluations / EVALUATIONS, ROWS_PER_WEIGHT * weights / rows)
    return share if share <= LARGEST_SHARE else 1.0


def levenberg_marquardt_subset(
    losses: Sequence, params, remaining: float, min_steps: int, evaluation: float, largest: int
) -> tuple[float, list] | None:
    """The share of the residual rows and the terms cut to it (``subset_terms``) that Levenberg-Marquardt
    trains on where a step on every point does not fit ``min_steps`` times in ``remaining``: the
    fewest points that keep ``ROWS_PER_WEIGHT`` residual rows a weight, where a step on those fits
    (estimated as ``use_levenberg_marquardt`` does, ``evaluation`` being one evaluation of every
    point); None where it does not, or where that share is over ``LARGEST_SHARE``."""
    rows, size = sizes(losses, params)
    share = ROWS_PER_WEIGHT * size / max(rows, 1)
    if share > LARGEST_SHARE:
        return None
    cut = subset_terms(losses, share)
    share = sizes(cut, params)[0] / rows  # as taken: small terms are kept whole
    fits = use_levenberg_marquardt(cut, params, remaining, min_steps, evaluation * share, [], False, largest)
    return (share, cut) if fits else None


def point_count(points) -> int | None:
    """How many points a term's points hold, where they can be cut into a subset: a (dim, n)
    array, or one array per input of shape (n,) or (n, 1); None for anything else."""
    if isinstance(points, np.ndarray):
        return int(points.shape[1]) if points.ndim == 2 else None
    if not isinstance(points, Sequence) or not len(points):
        return None
    shapes = {np.shape(p) for p in points}
    if len(shapes) != 1:
        return None
    (shape,) = shapes
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
        return int(shape[0])
    return None


def taken(points, index: np.ndarray):
    """The points at ``index``, in the form given."""
    if isinstance(points, np.ndarray):
        return points[:, index]
    return (
        type(points)(np.asarray(p)[index] for p in points)
        if isinstance(points, tuple)
        else [np.asarray(p)[index] for p in points]
    )


def subset_terms(losses: Sequence, share: float, seed: int = 0) -> list:
    """``losses`` ((term, points) pairs) with each term's points cut to a random ``share`` of them
    (in their order; terms of ``SMALLEST_TERM`` points or fewer, or points of another form, kept
    whole)."""
    if not 0 < share <= 1:
        raise ValueError(f"subset_terms: share must be in (0, 1], got {share!r}")
    rng = np.random.default_rng(seed)
    cut = []
    for term, points in losses:
        n = point_count(points)
        if n is None or n <= SMALLEST_TERM or share == 1:
            cut.append((term, points))
            continue
        keep = max(SMALLEST_TERM, int(np.ceil(share * n)))
        cut.append((term, taken(points, np.sort(rng.choice(n, keep, replace=False)))))
    return cut


__all__ = [
    "EVALUATIONS",
    "LARGEST_SHARE",
    "ROWS_PER_WEIGHT",
    "SMALLEST_TERM",
    "levenberg_marquardt_subset",
    "point_count",
    "subset_share",
    "subset_terms",
    "taken",
]
