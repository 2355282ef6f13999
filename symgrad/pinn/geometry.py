"""Domains and collocation points: intervals, boxes, balls and disks, space x time, time alone.

Points come as arrays of shape (dim, n), one row per coordinate, so ``loss(*points)`` passes
one array per input name. Samplers: ``"uniform"`` (NumPy), and ``"lhs"``, ``"sobol"``,
``"halton"`` from ``scipy.stats.qmc`` (SciPy is an optional extra: its quasi-random
generators are well kept, so symgrad does not write its own).

A geometry is any object with this protocol (polygons and constructive geometry in
:mod:`symgrad.pinn.polygon` and :mod:`symgrad.pinn.csg` follow it; so may yours):

- ``dim``: the number of coordinates;
- ``interior(n, method="uniform", seed=0)`` and ``boundary(n, method, seed)``: (dim, n) points;
- ``contains(points)``: a boolean per point of a (dim, n) array (the boundary included);
- ``normals(points)``: outward unit normals at boundary points, (dim, n) (Neumann and Robin terms);
- ``bounds()``: (lows, highs) of a box holding it; ``boundary_measure()``: the boundary's length
  or area; ``boundary_distance(points)``: each point's distance to the boundary (constructive
  geometry samples, and picks normals, with these three).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

METHODS = ("uniform", "lhs", "sobol", "halton")


def finite_numbers(where: str, **values) -> None:
    """Raise a ValueError naming each argument that is not a finite number (or array of them)."""
    for name, value in values.items():
        array = np.asarray(value, dtype=object)
        ok = array.size > 0 and all(
            isinstance(v, int | float | np.integer | np.floating)
            and not isinstance(v, bool)
            and math.isfinite(v)
            for v in array.ravel()
        )
        if not ok:
            raise ValueError(f"{where}: {name} must be finite (a number, or numbers), got {value!r}")


def check_count(n) -> None:
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 0:
        raise ValueError(f"point count must be a whole number >= 0, got {n!r}")


def unit_cube(n: int, dim: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
    """``n`` points in [0, 1)^dim, shape (n, dim)."""
    check_count(n)
    if dim < 1:
        raise ValueError(f"unit_cube: need dim >= 1, got dim={dim}")
    if method == "uniform":
        return np.random.default_rng(seed).uniform(0, 1, (n, dim))
    if method not in METHODS:
        raise ValueError(f"unknown sampling method {method!r}; supported: {', '.join(METHODS)}")
    try:
        from scipy.stats import qmc
    except ImportError:
        raise ImportError(f"sampling method {method!r} uses scipy.stats.qmc: pip install scipy") from None
    if method == "lhs":
        return qmc.LatinHypercube(d=dim, seed=seed).random(n)
    if method == "sobol":
        # Sobol' points are balanced in blocks of 2^m: take the first n of the next power of two
        m = max(0, math.ceil(math.log2(max(n, 1))))
        return qmc.Sobol(d=dim, scramble=True, seed=seed).random_base2(m)[:n]
    return qmc.Halton(d=dim, scramble=True, seed=seed).random(n)


class Box:
    """The box ``[lows[i], highs[i]]`` in any dimension (an interval, a rectangle, ...)."""

    def __init__(self, lows: Sequence[float], highs: Sequence[float]):
        finite_numbers("Box", lows=lows, highs=highs)
        self.lows, self.highs = np.asarray(lows, float), np.asarray(highs, float)
        if self.lows.shape != self.highs.shape or self.lows.ndim != 1 or np.any(self.lows >= self.highs):
            raise ValueError(f"Box: need lows < highs of one length, got {lows} and {highs}")
        self.dim = len(self.lows)

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points inside, shape (dim, n)."""
        return (self.lows + unit_cube(n, self.dim, method, seed) * (self.highs - self.lows)).T

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points on the faces, each face getting points in proportion to its area, shape (dim, n)."""
        check_count(n)
        if self.dim == 1:
            return np.resize([self.lows[0], self.highs[0]], n)[None, :]
        extent = self.highs - self.lows
        areas = np.array([np.prod(np.delete(extent, i)) for i in range(self.dim)] * 2)
        rng = np.random.default_rng(seed)
        face = rng.choice(2 * self.dim, n, p=areas / areas.sum())
        points = self.interior(n, method, seed).T
        axis, side = face % self.dim, face // self.dim
        points[np.arange(n), axis] = np.where(side == 0, self.lows[axis], self.highs[axis])
        return points.T

    def contains(self, points: np.ndarray) -> np.ndarray:
        p = np.asarray(points).T
        return np.all((p >= self.lows - 1e-12) & (p <= self.highs + 1e-12), axis=-1)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.lows, self.highs

    def boundary_measure(self) -> float:
        """The faces' total area (2 for an interval's two end points, counted as 1 each)."""
        extent = self.highs - self.lows
        return float(2 * sum(np.prod(np.delete(extent, i)) for i in range(self.dim)))

    def boundary_distance(self, points: np.ndarray) -> np.ndarray:
        p = _on_boundary_rows(points, self.dim, "Box.boundary_distance")
        gaps = np.concatenate([p - self.lows[:, None], self.highs[:, None] - p])
        inside = np.abs(gaps).min(axis=0)
        outside = np.linalg.norm(np.maximum(0, -gaps.reshape(2, self.dim, -1)).max(axis=0), axis=0)
        return np.where(np.all(gaps >= 0, axis=0), inside, outside)

    def normals(self, points: np.ndarray) -> np.ndarray:
        """Outward unit normals at boundary ``points`` (dim, n), shape (dim, n); at an edge or a corner,
        the normal of the face the point is nearest to (the first such axis on a tie)."""
        p = _on_boundary_rows(points, self.dim, "Box.normals")
        gaps = np.concatenate([p - self.lows[:, None], self.highs[:, None] - p])  # (2 dim, n)
        face = np.argmin(np.abs(gaps), axis=0)
        normals = np.zeros_like(p)
        normals[face % self.dim, np.arange(p.shape[1])] = np.where(face < self.dim, -1.0, 1.0)
        return normals

    def face(self, axis: int, side: str) -> Callable[..., np.ndarray]:
        """A predicate on coordinates, true on the face ``axis`` at ``side`` ("low" or "high"), for ``on=``."""
        if not 0 <= axis < self.dim or side not in ("low", "high"):
            raise ValueError(
                f"Box.face: axis must be in 0..{self.dim - 1} and side 'low' or 'high', got {axis}, {side!r}"
            )
        value = self.lows[axis] if side == "low" else self.highs[axis]
        scale = 1e-9 * max(1.0, abs(value))
        return lambda *xs: np.abs(np.asarray(xs[axis]) - value) <= scale


def Interval(lo: float, hi: float) -> Box:  # noqa: N802 - reads like the class it returns
    """The interval [lo, hi]."""
    return Box([lo], [hi])


def Rectangle(lows: Sequence[float], highs: Sequence[float]) -> Box:  # noqa: N802
    """The rectangle [x0, x1] x [y0, y1], given as (x0, y0) and (x1, y1)."""
    if len(lows) != 2 or len(highs) != 2:
        raise ValueError(f"Rectangle: corners need 2 coordinates, got {lows} and {highs}")
    return Box(lows, highs)


class Ball:
    """The closed ball of ``radius`` around ``center`` in ``len(center)`` >= 2 dimensions (the
    5-ball of a high-dimensional heat equation, a sphere in 3-D); :class:`Disk` is the plane's.
    Directions come from the inverse normal CDF of the sampler's points, so ``"halton"`` and
    ``"sobol"`` keep their spread; radii are ``radius * u^(1/dim)`` (uniform in volume)."""

    def __init__(self, center: Sequence[float], radius: float):
        where = type(self).__name__
        finite_numbers(where, center=center, radius=radius)
        self.center, self.radius = np.asarray(center, float), float(radius)
        if self.center.ndim != 1 or self.center.size < 2 or self.radius <= 0:
            raise ValueError(
                f"{where}: need a center of 2 or more coordinates (Interval for 1-D) and a positive radius, "
                f"got center {center}, radius {radius}"
            )
        self.dim = self.center.size

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points inside (uniform in volume), shape (dim, n)."""
        cube = unit_cube(n, self.dim + 1, method, seed)
        r = self.radius * cube[:, -1] ** (1 / self.dim)
        return (self.center + r[:, None] * _directions(cube[:, :-1])).T

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points on the sphere (uniform in area), shape (dim, n)."""
        return (self.center + self.radius * _directions(unit_cube(n, self.dim, method, seed))).T

    def contains(self, points: np.ndarray) -> np.ndarray:
        return np.linalg.norm(np.asarray(points).T - self.center, axis=-1) <= self.radius + 1e-12

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.center - self.radius, self.center + self.radius

    def boundary_measure(self) -> float:
        """The sphere's area: 2 pi^(d/2) / Gamma(d/2) radius^(d-1) (the circumference in 2-D)."""
        d = self.dim
        return 2 * math.pi ** (d / 2) / math.gamma(d / 2) * self.radius ** (d - 1)

    def boundary_distance(self, points: np.ndarray) -> np.ndarray:
        where = f"{type(self).__name__}.boundary_distance"
        offset = _on_boundary_rows(points, self.dim, where) - self.center[:, None]
        return np.abs(np.linalg.norm(offset, axis=0) - self.radius)

    def normals(self, points: np.ndarray) -> np.ndarray:
        """Outward unit normals at points on the sphere, shape (dim, n)."""
        offset = _on_boundary_rows(points, self.dim, f"{type(self).__name__}.normals") - self.center[:, None]
        return offset / np.linalg.norm(offset, axis=0)


