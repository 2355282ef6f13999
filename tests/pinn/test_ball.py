"""Ball: the ball and sphere in any dimension, against closed forms (sphere areas, volume fractions)
and plain NumPy references (norms, offsets), over dimensions, centres, radii and samplers."""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad.pinn import Ball, Box, Difference, Disk, SpaceTime

geometry = importlib.import_module("symgrad.pinn.geometry")

N = 2048
dims = st.integers(2, 6)
methods = st.sampled_from(["uniform", "lhs", "sobol", "halton"])
seeds = st.integers(0, 2**16)
radii = st.floats(0.01, 100.0)


def ball(dim: int, radius: float, shift: float) -> Ball:
    return Ball(shift + np.arange(dim) * 0.5, radius)


@settings(max_examples=40, deadline=None)
@given(dims, radii, st.floats(-10, 10), methods, seeds)
def test_interior_points_fill_the_ball_uniformly(dim, radius, shift, method, seed):
    b = ball(dim, radius, shift)
    p = b.interior(N, method, seed)
    assert p.shape == (dim, N)
    r = np.linalg.norm(p.T - b.center, axis=1) / radius
    assert r.max() <= 1 + 1e-12 and b.contains(p).all()
    for q in (0.25, 0.5, 0.75):  # the share of the volume within radius q^(1/dim)
        assert abs(np.mean(r <= q ** (1 / dim)) - q) < 0.06, (q, method)
    for axis in range(dim):  # no direction favoured: half the points on each side of every axis
        assert abs(np.mean(p[axis] > b.center[axis]) - 0.5) < 0.06, (axis, method)


@settings(max_examples=40, deadline=None)
@given(dims, radii, st.floats(-10, 10), methods, seeds)
def test_boundary_points_lie_on_the_sphere_with_outward_normals(dim, radius, shift, method, seed):
    b = ball(dim, radius, shift)
    p = b.boundary(N, method, seed)
    offset = p.T - b.center
    np.testing.assert_allclose(np.linalg.norm(offset, axis=1), radius, rtol=1e-12)
    assert np.all(np.abs(offset.mean(axis=0)) < 0.15 * radius)  # spread round the sphere
    n = b.normals(p)
    np.testing.assert_allclose(n, offset.T / radius, atol=1e-12)
    step = 1e-6 * radius
    assert not b.contains(p + step * n).any() and b.contains(p - step * n).all()
    np.testing.assert_allclose(b.boundary_distance(p), 0, atol=1e-12 * max(radius, 1))


@pytest.mark.parametrize(
    "dim, area",
    [
        (2, lambda r: 2 * math.pi * r),
        (3, lambda r: 4 * math.pi * r**2),
        (4, lambda r: 2 * math.pi**2 * r**3),
        (5, lambda r: 8 * math.pi**2 / 3 * r**4),
    ],
)
def test_boundary_measure_is_the_sphere_area(dim, area):
    for radius in (0.3, 1.0, 2.5):
        assert Ball([1.0] * dim, radius).boundary_measure() == pytest.approx(area(radius), rel=1e-13)


@settings(max_examples=30, deadline=None)
@given(dims, radii, seeds)
def test_contains_distance_and_bounds_match_numpy(dim, radius, seed):
    b = ball(dim, radius, 1.0)
    lows, highs = b.bounds()
    np.testing.assert_allclose(highs - lows, 2 * radius)
    x = np.random.default_rng(seed).uniform(lows - radius, highs + radius, (64, dim)).T
    distance = np.linalg.norm(x.T - b.center, axis=1)
    np.testing.assert_array_equal(b.contains(x), distance <= radius + 1e-12)
    np.testing.assert_allclose(b.boundary_distance(x), np.abs(distance - radius), rtol=1e-12, atol=1e-12)
    inside = b.interior(N, "halton", seed)
    assert np.all(inside >= lows[:, None] - 1e-12) and np.all(inside <= highs[:, None] + 1e-12)


