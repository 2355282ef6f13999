"""Constructive geometry: the union, difference and intersection of two geometries.

Any two geometries of one dimension that follow the protocol of :mod:`symgrad.pinn.geometry`
combine (a square with a disk cut out, an L-shape as two boxes, a polygon less a polygon), and
the result follows it too, so it combines again. Interior points are drawn by rejection from the
bounding box; boundary points are drawn from both operands' boundaries at one density and kept
where they bound the result; each keeps its own operand's outward normal (reversed on a hole).
"""

from __future__ import annotations

import numpy as np

from symgrad.pinn.geometry import check_count
from symgrad.pinn.polygon import rejection_sample

GEOMETRY_METHODS = (
    "dim",
    "interior",
    "boundary",
    "contains",
    "bounds",
    "boundary_measure",
    "boundary_distance",
)


class _Combined:
    """Two geometries and the rule that combines them; subclasses say which points are in, and
    which boundary points of each operand bound the result."""

    def __init__(self, a, b):
        for label, g in (("first", a), ("second", b)):
            missing = [m for m in GEOMETRY_METHODS if not hasattr(g, m)]
            if missing:
                raise TypeError(
                    f"{type(self).__name__}: the {label} operand ({type(g).__name__}) lacks {missing} of the "
                    "geometry protocol (symgrad.pinn.geometry)"
                )
        if a.dim != b.dim:
            raise ValueError(f"{type(self).__name__}: a {a.dim}-D and a {b.dim}-D geometry do not combine")
        self.a, self.b, self.dim = a, b, a.dim

    def contains(self, points: np.ndarray) -> np.ndarray:
        """Inside or on the boundary, a boolean per point."""
        raise NotImplementedError

    def _keeps(self, points: np.ndarray, of_a: bool) -> np.ndarray:
        """Which boundary points of operand a (or b) are on this geometry's boundary."""
        raise NotImplementedError

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        (la, ha), (lb, hb) = self.a.bounds(), self.b.bounds()
        return np.minimum(la, lb), np.maximum(ha, hb)

    def boundary_measure(self) -> float:
        """Both operands' boundaries together (the sampling weight; the boundary itself is part of it)."""
        return float(self.a.boundary_measure() + self.b.boundary_measure())

    def boundary_distance(self, points: np.ndarray) -> np.ndarray:
        return np.minimum(self.a.boundary_distance(points), self.b.boundary_distance(points))

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points inside, shape (dim, n)."""
        return rejection_sample(self, n, method, seed)

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points on the boundary at one density over it, shape (dim, n)."""
        check_count(n)
        share = self.a.boundary_measure() / self.boundary_measure()
        kept: list[np.ndarray] = []
        count, draw = 0, max(2 * n, 64)
        for round_ in range(16):
            base = None if seed is None else seed + 104729 * round_
            from_a = self.a.boundary(int(round(draw * share)), method, base)
            from_b = self.b.boundary(draw - from_a.shape[1], method, None if base is None else base + 1)
            for points, of_a in ((from_a, True), (from_b, False)):
                if points.shape[1]:
                    chosen = points[:, self._keeps(points, of_a)]
                    kept.append(chosen)
                    count += chosen.shape[1]
            if count >= n:
                # n of both operands' points, in random order: the first k of them are spread too
                order = np.random.default_rng(seed).permutation(count)[:n]
                return np.hstack(kept)[:, order]
            draw *= 2
        raise ValueError(f"{type(self).__name__}: its boundary is empty or of zero measure")

    def normals(self, points: np.ndarray) -> np.ndarray:
        """Outward unit normals at boundary points: the nearer operand's (reversed on a hole)."""
        points = np.asarray(points, float)
        on_a = self.a.boundary_distance(points) <= self.b.boundary_distance(points)
        normals = np.empty((self.dim, points.shape[1]))
        if on_a.any():
            normals[:, on_a] = self.a.normals(points[:, on_a])
        if (~on_a).any():
            normals[:, ~on_a] = self._b_sign() * self.b.normals(points[:, ~on_a])
        return normals

    def _b_sign(self) -> float:
        return 1.0


class Union(_Combined):
    """Points in either geometry."""

    def contains(self, points):
        return np.asarray(self.a.contains(points), bool) | np.asarray(self.b.contains(points), bool)

    def _keeps(self, points, of_a):
        other = self.b if of_a else self.a
        return ~np.asarray(other.contains(points), bool) | (other.boundary_distance(points) <= 1e-12)


class Difference(_Combined):
    """Points in the first geometry and not in the second (a hole, a notch)."""

    def contains(self, points):
        outside_b = ~np.asarray(self.b.contains(points), bool) | (self.b.boundary_distance(points) <= 1e-12)
        return np.asarray(self.a.contains(points), bool) & outside_b

    def bounds(self):
        return self.a.bounds()

    def _keeps(self, points, of_a):
        if of_a:
            return ~np.asarray(self.b.contains(points), bool) | (self.b.boundary_distance(points) <= 1e-12)
        return np.asarray(self.a.contains(points), bool)

    def _b_sign(self) -> float:
        return -1.0


class Intersection(_Combined):
    """Points in both geometries."""

    def contains(self, points):
        return np.asarray(self.a.contains(points), bool) & np.asarray(self.b.contains(points), bool)

    def bounds(self):
        (la, ha), (lb, hb) = self.a.bounds(), self.b.bounds()
        return np.maximum(la, lb), np.minimum(ha, hb)

    def _keeps(self, points, of_a):
        return np.asarray((self.b if of_a else self.a).contains(points), bool)


__all__ = ["Difference", "Intersection", "Union"]