def _directions(cube: np.ndarray) -> np.ndarray:
    """Unit vectors, (n, d), from points of [0, 1)^d: normal deviates by the inverse CDF (SciPy's
    ``ndtri`` where installed, else the standard library's ``NormalDist``), then normalised."""
    u = np.clip(cube, 1e-12, 1 - 1e-12)
    try:
        from scipy.special import ndtri
    except ImportError:
        from statistics import NormalDist

        ndtri = np.vectorize(NormalDist().inv_cdf, otypes=[float])
    g = ndtri(u)
    return g / np.linalg.norm(g, axis=1, keepdims=True)


class Disk(Ball):
    """The disk of ``radius`` around ``center`` in the plane: a 2-D :class:`Ball` whose samplers
    go by angle (a low-discrepancy angle spreads points evenly round the circle)."""

    def __init__(self, center: Sequence[float], radius: float):
        finite_numbers("Disk", center=center, radius=radius)
        if np.asarray(center, float).shape != (2,) or float(radius) <= 0:
            raise ValueError(f"Disk: need a 2-D center and a positive radius, got {center}, {radius}")
        super().__init__(center, radius)

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points inside (area-uniform: radius sqrt(u)), shape (2, n)."""
        u = unit_cube(n, 2, method, seed)
        r, angle = self.radius * np.sqrt(u[:, 0]), 2 * np.pi * u[:, 1]
        return (self.center + np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1)).T

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points on the circle, shape (2, n)."""
        angle = 2 * np.pi * unit_cube(n, 1, method, seed)[:, 0]
        return (self.center + self.radius * np.stack([np.cos(angle), np.sin(angle)], axis=1)).T


