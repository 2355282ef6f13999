"""PINN research tools: exact solutions, domains and samplers, L-BFGS, backend "auto", refinement,
hard constraints, and Dask evaluation equal to the in-process kernel."""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import pytest

import lowering
from symgrad import Parameter, Tensor, ops
from symgrad.models import PointMLP
from symgrad.pinn import (
    Beam,
    Box,
    Burgers,
    Disk,
    Heat,
    Interval,
    KdV,
    Poisson2D,
    PoissonND,
    Rectangle,
    ResidualLoss,
    SpaceTime,
    hard_constraint,
    lbfgs,
    refine,
    resample,
)
from symgrad.pinn.geometry import METHODS
from symgrad.pinn.training import kernels_in_use

HAS_DASK = (
    importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None
)
HAS_SCIPY = importlib.util.find_spec("scipy") is not None


# ----- exact solutions satisfy their PDEs (central differences) -----
def test_burgers_cole_hopf_solution_satisfies_the_pde_and_conditions():
    b = Burgers()
    x, t = np.array([-0.7, -0.3, 0.2, 0.5, 0.05, 0.9]), np.array([0.2, 0.5, 0.3, 0.8, 0.4, 0.95])
    h, u = 1e-4, b.exact(x, t)
    u_t = (b.exact(x, t + h) - b.exact(x, t - h)) / (2 * h)
    u_x = (b.exact(x + h, t) - b.exact(x - h, t)) / (2 * h)
    u_xx = (b.exact(x + h, t) - 2 * u + b.exact(x - h, t)) / h**2
    np.testing.assert_allclose(u_t + u * u_x - b.nu * u_xx, 0, atol=1e-5)
    np.testing.assert_allclose(b.exact(x, 0 * t), -np.sin(np.pi * x), atol=1e-15)
    np.testing.assert_allclose(b.exact(np.array([-1.0, 1.0]), np.array([0.5, 0.7])), 0, atol=1e-12)
    # the benchmark of Basdevant et al. (1986): the steepest slope, at x = 0 and t = 1.6037/pi, is -152.00516
    at = np.array([1.6037 / np.pi])
    slope = (b.exact(np.array([1e-6]), at) - b.exact(np.array([-1e-6]), at)) / 2e-6
    assert slope[0] == pytest.approx(-152.00516, rel=2e-5)
    X, T = b.grid()
    assert X.shape == (256, 100) and T[0, -1] == 0.99


def _laplacian_fd(f, xs, h=1e-4):
    total = 0
    for i in range(len(xs)):
        up = [x + h * (j == i) for j, x in enumerate(xs)]
        down = [x - h * (j == i) for j, x in enumerate(xs)]
        total = total + (f(*up) - 2 * f(*xs) + f(*down)) / h**2
    return total


@pytest.mark.parametrize("problem", [Poisson2D(), PoissonND(3)], ids=["2d", "3d"])
def test_poisson_solutions_satisfy_their_pde(problem, rng):
    xs = list(rng.uniform(0.1, 0.9, (len(problem.inputs), 5)))
    residual = -_laplacian_fd(problem.exact, xs)
    if isinstance(problem, Poisson2D):
        source = 2 * np.pi**2 * np.sin(np.pi * xs[0]) * np.sin(np.pi * xs[1])
    else:
        source = np.pi**2 / 4 * sum(np.sin(np.pi / 2 * x) for x in xs)
    np.testing.assert_allclose(residual, source, rtol=1e-5)


def test_heat_solution_satisfies_its_pde():
    p, x, t, h = Heat(0.1), np.array([0.2, 0.6]), np.array([0.3, 0.7]), 1e-4
    u_t = (p.exact(x, t + h) - p.exact(x, t - h)) / (2 * h)
    u_xx = (p.exact(x + h, t) - 2 * p.exact(x, t) + p.exact(x - h, t)) / h**2
    np.testing.assert_allclose(u_t, 0.1 * u_xx, rtol=1e-5)


