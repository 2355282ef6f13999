"""The PINNacle benchmark's problems (Hao et al., NeurIPS 2024) written with ``symgrad.pinn``.

Each :class:`Case` is one row of the paper's tables: the PDE, its domain and its conditions,
written here from the mathematics (the equations, coefficients, domains and boundary data of
PINNacle's ``src/pde/*.py``; none of its code), and where its reference comes from: a COMSOL
file of PINNacle's ``ref/`` folder (read by :func:`steady` or :func:`transient`), or the exact
solution PINNacle itself measures against (sampled on a grid here). ``build(seed, hidden)``
returns the loss terms, the weights and the solution ``u`` (a function of the coordinates, a
tuple for several outputs); bench/pinnacle.py hands the terms to ``symgrad.pinn.solve``.

The cases live in bench/pinnacle_cases/, one module a PDE family (references.py: the metric and
the reference readers; pieces.py: the records and shared pieces); this module is their index,
:data:`CASES`, and re-exports what bench/pinnacle.py and the tests read from it.

What every case shares, and where it departs from PINNacle (``Case.note`` says more):

- Soft conditions, as PINNacle's vanilla PINN: one term for the PDE (one per equation of a
  system), one per condition; all weights 1 (``solve`` balances terms by gradient norms itself).
- One network for every case: an MLP ``[inputs, *hidden, outputs]`` (tanh, Glorot normal),
  ``hidden`` = (32, 32, 32) unless told (PINNacle: 100 x 5 trained 20,000 Adam steps on a GPU);
  the inputs are mapped affinely from the domain's bounding box to [-1, 1] first.
- Fewer points than PINNacle's 8192 domain + 2048 boundary (+ 2048 initial), 4x for some; a
  2-core CPU's budget.
- L2RE as PINNacle computes it (:func:`l2re`): over every reference point and every output together.
- The inverse problems' noisy data are drawn with the seed (PINNacle draws them unseeded).
"""

from __future__ import annotations

from pinnacle_cases.burgers import burgers1d, burgers1d_pde
from pinnacle_cases.heat import (
    heat_longtime,
    heat_longtime_pde,
    heat_multiscale,
    heat_multiscale_exact,
    heat_multiscale_pde,
)
from pinnacle_cases.high_dim import (
    NAMES5,
    ball_points,
    heat_nd,
    heat_nd_pde,
    heat_nd_value,
    poisson_nd,
    poisson_nd_exact,
    poisson_nd_pde,
)
from pinnacle_cases.inverse import (
    heat_inv,
    heat_inv_exact,
    heat_inv_pde,
    poisson_inv,
    poisson_inv_exact,
    poisson_inv_pde,
)
from pinnacle_cases.navier_stokes import navier_stokes, ns_backstep, ns_lid_driven
from pinnacle_cases.pieces import HIDDEN, Ball, Built, Case, with_holes
from pinnacle_cases.poisson import (
    CLASSIC_DISKS,
    laplace_pde,
    poisson2d_classic,
    poisson_boltzmann2d,
    poisson_boltzmann2d_pde,
)
from pinnacle_cases.references import exact, exact_on, from_file, l2re, steady, transient
from pinnacle_cases.wave import wave1d, wave1d_pde, wave_exact

from symgrad.pinn import Burgers, neumann

