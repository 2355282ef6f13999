"""Space x time points: the time of a point says nothing about where in space it is, for every space
and every sampling method (a low-discrepancy t drawn in the order of its sequence followed the
order of the space's sampler: with Halton, an interval's end x = 0 got only t < 1/2)."""

from __future__ import annotations

import numpy as np
import pytest

from symgrad.pinn import Difference, Disk, Interval, Polygon, Rectangle, SpaceTime
from symgrad.pinn.geometry import METHODS

SPACES = {
    "interval": lambda: Interval(-1, 2),
    "rectangle": lambda: Rectangle((0, 0), (2, 1)),
    "disk": lambda: Disk((0.5, -0.5), 1.5),
    "triangle": lambda: Polygon([(0, 0), (2, 0), (0, 1)]),
    "square with a hole": lambda: Difference(Rectangle((-1, -1), (1, 1)), Disk((0, 0), 0.4)),
}
T0, T1 = 2.0, 5.0


def halves_of_space(space, points: np.ndarray) -> list[np.ndarray]:
    """The points split by each space coordinate at its median: two masks per coordinate."""
    masks = []
    for row in points[: space.dim]:
        middle = np.median(row)
        low = row <= middle if np.all(np.isin(row, [row.min(), row.max()])) else row < middle
        masks += [low, ~low]
    return masks


def assert_time_spread(space, points: np.ndarray, what: str) -> None:
    t = (points[-1] - T0) / (T1 - T0)
    assert t.min() >= 0 and t.max() <= 1
    for mask in halves_of_space(space, points):
        if mask.sum() < 100:
            continue
        part = t[mask]
        early = np.mean(part < 0.5)
        assert 0.4 < part.mean() < 0.6 and 0.35 < early < 0.65, (
            f"{what}: the points of one half of space have times averaging {part.mean():.2f}, "
            f"{early:.0%} before the middle"
        )
    for k, row in enumerate(points[: space.dim]):
        if np.ptp(row) > 0:
            r = np.corrcoef(row, t)[0, 1]
            assert abs(r) < 0.12, f"{what}: t correlates with coordinate {k}: r = {r:.2f}"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", SPACES)
def test_boundary_times_are_spread_over_every_part_of_the_boundary(name, method):
    space = SPACES[name]()
    for n, seed in ((1024, 0), (777, 3)):
        points = SpaceTime(space, T0, T1).boundary(n, method, seed)
        assert points.shape == (space.dim + 1, n)
        assert_time_spread(space, points, f"SpaceTime({name}).boundary({n}, {method!r}, {seed})")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", SPACES)
def test_interior_times_are_spread_over_every_part_of_the_space(name, method):
    space = SPACES[name]()
    points = SpaceTime(space, T0, T1).interior(1024, method, 1)
    assert_time_spread(space, points, f"SpaceTime({name}).interior(1024, {method!r}, 1)")


def test_the_same_seed_gives_the_same_points():
    domain = SpaceTime(Interval(0, 1), 0, 1)
    assert np.array_equal(domain.boundary(64, "halton", 5), domain.boundary(64, "halton", 5))
    assert not np.array_equal(domain.boundary(64, "halton", 5), domain.boundary(64, "halton", 6))