def test_kdv_soliton_satisfies_its_pde_and_the_network_residual_uses_u_xxx():
    p, x, t, h = KdV(), np.array([-3.5, -2.0, 0.4]), np.array([0.1, 0.5, 0.9]), 1e-3
    u = p.exact(x, t)
    u_t = (p.exact(x, t + h) - p.exact(x, t - h)) / (2 * h)
    u_x = (p.exact(x + h, t) - p.exact(x - h, t)) / (2 * h)
    u_xxx = (
        p.exact(x + 2 * h, t) - 2 * p.exact(x + h, t) + 2 * p.exact(x - h, t) - p.exact(x - 2 * h, t)
    ) / (2 * h**3)
    np.testing.assert_allclose(u_t + 6 * u * u_x + u_xxx, 0, atol=1e-5)
    # the residual written with symgrad ops vanishes for the exact soliton (closed-form derivatives)
    residual = p.pde(p.exact_tensor)(Tensor(x), Tensor(t))
    np.testing.assert_allclose(residual.asnumpy(), 0, atol=1e-13)
    for condition in p.conditions(p.exact_tensor):
        points = condition.sample(5, "uniform", 0)
        np.testing.assert_allclose(
            condition.residual(Tensor(points[0]), Tensor(points[1])).asnumpy(), 0, atol=1e-15
        )


def test_beam_solution_meets_its_fourth_order_equation_and_conditions():
    p = Beam()

    def u(x):  # the exact solution, written with symgrad ops
        return -(x**4) / 24 + x**3 / 6 - x**2 / 4

    x = Tensor(np.array([0.2, 0.7]))
    np.testing.assert_allclose(p.pde(u)(x).asnumpy(), 0, atol=1e-13)
    np.testing.assert_allclose(u(x).asnumpy(), p.exact(x.asnumpy()), rtol=1e-14)
    for condition in p.conditions(u):
        assert abs(condition.residual(Tensor(condition.sample(1)[0, 0])).asnumpy()) < 1e-14, condition.name


def test_relative_l2_is_zero_for_the_exact_field_and_checks_the_shape():
    p = Poisson2D()
    assert p.relative_l2(p.exact(*p.grid())) == 0
    assert p.relative_l2(1.1 * p.exact(*p.grid())) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="prediction has shape"):
        p.relative_l2(np.zeros(3))


# ----- domains and samplers -----
@pytest.mark.parametrize("method", METHODS)
def test_samplers_give_the_count_asked_inside_the_domain(method):
    if method != "uniform" and not HAS_SCIPY:
        pytest.skip("quasi-random samplers need SciPy")
    box = Box([-1.0, 0.0, 2.0], [1.0, 0.5, 3.0])
    points = box.interior(100, method)
    assert points.shape == (3, 100) and box.contains(points).all()
    edge = box.boundary(60, method)
    assert edge.shape == (3, 60) and box.contains(edge).all()
    on_face = np.isclose(edge.T, box.lows) | np.isclose(edge.T, box.highs)
    assert on_face.any(axis=1).all()
    disk = Disk((0.5, -0.5), 2.0)
    assert disk.contains(disk.interior(50, method)).all()
    np.testing.assert_allclose(np.linalg.norm(disk.boundary(50, method).T - disk.center, axis=1), 2.0)
    space_time = SpaceTime(Interval(-1, 1), 0, 1)
    start = space_time.initial(30, method)
    assert start.shape == (2, 30) and (start[1] == 0).all()
    walls = space_time.boundary(30, method)
    assert np.isin(walls[0], [-1.0, 1.0]).all() and ((walls[1] >= 0) & (walls[1] <= 1)).all()
    inside = space_time.interior(40, method)
    assert (np.abs(inside[0]) <= 1).all() and ((inside[1] >= 0) & (inside[1] <= 1)).all()


@pytest.mark.skipif(not HAS_SCIPY, reason="Latin hypercube sampling needs SciPy")
def test_latin_hypercube_puts_one_point_in_each_stratum():
    points = Rectangle((0, 0), (1, 1)).interior(20, "lhs")
    for row in points:
        assert sorted(np.floor(row * 20).astype(int)) == list(range(20))


def test_bad_domains_and_methods_are_named():
    with pytest.raises(ValueError, match="Box: need lows < highs"):
        Box([1.0], [0.0])
    with pytest.raises(ValueError, match="unknown sampling method 'grid'; supported: uniform, lhs"):
        Interval(0, 1).interior(5, "grid")
    with pytest.raises(ValueError, match="Disk: need a 2-D center"):
        Disk((0, 0, 0), 1.0)