CASES: dict[str, Case] = {
    "burgers1d": Case(
        "Burgers 1d-C",
        burgers1d,
        from_file("burgers1d.dat", lambda p: transient(p, 1)),
        ("ref/burgers1d.dat",),
        "PINNacle's COMSOL reference is itself 1.3e-2 (L2RE) from the exact solution (Cole-Hopf)",
        lambda points: Burgers().exact(points[:, 0], points[:, 1])[:, None],
    ),
    "poisson2d_classic": Case(
        "Poisson 2d-C",
        poisson2d_classic,
        from_file("poisson1_cg_data.dat", lambda p: steady(p, 2)),
        ("ref/poisson1_cg_data.dat",),
        "PINNacle's default reference for Poisson2D_Classic (ref/poisson_classic.dat is another export)",
    ),
    "poisson_boltzmann2d": Case(
        "Poisson 2d-CG",
        poisson_boltzmann2d,
        from_file("poisson_boltzmann2d.dat", lambda p: steady(p, 2)),
        ("ref/poisson_boltzmann2d.dat",),
    ),
    "heat_multiscale": Case(
        "Heat 2d-MS",
        heat_multiscale,
        exact_on((0, 0, 0), (1, 1, 5), (60, 30, 12), heat_multiscale_exact),
        note="exact solution on a 60 x 30 x 12 interior grid (PINNacle: 20000 uniform points)",
    ),
    "heat_longtime": Case(
        "Heat 2d-LT",
        heat_longtime,
        from_file("heat_longtime.dat", lambda p: transient(p, 2)),
        ("ref/heat_longtime.dat",),
    ),
    "ns_lid_driven": Case(
        "NS 2d-C",
        ns_lid_driven,
        from_file("lid_driven_a4.dat", lambda p: steady(p, 2, 3)),
        ("ref/lid_driven_a4.dat",),
        "L2RE over u, v, p together, as PINNacle",
    ),
    "ns_backstep": Case(
        "NS 2d-CG",
        ns_backstep,
        from_file("ns_0_obstacle.dat", lambda p: steady(p, 2, 3)),
        ("ref/ns_0_obstacle.dat",),
        "L2RE over u, v, p together, as PINNacle",
    ),
    "wave1d": Case(
        "Wave 1d-C",
        wave1d,
        exact_on((0, 0), (1, 1), (50, 50), wave_exact),
        note="PINNacle's 'Neumann at t = 0' on the (x, t) rectangle is u_t(x, 0) = 0",
    ),
    "poisson_nd": Case(
        "High dim PNd",
        poisson_nd,
        exact_on([0] * 5, [1] * 5, [7] * 5, poisson_nd_exact),
        note="7^5 interior grid",
    ),
    "heat_nd": Case("High dim HNd", heat_nd, ball_points, note="20000 Halton points of ball x time"),
    "poisson_inv": Case(
        "Inverse PInv",
        poisson_inv,
        exact_on((0, 0), (1, 1), (50, 50), poisson_inv_exact),
        note=(
            "PINNacle's source term has (2x + 1), (2y + 1) where the reference (u, a) needs (2x - 1), (2y - 1): "
            "ported as benchmarked, so no (u, a) fits the data and the PDE exactly"
        ),
    ),
    "heat_inv": Case(
        "Inverse HInv",
        heat_inv,
        exact_on((-1, -1, 0), (1, 1, 1), (28, 28, 26), heat_inv_exact),
        ("ref/heatinv_points.dat",),
        "data points from ref/heatinv_points.dat; exact (u, a) on a 28 x 28 x 26 grid",
    ),
}

# PINNacle problems not ported, and why
NOT_PORTED = {
    "Burgers 2d-C": "ref/burgers2d_*.dat absent (>= 4 MiB, not in the mirror)",
    "Poisson 3d-CG": "ref/poisson_3d.dat absent",
    "Poisson 2d-MS": "ref/poisson_manyarea.dat absent",
    "Heat 2d-VC": "its coefficient field ref/heat_2d_coef_256.dat absent (a random field; the PNG is a colour map)",
    "Heat 2d-CG": "ref/heat_complex.dat absent",
    "NS 2d-LT": "ref/ns_long.dat absent",
    "Wave 2d-CG": "ref/wave_darcy.dat and ref/darcy_2d_coef_256.dat absent",
    "Wave 2d-MS": (
        "PINNacle's 'exact' solution does not solve its PDE (u_tt = -pi^2 u, u_xx + 2 u_yy = +pi^2 u) and no "
        "initial velocity is set"
    ),
    "Chaotic GS": "ref/grayscott.dat absent",
    "Chaotic KS": "ref/Kuramoto_Sivashinsky.dat absent",
}


# what bench/pinnacle.py and the tests (test_pinnacle_problems.py) read from this module
__all__ = [
    "CASES",
    "CLASSIC_DISKS",
    "HIDDEN",
    "NAMES5",
    "NOT_PORTED",
    "Ball",
    "Built",
    "Case",
    "burgers1d",
    "burgers1d_pde",
    "exact",
    "from_file",
    "heat_inv_pde",
    "heat_longtime_pde",
    "heat_multiscale_exact",
    "heat_multiscale_pde",
    "heat_nd_pde",
    "heat_nd_value",
    "l2re",
    "laplace_pde",
    "navier_stokes",
    "neumann",
    "poisson2d_classic",
    "poisson_boltzmann2d_pde",
    "poisson_inv_exact",
    "poisson_inv_pde",
    "poisson_nd_exact",
    "poisson_nd_pde",
    "steady",
    "transient",
    "wave1d_pde",
    "wave_exact",
    "with_holes",
]
