"""Domains beyond boxes (polygons, constructive geometry, time alone), initial derivatives, data on
several outputs, and Levenberg-Marquardt's time limit, each against an independent reference:
matplotlib's point-in-polygon test, closed-form ODE solutions, NumPy."""

from __future__ import annotations

import importlib
import math
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.path import Path

from symgrad import Parameter, Tensor
from symgrad.pinn import (
    MLP,
    Difference,
    Disk,
    Intersection,
    Polygon,
    Rectangle,
    ResidualLoss,
    TimeDomain,
    Triangle,
    Union,
    dirichlet,
    grad,
    initial,
    laplacian,
    lbfgs,
    levenberg_marquardt,
    neumann,
    observations,
    predict,
)

lm_module = importlib.import_module("symgrad.pinn.levenberg_marquardt")  # the module, not the function

L_SHAPE = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]


def on_an_edge(vertices, points, tol=1e-9) -> np.ndarray:
    """Whether each point lies on one of the polygon's edges (a plain NumPy reference)."""
    v = np.asarray(vertices, float)
    hits = np.zeros(points.shape[1], bool)
    for a, b in zip(v, np.roll(v, -1, axis=0)):
        d, p = b - a, points.T - a
        along = (p @ d) / (d @ d)
        cross = np.abs(p[:, 0] * d[1] - p[:, 1] * d[0]) / np.linalg.norm(d)
        hits |= (cross <= tol) & (along >= -tol) & (along <= 1 + tol)
    return hits


convex = st.lists(st.floats(0, 2 * math.pi, allow_nan=False), min_size=3, max_size=8, unique=True).filter(
    lambda a: np.all(np.diff(np.sort(a)) > 0.05) and (2 * math.pi - np.ptp(a)) > 0.05
)


@settings(max_examples=20)
@given(angles=convex, seed=st.integers(0, 100))
def test_polygon_points_agree_with_matplotlibs_point_in_polygon(angles, seed):
    vertices = np.stack([np.cos(np.sort(angles)), np.sin(np.sort(angles))], axis=1)
    polygon, path = Polygon(vertices[::-1] if seed % 2 else vertices), Path(vertices)  # either orientation
    inside = polygon.interior(200, seed=seed)
    assert inside.shape == (2, 200) and path.contains_points(inside.T, radius=1e-9).all()
    probe = np.random.default_rng(seed).uniform(-1.2, 1.2, (2, 400))
    clear = polygon.boundary_distance(probe) > 1e-6  # away from the edges, where both are exact
    assert np.array_equal(polygon.contains(probe)[clear], path.contains_points(probe.T)[clear])
    edge_points = polygon.boundary(100, seed=seed)
    assert on_an_edge(vertices, edge_points).all()


def test_l_shape_boundary_is_spread_by_length_with_outward_normals():
    shape = Polygon(L_SHAPE)
    assert shape.area == 3.0 and shape.boundary_measure() == 8.0
    points = shape.boundary(8000, "sobol")
    on_the_notch = (np.abs(points[1] - 1) < 1e-12) & (points[0] > 1)  # edge (2,1)-(1,1): length 1 of 8
    assert abs(on_the_notch.mean() - 1 / 8) < 0.01
    normals = shape.normals(np.array([[1.5, 1.0, 0.5, 2.0], [1.0, 1.5, 0.0, 0.5]]))
    np.testing.assert_allclose(normals.T, [[0, 1], [1, 0], [0, -1], [1, 0]], atol=1e-12)


def test_polygons_that_are_not_simple_or_have_no_area_are_refused():
    with pytest.raises(ValueError, match="edges 0 and 2 cross"):
        Polygon([(0, 0), (1, 1), (1, 0), (0, 1)])
    with pytest.raises(ValueError, match="enclose no area"):
        Triangle((0, 0), (1, 1), (2, 2))
    with pytest.raises(ValueError, match=r"vertices must be \(k, 2\)"):
        Polygon([(0, 0), (1, 1)])


