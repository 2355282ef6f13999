"""Boundary points lie on the boundary at one density over it, for every geometry and every sampling
method: each part (a face, an edge, a quarter of a circle, the outer wall or a hole) gets its share
of the length, and its points spread along it (a sampler whose order lines up with another's, or
that favours one part, trains the network on half a boundary). The same holds for the first points
of a draw, and for a condition's points on part of the boundary (``on=``): PINNacle's Poisson 2d-C
took a condition's first points of a square less four disks listed piece by piece, and one disk got
none (its L2RE 0.48 where the network fitted every disk: 0.03-0.05)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from symgrad.pinn import Difference, Disk, Polygon, Rectangle, dirichlet
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
HOLES = [(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)]
GEOMETRIES: dict[str, tuple[Callable, list[Part]]] = {
    "rectangle": (lambda: Rectangle((0, 0), (2, 1)), polygon_parts([(0, 0), (2, 0), (2, 1), (0, 1)])),
    "L-shape": (lambda: Polygon(L_SHAPE), polygon_parts(L_SHAPE)),
    "disk": (lambda: Disk((1, -1), 2), [arc((1, -1), 2, k * math.pi / 2) for k in range(4)]),
    "square with a hole": (
        lambda: Difference(Rectangle((-1, -1), (1, 1)), Disk((0, 0), 0.5)),
        polygon_parts(SQUARE) + [arc((0, 0), 0.5, k * math.pi / 2) for k in range(4)],
    ),
    "square with four holes": (
        lambda: four_holes(),
        polygon_parts(SQUARE) + [arc(c, 0.2, k * math.pi / 2) for c in HOLES for k in range(4)],
    ),
}


def four_holes():
    shape = Rectangle((-1, -1), (1, 1))
    for centre in HOLES:  # nested: each difference lists its operands' points one after the other
        shape = Difference(shape, Disk(centre, 0.2))
    return shape


def assert_shares(points: np.ndarray, parts: list[Part], label: str, spread: float = 0.06) -> None:
    """Each part holds its share of ``points`` by length, spread along it; every point is on one."""
    n = points.shape[1]
    total = sum(length for *_, length in parts)
    seen = np.zeros(n, bool)
    for k, (on, along, length) in enumerate(parts):
        mask = on(points) & ~seen  # a corner counts once
        seen |= mask
        share, expected = mask.mean(), length / total
        # a random draw's share is off by sqrt(p (1 - p) / n) typically
        assert abs(share - expected) < max(0.02, 4 * math.sqrt(expected * (1 - expected) / n)), (
            f"{label}: part {k} holds {share:.3f} of the points, its length {expected:.3f}"
        )
        position = along(points[:, mask])
        # uniform positions: the mean's spread is 0.29 / sqrt(count), the share below 1/2's 0.5 / sqrt(count)
        off = max(spread, 4 * 0.29 / math.sqrt(mask.sum()))
        below = max(2 * spread, 4 * 0.5 / math.sqrt(mask.sum()))
        assert abs(position.mean() - 0.5) < off and abs(np.mean(position < 0.5) - 0.5) < below, (
            f"{label}: part {k}'s {mask.sum()} points average {position.mean():.2f} along it"
        )
    assert seen.all(), f"{label}: {np.sum(~seen)} points off the boundary"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", GEOMETRIES)
def test_each_part_of_the_boundary_gets_its_share_spread_along_it(name, method):
    make, parts = GEOMETRIES[name]
    points = make().boundary(4000, method, 2)
    assert_shares(points, parts, f"{name}, {method}")
    assert_shares(points[:, :2000], parts, f"{name}, {method}, the first half")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", GEOMETRIES)
def test_a_condition_on_part_of_the_boundary_gets_each_of_its_parts_share(name, method):
    """``on=`` every other part: each of those gets its share of their length, none is left out."""
    make, parts = GEOMETRIES[name]
    chosen = parts[1::2]

    def on(*coords):
        points = np.stack(coords)
        return np.any([inside(points) for inside, *_ in chosen], axis=0)

    condition = dirichlet(lambda *xs: xs[0], make(), 0.0, on=on)
    assert_shares(condition.sample(3000, method, 5), chosen, f"{name}, {method}, on= every other part")