# ----- optimizers, backends, refinement -----
@pytest.mark.skipif(not HAS_SCIPY, reason="lbfgs uses SciPy's L-BFGS-B")
def test_lbfgs_reaches_the_known_least_squares_minimum():
    w, b = Parameter(Tensor(np.array(0.0)), name="w"), Parameter(Tensor(np.array(0.0)), name="b")
    x = np.linspace(-1, 1, 50)
    y = 2 * x + 1 + 0.1 * np.cos(7 * x)
    fit = ResidualLoss(lambda x, y: w * x + b - y, ("x", "y"), [w, b], backend="numpy")
    result = lbfgs([(fit, (x, y))], [w, b], max_iterations=100, progress=False)
    slope, intercept = np.polyfit(x, y, 1)
    assert result.success and result.history[-1] < result.history[0]
    assert w.asnumpy() == pytest.approx(slope, abs=1e-7) and b.asnumpy() == pytest.approx(intercept, abs=1e-7)


@pytest.mark.skipif(not HAS_SCIPY, reason="lbfgs uses SciPy's L-BFGS-B")
def test_lbfgs_stops_at_its_iteration_and_time_limits():
    net = PointMLP([2, 8, 1], seed=0)
    fit = ResidualLoss(Heat().pde(net), ("x", "t"), net.params, backend="numpy")
    points = Heat().geometry.interior(200)
    capped = lbfgs([(fit, points)], net.params, max_iterations=7, progress=False)
    assert capped.iterations == 7 and not capped.success
    timed = lbfgs(  # no convergence test may stop it first
        [(fit, points)], net.params, max_iterations=100000, max_seconds=0.3, ftol=0, gtol=0, progress=False
    )
    assert "max_seconds" in timed.message and 0 < timed.iterations < 100000


def test_auto_backend_evaluates_at_once_and_switches_to_c_when_compiled():
    net = PointMLP([2, 6, 1], seed=3)
    problem = Heat()
    auto = ResidualLoss(problem.pde(net), problem.inputs, net.params)
    plain = ResidualLoss(problem.pde(net), problem.inputs, net.params, backend="numpy")
    points = problem.geometry.interior(257, "sobol" if HAS_SCIPY else "uniform")
    first, _ = auto(*points)  # may run on NumPy while C compiles
    assert kernels_in_use([(auto, points), (plain, points)]) in ("numpy", "c+numpy")
    expected = "c" if "c" in lowering.available_backends() else "numpy"
    assert auto.wait_until_compiled() == expected
    value, grads = auto(*points)
    ref_value, ref_grads = plain(*points)
    assert value == pytest.approx(ref_value, rel=1e-12) and first == pytest.approx(ref_value, rel=1e-12)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-14)


def test_refinement_adds_the_points_with_the_largest_residual():
    bump = ResidualLoss(lambda x: ops.exp(-(x - 0.3) * (x - 0.3) * 50), ("x",), [], backend="numpy")
    candidates = np.linspace(0, 1, 101)[None, :]
    grown = refine(np.zeros((1, 4)), candidates, bump.residuals, 3)
    assert grown.shape == (1, 7)
    np.testing.assert_allclose(sorted(grown[0, 4:]), [0.29, 0.3, 0.31])


def test_resampling_draws_in_proportion_to_the_residual_plus_c():
    """RAD: weight |r|^k / mean |r|^k + c. Half the candidates have residual 1, half 0: with
    c = 1 the weights are 3 and 1, so 3/4 of a small draw lands on the first half (binomial
    sd 0.01 at 2000 draws); with c = 0 all of it does."""
    n = 20_000
    candidates = np.vstack([np.arange(n, dtype=float), np.zeros(n)])

    def step(i, _):
        return (i < n / 2).astype(float)

    drawn = resample(candidates, step, 2000, seed=3)
    assert drawn.shape == (2, 2000) and len(np.unique(drawn[0])) == 2000  # without replacement
    assert 0.71 < np.mean(drawn[0] < n / 2) < 0.79
    assert np.all(resample(candidates, step, 2000, c=0.0, seed=3)[0] < n / 2)
    two_parts = resample(candidates, lambda i, _: (step(i, _), 0 * i), 2000, c=0.0, seed=3)  # a system
    assert np.all(two_parts[0] < n / 2)
    assert resample(candidates, lambda i, _: 0 * i, 5, c=0.0).shape == (2, 5)  # all zero: uniform


def test_resampling_refuses_what_it_cannot_draw():
    candidates = np.zeros((1, 10))
    with pytest.raises(ValueError, match="count must be a whole number in 1..10"):
        resample(candidates, lambda x: x, 11)
    with pytest.raises(ValueError, match="k and c must be finite and >= 0"):
        resample(candidates, lambda x: x, 3, c=-1.0)
    with pytest.raises(ValueError, match="1 of 10 candidates have a non-finite residual"):
        resample(candidates, lambda x: np.where(np.arange(10) == 4, np.nan, x), 3)
    with pytest.raises(ValueError, match=r"shape \(dim, n\)"):
        resample(np.zeros(10), lambda x: x, 3)