def test_constructive_geometry_against_plain_predicates():
    square, hole = Rectangle((0, 0), (1, 1)), Disk((0.5, 0.5), 0.25)
    plate = Difference(square, hole)
    inside = plate.interior(3000, "halton")
    radius = np.linalg.norm(inside.T - 0.5, axis=1)
    assert np.all((radius >= 0.25) & (inside >= 0).all(axis=0) & (inside <= 1).all(axis=0))
    edge = plate.boundary(6000, seed=2)
    on_hole = np.abs(np.linalg.norm(edge.T - 0.5, axis=1) - 0.25) < 1e-9
    on_square = (np.abs(edge) < 1e-12).any(axis=0) | (np.abs(edge - 1) < 1e-12).any(axis=0)
    assert np.all(on_hole | on_square)
    share = 2 * math.pi * 0.25 / (4 + 2 * math.pi * 0.25)  # one density over the whole boundary
    assert abs(on_hole.mean() - share) < 0.02
    outward = plate.normals(edge[:, on_hole])  # out of the plate is into the hole
    np.testing.assert_allclose(outward, -(edge[:, on_hole] - 0.5) / 0.25, atol=1e-9)

    l_union = Union(Rectangle((0, 0), (2, 1)), Rectangle((0, 0), (1, 2)))
    probe = np.random.default_rng(1).uniform(-0.5, 2.5, (2, 2000))
    clear = Polygon(L_SHAPE).boundary_distance(probe) > 1e-6
    assert np.array_equal(l_union.contains(probe)[clear], Path(L_SHAPE).contains_points(probe.T)[clear])
    assert on_an_edge(L_SHAPE, l_union.boundary(500)).all()  # no point of the union's inner seams

    quarter = Intersection(Disk((0, 0), 1), Rectangle((0, 0), (2, 2)))
    assert (quarter.interior(500) >= 0).all() and (np.linalg.norm(quarter.interior(500), axis=0) <= 1).all()
    with pytest.raises(ValueError, match="a 2-D and a 1-D geometry do not combine"):
        Union(square, TimeDomain(0, 1))
    with pytest.raises(TypeError, match="lacks"):
        Union(square, object())


def test_laplace_on_an_l_shape_reaches_the_harmonic_solution():
    shape = Polygon(L_SHAPE)
    net = MLP([2, 16, 16, 1], seed=0)
    exact = lambda x, y: x * x - y * y  # noqa: E731 - harmonic: -Δu = 0
    wall = dirichlet(net, shape, value=exact)
    terms = [
        (ResidualLoss(laplacian(net, (0, 1)), ("x", "y"), net), shape.interior(400, "sobol")),
        (wall.loss(net, weight=10.0), wall.sample(200, "sobol")),
    ]
    lbfgs(terms, net, max_iterations=600, progress=False)
    grid = shape.interior(500, seed=9)
    error = np.linalg.norm(predict(net, grid) - exact(*grid)) / np.linalg.norm(exact(*grid))
    assert error < 2e-2, error


def test_neumann_on_a_hole_uses_the_reversed_normal():
    plate = Difference(Rectangle((0, 0), (1, 1)), Disk((0.5, 0.5), 0.25))
    u = lambda x, y: (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)  # noqa: E731 - du/dr = 2r
    condition = neumann(u, plate, value=0.0)
    points = condition.sample(200, seed=3)
    x, y, nx, ny = points
    hole = np.abs(np.hypot(x - 0.5, y - 0.5) - 0.25) < 1e-9
    np.testing.assert_allclose(
        nx[hole] * 2 * (x[hole] - 0.5) + ny[hole] * 2 * (y[hole] - 0.5), -0.5, atol=1e-9
    )