class TimeDomain(Box):
    """The time interval [t0, t1] of an ODE: a 1-D domain whose coordinate is ``t`` and whose
    ``initial`` points sit at t0 (for :func:`symgrad.pinn.initial`)."""

    def __init__(self, t0: float, t1: float):
        super().__init__([t0], [t1])
        self.t0, self.t1 = float(t0), float(t1)

    def initial(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` copies of t0, shape (1, n) (an initial condition holds at one time)."""
        check_count(n)
        return np.full((1, n), self.t0)


class SpaceTime:
    """``space`` x [t0, t1]: the time coordinate is the last row of every point array."""

    def __init__(self, space, t0: float, t1: float):
        finite_numbers("SpaceTime", t0=t0, t1=t1)
        if not t0 < t1:
            raise ValueError(f"SpaceTime: need t0 < t1, got {t0}, {t1}")
        self.space, self.t0, self.t1 = space, float(t0), float(t1)
        self.dim = space.dim + 1

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points in space x time (jointly sampled), shape (dim + 1, n)."""
        box = Box([*np.zeros(self.space.dim), self.t0], [*np.ones(self.space.dim), self.t1])
        joint = box.interior(n, method, seed)
        if isinstance(self.space, Box):
            return np.vstack(
                [
                    self.space.lows[:, None] + joint[:-1] * (self.space.highs - self.space.lows)[:, None],
                    joint[-1:],
                ]
            )
        return np.vstack([self.space.interior(n, method, seed), joint[-1:]])

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points on the spatial boundary at times in [t0, t1], shape (dim + 1, n)."""
        t = self.t0 + (self.t1 - self.t0) * unit_cube(n, 1, method, None if seed is None else seed + 1)[:, 0]
        # in an order of its own: a low-discrepancy t in its sequence's order follows the space
        # sampler's order (an interval's ends alternate, as do the first van der Corput points
        # between [0, 1/2) and [1/2, 1): with Halton, x = 0 got only t < 1/2 and x = 1 only t >= 1/2)
        t = t[np.random.default_rng(seed).permutation(n)]
        return np.vstack([self.space.boundary(n, method, seed), t[None, :]])

    def initial(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points in space at t = t0, shape (dim + 1, n)."""
        return np.vstack([self.space.interior(n, method, seed), np.full((1, n), self.t0)])

    def normals(self, points: np.ndarray) -> np.ndarray:
        """Outward normals on the spatial boundary, shape (dim + 1, n): the space's, and 0 along time."""
        p = _on_boundary_rows(points, self.dim, "SpaceTime.normals")
        if not hasattr(self.space, "normals"):
            raise TypeError(
                f"SpaceTime.normals: the space {type(self.space).__name__} gives no outward normals"
            )
        return np.vstack([self.space.normals(p[:-1]), np.zeros((1, p.shape[1]))])


def _on_boundary_rows(points, dim: int, where: str) -> np.ndarray:
    p = np.asarray(points, float)
    if p.ndim == 1 and dim == 1:
        p = p[None, :]
    if p.ndim != 2 or p.shape[0] != dim:
        raise ValueError(f"{where}: points must be ({dim}, n), one row per coordinate, got shape {p.shape}")
    return p


__all__ = ["METHODS", "Ball", "Box", "Disk", "Interval", "Rectangle", "SpaceTime", "TimeDomain", "unit_cube"]