def test_hard_constraints_hold_exactly_whatever_the_network():
    net = PointMLP([2, 5, 1], seed=1)
    u = hard_constraint(net, lambda x, t: -ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))
    for x in (-1.0, 0.3, 1.0):  # the initial condition at t = 0
        assert u(Tensor(np.array(x)), Tensor(np.array(0.0))).asnumpy() == pytest.approx(
            -np.sin(np.pi * x), abs=1e-15
        )
    for x, t in ((-1.0, 0.4), (1.0, 0.9)):  # the walls
        assert u(Tensor(np.array(x)), Tensor(np.array(t))).asnumpy() == pytest.approx(0, abs=1e-15)
    assert u(Tensor(np.array(0.2)), Tensor(np.array(0.5))).asnumpy() != pytest.approx(
        -np.sin(0.2 * np.pi), abs=1e-3
    )


def test_kernels_pickle_as_their_graph():
    net = PointMLP([2, 4, 1], seed=2)
    loss = ResidualLoss(Heat().pde(net), ("x", "t"), net.params, backend="numpy")
    copy = pickle.loads(pickle.dumps(loss.kernel))
    points = Heat().geometry.interior(10)
    weights = [p.asnumpy() for p in net.params]
    for a, b in zip(copy(*points, *weights), loss.kernel(*points, *weights)):
        np.testing.assert_array_equal(a, b)


# ----- Dask -----
@pytest.mark.skipif(not HAS_DASK, reason="Dask is not installed (pip install 'dask[array]' distributed)")
def test_dask_blocks_and_a_two_process_cluster_equal_the_local_kernel():
    from dask.distributed import Client, LocalCluster

    from symgrad.pinn.distributed import as_dask, loss_and_gradient

    net = PointMLP([2, 8, 8, 1], seed=0)
    problem = Burgers()
    loss = ResidualLoss(problem.pde(net), problem.inputs, net.params)
    points = problem.geometry.interior(5000)
    expected, expected_grads = loss(*points)
    got, grads = loss_and_gradient(loss, *as_dask(points, 700))  # local threads
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        on_cluster, cluster_grads = loss_and_gradient(loss, *as_dask(points, 700))
    assert on_cluster == pytest.approx(expected, rel=1e-12, abs=1e-12)
    for g, c, e in zip(grads, cluster_grads, expected_grads):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(c, e, rtol=1e-12, atol=1e-12)


@pytest.mark.skipif(not HAS_DASK, reason="Dask is not installed")
def test_dask_inputs_are_checked():
    from symgrad.pinn.distributed import as_dask, loss_and_gradient

    net = PointMLP([2, 3, 1])
    loss = ResidualLoss(Heat().pde(net), ("x", "t"), net.params, backend="numpy")
    with pytest.raises(TypeError, match="one 1-D dask.array per input"):
        loss_and_gradient(loss, np.zeros(3), np.zeros(3))
    x, _ = as_dask(np.zeros((2, 10)), 5)
    with pytest.raises(ValueError, match="takes 2 inputs, got 1"):
        loss_and_gradient(loss, x)


def test_the_allen_cahn_reference_converges_in_modes_and_steps():
    from symgrad.pinn.problems import AllenCahn, allen_cahn_reference

    coarse = allen_cahn_reference(modes=1024)[::2]
    fine = allen_cahn_reference()[::4]
    assert np.linalg.norm(coarse - fine) / np.linalg.norm(fine) < 1e-5
    halved = allen_cahn_reference(modes=1024, step=1e-4, every=50)[::2]
    assert np.abs(halved - coarse).max() < 1e-9
    assert np.abs(fine).max() <= 1 + 1e-9  # u stays in [-1, 1] (a maximum principle)
    problem = AllenCahn()
    x, t = problem.grid()
    np.testing.assert_allclose(
        problem.exact(x[:, 0], 0 * x[:, 0]), x[:, 0] ** 2 * np.cos(np.pi * x[:, 0]), atol=1e-12
    )
    assert problem.relative_l2(fine) == 0.0
    with pytest.raises(ValueError, match="reference grid"):
        problem.exact(np.array([0.001]), np.array([0.5]))