def test_odes_with_initial_values_and_initial_derivatives():
    """u'' = -u, u(0) = 0, u'(0) = 1: u = sin t, on a TimeDomain, against the closed form."""
    time = TimeDomain(0, math.pi)
    net = MLP([1, 16, 16, 1], seed=1)
    start, speed = initial(net, time, 0.0), initial(net, time, 1.0, derivative=1)
    assert start.inputs == ("t",) and np.all(start.sample(3) == 0)
    ode = ResidualLoss(lambda t: grad(grad(net, 0), 0)(t) + net(t), ("t",), net)
    terms = [
        (ode, time.interior(64, "sobol")),
        (start.loss(net), start.sample(1)),
        (speed.loss(net), speed.sample(1)),
    ]
    lbfgs(terms, net, max_iterations=800, progress=False)
    t = np.linspace(0, math.pi, 50)
    assert np.abs(predict(net, [t]) - np.sin(t)).max() < 1e-3
    with pytest.raises(ValueError, match="derivative must be a whole number"):
        initial(net, time, 0.0, derivative=-1)
    with pytest.raises(TypeError, match="needs a SpaceTime domain or a TimeDomain"):
        initial(net, Rectangle((0, 0), (1, 1)), 0.0)


def test_observations_of_several_outputs_at_once():
    net = MLP([2, 8, 3], seed=4)
    points = np.random.default_rng(0).uniform(size=(2, 25))
    values = np.vstack([np.sin(points[0]), np.cos(points[1])])
    data = observations(net, points, values, ("x", "y"), outputs=(0, 2))
    loss = data.loss(net, backend="numpy")
    total, _ = loss(*data.sample())
    outputs = predict(net, points)
    expected = [np.mean((outputs[0] - values[0]) ** 2), np.mean((outputs[2] - values[1]) ** 2)]
    assert loss.term_names == ["data[0]", "data[1]"] and loss.last_terms == pytest.approx(expected, rel=1e-12)
    assert total == pytest.approx(sum(expected), rel=1e-12)
    with pytest.raises(ValueError, match=r"outputs must name one output .* per row of values \(2\)"):
        observations(net, points, values, ("x", "y"), outputs=(0,))
    with pytest.raises(ValueError, match=r"values \(n,\) or \(outputs, n\), got \(2, 25\) and \(2, 24\)"):
        observations(net, points, values[:, :24], ("x", "y"))


class _Uphill:
    """A term whose Jacobian has the wrong sign, so that every step raises the loss."""

    def __init__(self):
        self.params = [Parameter(Tensor(np.array(1.0)), name="theta")]

    def jacobian(self, *points):
        theta = float(self.params[0].asnumpy())
        return np.array([theta]), np.array([[-1.0]])


def test_levenberg_marquardt_honours_max_seconds_inside_an_iteration(monkeypatch):
    clock = iter(range(10**6))  # one second passes at every look at the clock
    monkeypatch.setattr(lm_module, "time", types.SimpleNamespace(perf_counter=lambda: float(next(clock))))
    uphill = _Uphill()
    result = levenberg_marquardt([(uphill, ())], uphill.params, max_seconds=5, progress=False)
    assert result.iterations <= 6 and "max_seconds=5" in result.message
    assert float(uphill.params[0].asnumpy()) == 1.0  # no step lowered the loss: the start is kept


def test_levenberg_marquardt_warns_where_the_network_is_too_large(monkeypatch):
    monkeypatch.setattr(lm_module, "LARGEST_COMFORTABLE", 2)
    uphill = _Uphill()
    uphill.params.append(Parameter(Tensor(np.zeros(2)), name="more"))
    uphill.jacobian = lambda: (np.ones(3), np.ones((3, 3)))  # type: ignore[method-assign]
    with pytest.warns(RuntimeWarning, match="3 weights: each step forms and solves a dense 3 x 3 system"):
        levenberg_marquardt([(uphill, ())], uphill.params, max_iterations=1, progress=False)


def test_reference_problems_conditions_become_losses_by_name():
    from symgrad.pinn import Beam, Burgers, Heat, PoissonND

    for problem, net in ((Burgers(), MLP([2, 4, 1])), (Heat(), MLP([2, 4, 1])), (Beam(), MLP([1, 4, 1]))):
        for condition in problem.conditions(net):
            loss = condition.loss(net, backend="numpy")
            assert loss.names == list(problem.inputs)
            assert np.isfinite(loss(*condition.sample(8))[0])
    cube = PoissonND(3)
    (wall,) = cube.conditions(MLP([3, 4, 1]))
    assert wall.loss(MLP([3, 4, 1]), backend="numpy").names == ["x0", "x1", "x2"]