def test_directions_without_scipy_match_ndtri(monkeypatch):
    cube = np.random.default_rng(3).uniform(0, 1, (500, 5))
    with_scipy = geometry._directions(cube)
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # import scipy.special now fails
    np.testing.assert_allclose(geometry._directions(cube), with_scipy, rtol=1e-12, atol=1e-12)


def test_a_cube_less_a_ball_in_3d():
    cube, hole = Box([0, 0, 0], [1, 1, 1]), Ball([0.5, 0.5, 0.5], 0.25)
    solid = Difference(cube, hole)
    p = solid.boundary(4000, "halton", 0)
    on_sphere = np.isclose(np.linalg.norm(p.T - hole.center, axis=1), 0.25)
    on_faces = np.isclose(p, 0).any(axis=0) | np.isclose(p, 1).any(axis=0)
    assert np.all(on_sphere ^ on_faces)
    # each surface gets its share of the points by area: 4 pi / 16 against 6
    share = (4 * math.pi * 0.25**2) / (4 * math.pi * 0.25**2 + 6)
    assert abs(on_sphere.mean() - share) < 0.03
    n = solid.normals(p)
    np.testing.assert_allclose(n[:, on_sphere], -(p[:, on_sphere] - hole.center[:, None]) / 0.25, atol=1e-9)
    assert not solid.contains(hole.center[:, None]).any()
    assert solid.contains(solid.interior(2000, "halton", 1)).all()


def test_space_time_over_a_ball():
    domain = SpaceTime(Ball([0] * 5, 1.0), 0, 2)
    inside, edge = domain.interior(300, "halton", 0), domain.boundary(300, "halton", 0)
    assert inside.shape == edge.shape == (6, 300)
    assert np.all(np.linalg.norm(inside[:5], axis=0) <= 1 + 1e-12) and np.all(
        (0 <= inside[5]) & (inside[5] <= 2)
    )
    np.testing.assert_allclose(np.linalg.norm(edge[:5], axis=0), 1, rtol=1e-12)
    normals = domain.normals(edge)
    np.testing.assert_allclose(normals[:5], edge[:5], atol=1e-12)
    np.testing.assert_array_equal(normals[5], 0)


def test_a_disk_is_the_plane_s_ball():
    disk, plane_ball = Disk((1.0, -2.0), 1.5), Ball((1.0, -2.0), 1.5)
    assert isinstance(disk, Ball) and disk.dim == plane_ball.dim == 2
    assert disk.boundary_measure() == pytest.approx(plane_ball.boundary_measure(), rel=1e-15)
    p = disk.boundary(50, "halton", 2)
    np.testing.assert_allclose(disk.normals(p), plane_ball.normals(p))
    u = geometry.unit_cube(50, 1, "halton", 2)[:, 0]  # the disk keeps its samplers by angle
    circle = np.stack([np.cos(2 * np.pi * u), np.sin(2 * np.pi * u)], axis=1)
    np.testing.assert_allclose(p, ((1.0, -2.0) + 1.5 * circle).T)


@pytest.mark.parametrize(
    "center, radius, message",
    [
        ([0.0], 1.0, "Ball: need a center of 2 or more coordinates"),
        ([[0.0, 0.0]], 1.0, "Ball: need a center of 2 or more coordinates"),
        ([0.0, 0.0, 0.0], 0.0, "positive radius, got center"),
        ([0.0, 0.0, 0.0], -1.0, "positive radius"),
        ([0.0, float("nan")], 1.0, "Ball: center must be finite"),
        ([0.0, 0.0], float("inf"), "Ball: radius must be finite"),
    ],
)
def test_bad_balls_are_refused_naming_the_argument(center, radius, message):
    with pytest.raises(ValueError, match=message):
        Ball(center, radius)


def test_points_of_the_wrong_shape_are_refused():
    b = Ball([0, 0, 0], 1.0)
    with pytest.raises(ValueError, match=r"Ball.normals: points must be \(3, n\)"):
        b.normals(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"Ball.boundary_distance: points must be \(3, n\)"):
        b.boundary_distance(np.zeros((4, 3)))
