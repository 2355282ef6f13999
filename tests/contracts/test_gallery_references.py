"""The gallery's computed references (tutorials/gallery/allen_cahn.py, reaction_inverse.py): each
against what the equation itself says, independently of the finite-difference solve.

(Against DeepXDE's stored files, on this project's VM: Allen_Cahn.mat 1.6e-4, reaction.npz
5e-4-6e-4 relative L2; bench/RESULTS.md, stop 63. The files are not shipped with DeepXDE's package.)
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("scipy")

from tests.contracts.test_gallery_scripts import GALLERY, load  # noqa: E402


def script(name: str):
    return load(GALLERY / f"{name}.py")


def relative(a, b) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def test_allen_cahn_reference_meets_its_conditions_stays_in_minus_one_one_and_converges():
    allen_cahn = script("allen_cahn")
    x, u = allen_cahn.reference()
    assert np.array_equal(u[[0, -1]], -np.ones((2, u.shape[1])))
    np.testing.assert_allclose(u[:, 0], x**2 * np.cos(np.pi * x), atol=1e-15)
    # |u0| <= 1 keeps |u| <= 1 (5 (u - u^3) pulls towards +-1): a wrong sign would leave the band
    assert np.abs(u).max() <= 1 + 1e-6
    assert np.abs(u[:, -1]).min() < 0.2 and (np.abs(np.abs(u[:, -1]) - 1) < 0.05).mean() > 0.5  # fronts
    x_half, u_half = allen_cahn.reference(1600)
    assert relative(u[::2], u_half) < 3e-5  # second order: 7.7e-6 measured


def test_reaction_reference_c_b_minus_two_c_a_is_the_heat_equations_fourier_solution():
    """C_B - 2 C_A loses the reaction (C_B's is twice C_A's): w_t = 1e-3 D w_xx, w = -(1 - x) at
    the walls, -e^(-20 x) at t = 0; its sine series is computed here by quadrature."""
    reaction = script("reaction_inverse")
    c_a, c_b = reaction.reference()
    x, t = reaction.PLACES, reaction.TIMES
    kappa = 1e-3 * reaction.TRUTH["D"]
    fine = np.linspace(0, 1, 20001)
    start = -np.exp(-20 * fine) + (1 - fine)  # w + (1 - x): zero at both walls
    modes = np.arange(1, 400)
    weights = np.full(fine.size, fine[1])
    weights[[0, -1]] /= 2  # trapezoid rule
    b = 2 * (np.sin(np.pi * np.outer(modes, fine)) * start) @ weights
    series = (np.sin(np.pi * np.outer(x, modes)) * b) @ np.exp(-kappa * np.pi**2 * np.outer(modes**2, t))
    heat = series - (1 - x)[:, None]
    w = c_b - 2 * c_a
    assert (
        np.abs(w - heat)[:, 1:].max() < 5e-5 and relative(w[:, 1:], heat[:, 1:]) < 2e-5
    )  # 1% off in D: 3e-3
    assert c_a.min() > -1e-9 and c_b.max() <= 1 + 1e-9  # concentrations stay in [0, 1]
    coarse_a, coarse_b = reaction.reference(400)
    assert relative(coarse_a, c_a) < 3e-5 and relative(coarse_b, c_b) < 6e-5


def test_diffusion_reaction_rate_reference_is_the_linear_problems_finite_difference_solution():
    """l u'' - k u = sin(2 pi x), u(0) = u(1) = 0 is linear: a 4,000-interval finite-difference
    solve (one sparse system) agrees with solve_bvp's u to its h^2."""
    from scipy.sparse import diags
    from scipy.sparse.linalg import spsolve

    problem = script("diffusion_reaction_rate")
    n = 4000
    x = np.linspace(0, 1, n + 1)[1:-1]
    system = problem.L * diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(n - 1, n - 1)) * n**2 - diags(
        problem.rate(x)
    )
    u = spsolve(system.tocsc(), np.sin(2 * np.pi * x))
    assert relative(problem.exact(x[:, None])[:, 0], u) < 1e-6
    np.testing.assert_allclose(problem.exact(np.array([[0.0], [1.0]]))[:, 0], 0.0, atol=1e-12)
