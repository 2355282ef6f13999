"""PINNacle's problems as written for symgrad.pinn (tutorials/pinnacle/, indexed by
bench/pinnacle_problems.py).

Each PDE residual is evaluated on a function whose residual is known in closed form (an exact
solution: zero; a manufactured u: the residual written out in NumPy here), so a wrong sign or
coefficient in a port fails; the L2RE metric on trivial predictions; and, where the PINNacle mirror
is on this machine, one real reference file (Burgers: its t = 0 slice is -sin(pi x)).
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
from symgrad.pinn import neumann, predict  # noqa: E402

burgers, classic, boltzmann = (
    pp.script("burgers_1d"),
    pp.script("poisson_2d_classic"),
    pp.script("poisson_boltzmann_2d"),
)
multiscale, longtime, wave = pp.script("heat_multiscale"), pp.script("heat_longtime"), pp.script("wave_1d")
poisson_nd, heat_nd = pp.script("poisson_nd"), pp.script("heat_nd")
lid, backstep = pp.script("ns_lid_driven"), pp.script("ns_backstep")
poisson_inv, heat_inv = pp.script("poisson_inverse"), pp.script("heat_inverse")

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
    assert np.abs(at(poisson_nd.pde(u), points)).max() < 1e-10
    assert np.allclose(poisson_nd.exact(*points), at(u, points))


def test_heat_nd_exact_solution_has_zero_residual_and_meets_its_conditions():
    names = heat_nd.NAMES
    domain = heat_nd.domain()
    u = heat_nd.solution
    assert np.abs(at(heat_nd.pde(u), domain.interior(200, "halton", 1))).max() < 1e-9
    flux = neumann(u, domain, heat_nd.solution, inputs=names)
    assert np.abs(at(flux.residual, flux.sample(100, "halton", 2))).max() < 1e-9
    sphere = domain.space.boundary(100, "halton", 4)
    assert np.allclose(np.linalg.norm(sphere, axis=0), 1.0)
    assert np.allclose(domain.space.normals(sphere), sphere)


def test_heat_multiscale_and_wave_exact_solutions_have_zero_residuals():
    heat = lambda x, y, t: (  # noqa: E731
        ops.sin(20 * PI * x) * ops.sin(PI * y) * ops.exp(-(400 / 500**2 + 1) * t)
    )
    points = box_points((0, 0, 0), (1, 1, 5))
    assert np.abs(at(multiscale.pde(heat), points)).max() < 1e-9
    assert np.allclose(at(heat, points), multiscale.exact(*points))

    def standing(x, t):
        return ops.sin(PI * x) * ops.cos(2 * PI * t) + 0.5 * ops.sin(4 * PI * x) * ops.cos(8 * PI * t)

    points = box_points((0, 0), (1, 1))
    assert np.abs(at(wave.pde(standing), points)).max() < 1e-8
    assert np.allclose(at(standing, points), wave.exact(*points))


def test_kovasznay_flow_solves_the_navier_stokes_port():
    """Kovasznay's exact steady Navier-Stokes flow at Re = 1/nu = 100."""
    lam = 50 - math.sqrt(50**2 + 4 * PI**2)
    flow = lambda x, y: (  # noqa: E731
        1 - ops.exp(lam * x) * ops.cos(2 * PI * y),
        lam / (2 * PI) * ops.exp(lam * x) * ops.sin(2 * PI * y),
        (1 - ops.exp(2 * lam * x)) / 2,
    )
    for case in (lid, backstep):  # each script writes the equations out
        residuals = predict(case.navier_stokes(flow, 0.01), box_points((0, 0), (1, 1)))
        assert max(np.abs(r).max() for r in residuals) < 1e-9, case.__name__


def test_heat_inverse_exact_pair_has_zero_residual():
    u = lambda x, y, t: ops.exp(-t) * ops.sin(PI * x) * ops.sin(PI * y)  # noqa: E731
    a = lambda x, y, t: 2 + ops.sin(PI * x) * ops.sin(PI * y) + 0 * t  # noqa: E731
    assert np.abs(at(heat_inv.pde(u, a), box_points((-1, -1, 0), (1, 1, 1)))).max() < 1e-9


def test_poisson_inverse_source_is_pinnacles_own_and_off_by_4_pi_a2_sin():
    """Ported as benchmarked: with the reference (u, a) the residual is 4 pi a^2 sin(pi (x + y))."""
    u = lambda x, y: ops.sin(PI * x) * ops.sin(PI * y)  # noqa: E731
    a = lambda x, y: 1 / (1 + x**2 + y**2 + (x - 1) ** 2 + (y - 1) ** 2)  # noqa: E731
    x, y = points = box_points((0, 0), (1, 1))
    expected = 4 * PI * poisson_inv.exact(x, y)[1] ** 2 * np.sin(PI * (x + y))
    assert np.allclose(at(poisson_inv.pde(u, a), points), expected, atol=1e-9)


# ----- manufactured u: the residual written out independently -----
def test_burgers_residual_and_conditions_on_a_manufactured_u():
    u = lambda x, t: -ops.sin(PI * x) * ops.exp(-t)  # noqa: E731
    x, t = points = box_points((-1, 0), (1, 1))
    v = -np.sin(PI * x) * np.exp(-t)
    expected = (
        -v + v * (-PI * np.cos(PI * x) * np.exp(-t)) - 0.01 / PI * (PI**2 * np.sin(PI * x) * np.exp(-t))
    )
    assert np.allclose(at(burgers.pde(u), points), expected, atol=1e-12)
    (_, interior, domain), (start, at_start), (walls, on_walls) = burgers.build(0, (4,))[0]
    assert np.allclose(at_start[1], 0) and np.allclose(np.abs(on_walls[0]), 1)
    assert interior.shape == (2, 4096) and start.name == "initial" and walls.name == "dirichlet"
    drawn = domain.interior(50, "uniform", 1)  # the equation's domain, where solve draws new points
    assert np.all(np.abs(drawn[0]) <= 1) and np.all((drawn[1] >= 0) & (drawn[1] <= 1))


def test_poisson_residuals_on_manufactured_u():
    harmonic = lambda x, y: x**2 - y**2  # noqa: E731
    assert np.abs(at(classic.pde(harmonic), box_points((-0.5, -0.5), (0.5, 0.5)))).max() < 1e-12
    x, y = points = box_points((-1, -1), (1, 1))
    f = 10 * (1 + x**2 + 16 + y**2) * np.sin(PI * x) * np.sin(4 * PI * y)
    assert np.allclose(at(boltzmann.pde(lambda x, y: x * y), points), 64 * x * y - f, atol=1e-10)


def test_heat_longtime_residual_on_a_manufactured_u():
    x, y, t = points = box_points((0, 0, 0), (1, 1, 100))
    v = x * y * t
    source = 5 * np.sin(v**2) * (1 + 2 * np.sin(PI * t / 4)) * np.sin(4 * PI * x) * np.sin(2 * PI * y)
    got = at(longtime.pde(lambda x, y, t: x * y * t), points)
    assert np.allclose(got, x * y - source, atol=1e-9)


def test_every_case_builds_terms_whose_points_lie_in_its_domain():
    terms = classic.build(0, (4,))[0]
    shape = classic.geometry()
    for term in terms:
        assert shape.contains(term[1]).all()
    assert terms[0][2] is not None and shape.contains(terms[0][2].interior(100, "uniform", 2)).all()
    square, disks = terms[1][1], terms[2][1]
    assert np.all(np.isclose(np.abs(square), 0.5).any(axis=0))
    centres = np.array([c[:2] for c in classic.DISKS])
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
