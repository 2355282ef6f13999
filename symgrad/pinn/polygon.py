"""Polygons in the plane (an L-shape, a triangle, any simple polygon), with samplers and normals.

Interior points are drawn by rejection from the bounding box (the box's points come from the same
samplers, so ``"sobol"`` stays low-discrepancy apart from the rejected ones); boundary points are
spread by arc length over the edges, and each boundary point's outward normal is its edge's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.pinn.geometry import _on_boundary_rows, check_count, finite_numbers, unit_cube


def _segments_cross(p: np.ndarray, q: np.ndarray, r: np.ndarray, s: np.ndarray) -> bool:
    """Whether the open segments pq and rs cross (proper intersection)."""

    def side(a, b, c) -> float:
        return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


class Polygon:
    """The simple polygon with ``vertices`` ((k, 2), k >= 3, in either orientation; the last vertex
    joins the first). Edges may not cross one another."""

    dim = 2

    def __init__(self, vertices: Sequence[Sequence[float]]):
        finite_numbers("Polygon", vertices=vertices)
        v = np.asarray(vertices, float)
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
            raise ValueError(f"Polygon: vertices must be (k, 2) with k >= 3, got shape {v.shape}")
        edges = np.roll(v, -1, axis=0) - v
        twice_area = float(
            np.sum(v[:, 0] * np.roll(v, -1, axis=0)[:, 1] - np.roll(v, -1, axis=0)[:, 0] * v[:, 1])
        )
        k = len(v)
        for i in range(k):
            for j in range(i + 2, k - (1 if i == 0 else 0)):
                if _segments_cross(v[i], v[(i + 1) % k], v[j], v[(j + 1) % k]):
                    raise ValueError(f"Polygon: edges {i} and {j} cross; the polygon must be simple")
        if abs(twice_area) <= 1e-14 * max(1.0, float(np.abs(v).max()) ** 2) or np.any(
            np.linalg.norm(edges, axis=1) == 0
        ):
            raise ValueError("Polygon: the vertices enclose no area (repeated or collinear vertices)")
        self.vertices = v if twice_area > 0 else v[::-1].copy()  # counter-clockwise
        self.edges = np.roll(self.vertices, -1, axis=0) - self.vertices
        self.lengths = np.linalg.norm(self.edges, axis=1)
        self.area = abs(twice_area) / 2

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vertices.min(axis=0), self.vertices.max(axis=0)

    def boundary_measure(self) -> float:
        return float(self.lengths.sum())

    def contains(self, points: np.ndarray) -> np.ndarray:
        """Inside or on the boundary (even-odd rule, with a 1e-12 band around the edges)."""
        x, y = _on_boundary_rows(points, 2, "Polygon.contains")
        a, b = self.vertices, np.roll(self.vertices, -1, axis=0)
        inside = np.zeros(x.shape, bool)
        for (x0, y0), (x1, y1) in zip(a, b):
            straddles = (y0 > y) != (y1 > y)
            with np.errstate(divide="ignore", invalid="ignore"):
                crossing = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            inside ^= straddles & (x < crossing)
        return inside | (self.boundary_distance(np.vstack([x, y])) <= 1e-12)

    def boundary_distance(self, points: np.ndarray) -> np.ndarray:
        return self._nearest_edge(points)[1]

    def _nearest_edge(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each point's nearest edge and its distance to it."""
        p = _on_boundary_rows(points, 2, "Polygon.boundary_distance").T  # (n, 2)
        offset = p[:, None, :] - self.vertices[None, :, :]  # (n, k, 2)
        along = np.clip((offset * self.edges).sum(-1) / self.lengths**2, 0.0, 1.0)
        gaps = np.linalg.norm(offset - along[..., None] * self.edges, axis=-1)  # (n, k)
        nearest = np.argmin(gaps, axis=1)
        return nearest, gaps[np.arange(len(p)), nearest]

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points inside, shape (2, n)."""
        return rejection_sample(self, n, method, seed)

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        """``n`` points on the edges, spread by arc length, shape (2, n)."""
        s = unit_cube(n, 1, method, seed)[:, 0] * self.lengths.sum()
        ends = np.cumsum(self.lengths)
        edge = np.minimum(np.searchsorted(ends, s, side="right"), len(ends) - 1)
        fraction = (s - (ends[edge] - self.lengths[edge])) / self.lengths[edge]
        return (self.vertices[edge] + fraction[:, None] * self.edges[edge]).T

    def normals(self, points: np.ndarray) -> np.ndarray:
        """Outward unit normals at boundary points (the nearest edge's), shape (2, n)."""
        edge, _ = self._nearest_edge(points)
        tangent = self.edges[edge] / self.lengths[edge, None]
        return np.stack([tangent[:, 1], -tangent[:, 0]])  # counter-clockwise: outward is to the right


def Triangle(a: Sequence[float], b: Sequence[float], c: Sequence[float]) -> Polygon:  # noqa: N802
    """The triangle with corners ``a``, ``b``, ``c``."""
    return Polygon([a, b, c])


def rejection_sample(geometry, n: int, method: str, seed: int | None) -> np.ndarray:
    """``n`` points of ``geometry``'s interior, drawn from its bounding box and kept where
    ``contains`` is true, in rounds of growing size; (dim, n)."""
    check_count(n)
    lows, highs = (np.asarray(b, float) for b in geometry.bounds())
    kept: list[np.ndarray] = []
    count, draw = 0, max(2 * n, 64)
    for round_ in range(16):
        box = lows + unit_cube(draw, geometry.dim, method, None if seed is None else seed + 7919 * round_) * (
            highs - lows
        )
        inside = box[np.asarray(geometry.contains(box.T), bool)]
        kept.append(inside)
        count += len(inside)
        if count >= n:
            return np.concatenate(kept)[:n].T
        draw *= 2
    raise ValueError(
        f"{type(geometry).__name__}: {count} of the points drawn from its bounding box fell inside; is it "
        "empty or of zero area?"
    )


__all__ = ["Polygon", "Triangle", "rejection_sample"]
