"""Boundary points lie on the boundary at one density over it, for every geometry and every sampling
method: each part (a face, an edge, a quarter of a circle, the outer wall or a hole) gets its share
of the length, and its points spread along it (a sampler whose order lines up with another's, or
that favours one part, trains the network on half a boundary)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from symgrad.pinn import Difference, Disk, Polygon, Rectangle
from symgrad.pinn.geometry import METHODS

Part = tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray], float]
"""(which points are on the part, their position along it in [0, 1], the part's length)."""


def segment(a, b) -> Part:
    a, b = np.asarray(a, float), np.asarray(b, float)
    direction, length = b - a, float(np.linalg.norm(b - a))

    def along(p: np.ndarray) -> np.ndarray:
        return (p.T - a) @ direction / length**2

    def on(p: np.ndarray) -> np.ndarray:
        s = along(p)
        rel = p.T - a
        off = np.abs(rel[:, 0] * direction[1] - rel[:, 1] * direction[0]) / length
        return (off < 1e-9) & (s > -1e-9) & (s < 1 + 1e-9)

    return on, along, length


def arc(centre, radius: float, start: float) -> Part:
    """A quarter of the circle from angle ``start``."""
    centre = np.asarray(centre, float)

    def along(p: np.ndarray) -> np.ndarray:
        angle = np.arctan2(p[1] - centre[1], p[0] - centre[0])
        return np.mod(angle - start, 2 * math.pi) / (math.pi / 2)

    def on(p: np.ndarray) -> np.ndarray:
        radial = np.abs(np.linalg.norm(p.T - centre, axis=1) - radius) < 1e-9
        return radial & (along(p) < 1)

    return on, along, math.pi / 2 * radius


def polygon_parts(vertices) -> list[Part]:
    return [segment(vertices[k], vertices[(k + 1) % len(vertices)]) for k in range(len(vertices))]


SQUARE = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
L_SHAPE = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
GEOMETRIES: dict[str, tuple[Callable, list[Part]]] = {
    "rectangle": (lambda: Rectangle((0, 0), (2, 1)), polygon_parts([(0, 0), (2, 0), (2, 1), (0, 1)])),
    "L-shape": (lambda: Polygon(L_SHAPE), polygon_parts(L_SHAPE)),
    "disk": (lambda: Disk((1, -1), 2), [arc((1, -1), 2, k * math.pi / 2) for k in range(4)]),
    "square with a hole": (
        lambda: Difference(Rectangle((-1, -1), (1, 1)), Disk((0, 0), 0.5)),
        polygon_parts(SQUARE) + [arc((0, 0), 0.5, k * math.pi / 2) for k in range(4)],
    ),
}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", GEOMETRIES)
def test_each_part_of_the_boundary_gets_its_share_spread_along_it(name, method):
    make, parts = GEOMETRIES[name]
    n = 4000
    points = make().boundary(n, method, 2)
    total = sum(length for *_, length in parts)
    seen = np.zeros(n, bool)
    for k, (on, along, length) in enumerate(parts):
        mask = on(points) & ~seen  # a corner counts once
        seen |= mask
        share = mask.mean()
        assert abs(share - length / total) < 0.02, (
            f"{name}, {method}: part {k} holds {share:.3f} of the points, its length {length / total:.3f}"
        )
        position = along(points[:, mask])
        assert abs(position.mean() - 0.5) < 0.06 and 0.38 < np.mean(position < 0.5) < 0.62, (
            f"{name}, {method}: part {k}'s points average {position.mean():.2f} along it"
        )
    assert seen.all(), f"{name}, {method}: {np.sum(~seen)} points off the boundary"
