"""bench/pinnacle_problems.py: PINNacle's problems as written for symgrad.pinn.

Each PDE residual is evaluated on a function whose residual is known in closed form (an exact
solution: zero; a manufactured u: the residual written out in NumPy here), so a wrong sign or
coefficient in a port fails; the reference readers are checked on small COMSOL-format files; the
L2RE metric on trivial predictions; and, where the PINNacle mirror is on this machine, one real
reference file (Burgers: its t = 0 slice is -sin(pi x)).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import pinnacle_problems as pp  # noqa: E402

from symgrad import ops  # noqa: E402
from symgrad.pinn import Rectangle, SpaceTime, predict  # noqa: E402

PI = math.pi
MIRROR = Path("/work/.mirror/i207M+PINNacle/repo")


def at(fn, points: np.ndarray) -> np.ndarray:
    """A residual's values at points (dim, n)."""
    return np.asarray(predict(fn, points), float)


def box_points(lows, highs, n: int = 200, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.uniform(lo, hi, n) for lo, hi in zip(lows, highs)])


# ----- exact solutions make the residuals vanish -----
def test_poisson_nd_exact_solution_has_zero_residual():
    u = lambda *xs: sum(ops.sin(PI * x / 2) for x in xs)  # noqa: E731
    points = box_points([0] * 5, [1] * 5)
    assert np.abs(at(pp.poisson_nd_pde(u), points)).max() < 1e-10
    assert np.allclose(pp.exact(points.T, pp.poisson_nd_exact)[1][:, 0], at(u, points))


def test_heat_nd_exact_solution_has_zero_residual_and_meets_its_conditions():
    names = (*pp.NAMES5, "t")
    domain = SpaceTime(pp.Ball([0] * 5, 1.0), 0, 1)
    u = pp.heat_nd_value
    assert np.abs(at(pp.heat_nd_pde(u), domain.interior(200, "halton", 1))).max() < 1e-9
    flux = pp.neumann(u, domain, pp.heat_nd_value, inputs=names)
    assert np.abs(at(flux.residual, flux.sample(100, "halton", 2))).max() < 1e-9
    sphere = domain.space.boundary(100, "halton", 4)
    assert np.allclose(np.linalg.norm(sphere, axis=0), 1.0)
    assert np.allclose(domain.space.normals(sphere), sphere)


def test_heat_multiscale_and_wave_exact_solutions_have_zero_residuals():
    heat = lambda x, y, t: (  # noqa: E731
        ops.sin(20 * PI * x) * ops.sin(PI * y) * ops.exp(-(400 / 500**2 + 1) * t)
    )
    points = box_points((0, 0, 0), (1, 1, 5))
    assert np.abs(at(pp.heat_multiscale_pde(heat), points)).max() < 1e-9
    assert np.allclose(at(heat, points), pp.heat_multiscale_exact(*points))

    def wave(x, t):
        return ops.sin(PI * x) * ops.cos(2 * PI * t) + 0.5 * ops.sin(4 * PI * x) * ops.cos(8 * PI * t)

    points = box_points((0, 0), (1, 1))
    assert np.abs(at(pp.wave1d_pde(wave), points)).max() < 1e-8
    assert np.allclose(at(wave, points), pp.wave_exact(*points))


def test_kovasznay_flow_solves_the_navier_stokes_port():
    """Kovasznay's exact steady Navier-Stokes flow at Re = 1/nu = 100."""
    lam = 50 - math.sqrt(50**2 + 4 * PI**2)
    flow = lambda x, y: (  # noqa: E731
        1 - ops.exp(lam * x) * ops.cos(2 * PI * y),
        lam / (2 * PI) * ops.exp(lam * x) * ops.sin(2 * PI * y),
        (1 - ops.exp(2 * lam * x)) / 2,
    )
    residuals = predict(pp.navier_stokes(flow, 0.01), box_points((0, 0), (1, 1)))
    assert max(np.abs(r).max() for r in residuals) < 1e-9


def test_heat_inverse_exact_pair_has_zero_residual():
    u = lambda x, y, t: ops.exp(-t) * ops.sin(PI * x) * ops.sin(PI * y)  # noqa: E731
    a = lambda x, y, t: 2 + ops.sin(PI * x) * ops.sin(PI * y) + 0 * t  # noqa: E731
    assert np.abs(at(pp.heat_inv_pde(u, a), box_points((-1, -1, 0), (1, 1, 1)))).max() < 1e-9


def test_poisson_inverse_source_is_pinnacles_own_and_off_by_4_pi_a2_sin():
    """Ported as benchmarked: with the reference (u, a) the residual is 4 pi a^2 sin(pi (x + y))."""
    u = lambda x, y: ops.sin(PI * x) * ops.sin(PI * y)  # noqa: E731
    a = lambda x, y: 1 / (1 + x**2 + y**2 + (x - 1) ** 2 + (y - 1) ** 2)  # noqa: E731
    x, y = points = box_points((0, 0), (1, 1))
    expected = 4 * PI * pp.poisson_inv_exact(x, y)[1] ** 2 * np.sin(PI * (x + y))
    assert np.allclose(at(pp.poisson_inv_pde(u, a), points), expected, atol=1e-9)


# ----- manufactured u: the residual written out independently -----
def test_burgers_residual_and_conditions_on_a_manufactured_u():
    u = lambda x, t: -ops.sin(PI * x) * ops.exp(-t)  # noqa: E731
    x, t = points = box_points((-1, 0), (1, 1))
    v = -np.sin(PI * x) * np.exp(-t)
    expected = (
        -v + v * (-PI * np.cos(PI * x) * np.exp(-t)) - 0.01 / PI * (PI**2 * np.sin(PI * x) * np.exp(-t))
    )
    assert np.allclose(at(pp.burgers1d_pde(u), points), expected, atol=1e-12)
    built = pp.burgers1d(0, (4,))
    (_, interior, domain), (start, at_start), (walls, on_walls) = built.terms
    assert np.allclose(at_start[1], 0) and np.allclose(np.abs(on_walls[0]), 1)
    assert interior.shape == (2, 4096) and start.name == "initial" and walls.name == "dirichlet"
    drawn = domain.interior(50, "uniform", 1)  # the equation's domain, where solve draws new points
    assert np.all(np.abs(drawn[0]) <= 1) and np.all((drawn[1] >= 0) & (drawn[1] <= 1))


def test_poisson_residuals_on_manufactured_u():
    harmonic = lambda x, y: x**2 - y**2  # noqa: E731
    assert np.abs(at(pp.laplace_pde(harmonic), box_points((-0.5, -0.5), (0.5, 0.5)))).max() < 1e-12
    x, y = points = box_points((-1, -1), (1, 1))
    f = 10 * (1 + x**2 + 16 + y**2) * np.sin(PI * x) * np.sin(4 * PI * y)
    assert np.allclose(at(pp.poisson_boltzmann2d_pde(lambda x, y: x * y), points), 64 * x * y - f, atol=1e-10)


def test_heat_longtime_residual_on_a_manufactured_u():
    x, y, t = points = box_points((0, 0, 0), (1, 1, 100))
    v = x * y * t
    source = 5 * np.sin(v**2) * (1 + 2 * np.sin(PI * t / 4)) * np.sin(4 * PI * x) * np.sin(2 * PI * y)
    got = at(pp.heat_longtime_pde(lambda x, y, t: x * y * t), points)
    assert np.allclose(got, x * y - source, atol=1e-9)


def test_every_case_builds_terms_whose_points_lie_in_its_domain():
    built = pp.poisson2d_classic(0, (4,))
    shape = pp.with_holes(Rectangle((-0.5, -0.5), (0.5, 0.5)), pp.CLASSIC_DISKS)
    for term in built.terms:
        assert shape.contains(term[1]).all()
    assert (
        built.terms[0][2] is not None and shape.contains(built.terms[0][2].interior(100, "uniform", 2)).all()
    )
    square, disks = built.terms[1][1], built.terms[2][1]
    assert np.all(np.isclose(np.abs(square), 0.5).any(axis=0))
    centres = np.array([c[:2] for c in pp.CLASSIC_DISKS])
    gaps = np.linalg.norm(disks.T[:, None, :] - centres[None], axis=-1).min(axis=1)
    assert np.allclose(gaps, 0.1)


# ----- readers and the metric -----
def test_l2re_is_pinnacles_relative_error_over_all_outputs():
    ref = np.array([[3.0, 0.0], [0.0, 4.0]])
    assert pp.l2re(ref, ref) == 0.0
    assert pp.l2re(np.zeros_like(ref), ref) == pytest.approx(1.0)
    assert pp.l2re(ref + 1.0, ref) == pytest.approx(1.0 / math.sqrt(25 / 4))
    with pytest.raises(ValueError, match="differ in shape"):
        pp.l2re(ref[:, :1], ref)


def test_comsol_readers_on_small_files(tmp_path):
    transient_file = tmp_path / "ref" / "t.dat"
    transient_file.parent.mkdir()
    transient_file.write_text(
        "% Model:   x.mph\n% X                       u (1) @ t=0              u (1) @ t=0.5\n"
        "-1  0  0.1\n0.5  1  1.5\n"
    )
    points, values = pp.transient(transient_file, 1)
    assert points.tolist() == [[-1, 0], [-1, 0.5], [0.5, 0], [0.5, 0.5]]
    assert values[:, 0].tolist() == [0, 0.1, 1, 1.5]
    steady_file = tmp_path / "ref" / "s.dat"
    steady_file.write_text("% X  Y  u\n0 0 1\n1 NaN 2\n1 1 3\n")
    points, values = pp.steady(steady_file, 2)
    assert points.tolist() == [[0, 0], [1, 1]] and values[:, 0].tolist() == [1, 3]  # the NaN row dropped
    assert pp.from_file("s.dat", lambda p: pp.steady(p, 2))(tmp_path)[1].shape == (2, 1)
    with pytest.raises(FileNotFoundError, match="pass --pinnacle"):
        pp.from_file("s.dat", lambda p: pp.steady(p, 2))(None)


def test_burgers_reference_from_the_mirror(tmp_path):
    if not (MIRROR / "HEAD").exists():
        pytest.skip(f"the PINNacle mirror {MIRROR} is not on this machine")
    blob = subprocess.run(["git", "-C", str(MIRROR), "show", "HEAD:ref/burgers1d.dat"], capture_output=True)
    if blob.returncode:
        pytest.skip("ref/burgers1d.dat is not in the mirror")
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "burgers1d.dat").write_bytes(blob.stdout)
    points, values = pp.CASES["burgers1d"].reference(tmp_path)
    assert points.shape == (101 * 11, 2) and values.shape == (101 * 11, 1)
    start = points[:, 1] == 0
    assert np.abs(values[start, 0] + np.sin(PI * points[start, 0])).max() < 1e-5
    assert pp.l2re(np.zeros_like(values), values) == pytest.approx(1.0)
    assert pp.l2re(values, values) == 0.0
    # the COMSOL reference against the exact (Cole-Hopf) solution: the metric's floor on this problem
    exact = pp.CASES["burgers1d"].exact
    assert exact is not None and 5e-3 < pp.l2re(values, exact(points)) < 3e-2
