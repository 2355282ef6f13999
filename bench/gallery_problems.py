"""The problems of bench/pinn_gallery.py: DeepXDE's example gallery, each written twice.

The problems live in bench/gallery_cases/, one module a kind (common.py: the records and shared
helpers; odes.py, poisson_1d.py, elliptic_2d.py, time_dependent.py, inverse.py); this module is
their index, :data:`PROBLEMS`.

Each problem is a pair of functions a user would write:

- ``<name>_deepxde(dde)``: DeepXDE's example (examples/pinn_forward/<name>.py or
  examples/pinn_inverse/<name>.py in github.com/lululxvi/deepxde) as shipped, for the PyTorch
  backend: its geometry, conditions, point counts, network, initializer, loss weights, learning
  rate and schedule, and its Adam steps then (where the example has it) L-BFGS. It returns the
  model and that recipe (:class:`DeepXDE`); the gallery trains it under a wall-time cap.
- ``<name>_symgrad(seed)``: the same problem with ``symgrad.pinn`` (its geometry, conditions,
  ``ResidualLoss``): the same network (layer sizes, activation, initializer), the same point
  counts (DeepXDE evaluates the equation at its domain, boundary and initial points and its
  anchors, and the conditions at those of them on their part of the boundary; so do these), the
  same loss weights. It returns the terms and the weights to train (:class:`Symgrad`); the gallery
  hands them to ``symgrad.pinn.solve`` with no other settings. Conditions are built into u
  (``hard_constraint`` or a written-out transform) only where DeepXDE's example has an output
  transform. Points: symgrad's scrambled Halton (DeepXDE's default is Hammersley, also
  low-discrepancy).

Each :class:`Problem` also holds a test set and the exact solution there (or an independently
computed reference: ``scipy.integrate.solve_ivp`` for the ODE systems, a finite-difference solve
for the L-shape, Cole-Hopf quadrature for Burgers), and for inverse problems the true values of the
unknowns. Departures from the examples, also listed in ``Problem.note``:

- wave_1d: DeepXDE's example uses a spatio-temporal multi-scale Fourier feature network (STMsFFN,
  sigmas 1 in x and 1, 10 in t), which DeepXDE 1.15's PyTorch backend lacks: DeepXDE runs an FNN of
  the same sizes, [2, 100, 100, 100, 1] tanh, symgrad the example's network
  (``SpatioTemporalFourierMLP``, checked against DeepXDE's TensorFlow STMsFFN to 1e-12), both after
  the example's input scaling. DeepXDE keeps its 5 / initial-loss weights, schedule and per-step
  resampling (with its default Hammersley points that redraws the same domain and initial points:
  908 of 1080 unchanged); symgrad weights 1 (``solve`` balances terms itself where they differ).
- Poisson_Lshape: DeepXDE has no exact solution (it plots against a stored FEM field); the reference
  here is a 5-point finite-difference solve on a 513 x 513 grid with Richardson extrapolation from
  257 x 257 (about 1e-4 relative L2 from the exact field, by the two grids' difference).
- Lorenz_inverse: DeepXDE reads 25 observations from examples/dataset/Lorenz.npz (a Lorenz
  trajectory with C = 10, 15, 8/3 at an ODE solver's step times); here 25 equally spaced
  observations of the same trajectory come from ``solve_ivp`` (rtol 1e-10).
- Lotka_Volterra: the PyTorch version of the example's input transform (sin t; the TensorFlow
  version adds sin 2t .. sin 6t); the example's output transform fixes the initial values in both.
- Klein_Gordon: the example names no PyTorch backend only because it imports tf.cos; the
  backend's cos is used.
- Poisson_Lshape in DeepXDE float32: DeepXDE 1.15's ``Polygon.random_boundary_points`` returns
  float64 points, which the PyTorch backend refuses next to float32 weights; the points are cast.
"""

from __future__ import annotations

import numpy as np
from gallery_cases.common import DeepXDE, Problem, Symgrad, grid
from gallery_cases.elliptic_2d import (
    K1,
    K2,
    helmholtz_dirichlet_2d_deepxde,
    helmholtz_dirichlet_2d_symgrad,
    helmholtz_exact,
    helmholtz_hole_test,
    helmholtz_neumann_2d_hole_deepxde,
    helmholtz_neumann_2d_hole_symgrad,
    laplace_disk_deepxde,
    laplace_disk_exact,
    laplace_disk_symgrad,
    lshape_exact,
    lshape_reference,
    poisson_lshape_deepxde,
    poisson_lshape_symgrad,
)
from gallery_cases.inverse import (
    LORENZ_C,
    diffusion_1d_inverse_deepxde,
    diffusion_1d_inverse_symgrad,
    elliptic_exact,
    elliptic_inverse_field_deepxde,
    elliptic_inverse_field_symgrad,
    lorenz_exact,
    lorenz_inverse_deepxde,
    lorenz_inverse_symgrad,
)
from gallery_cases.odes import (
    beam_exact,
    euler_beam_deepxde,
    euler_beam_symgrad,
    lotka_volterra_deepxde,
    lotka_volterra_exact,
    lotka_volterra_symgrad,
    ode_2nd_deepxde,
    ode_2nd_exact,
    ode_2nd_symgrad,
    ode_system_deepxde,
    ode_system_exact,
    ode_system_symgrad,
)
from gallery_cases.poisson_1d import (
    poisson_dirichlet_1d_deepxde,
    poisson_dirichlet_1d_symgrad,
    poisson_exact_bc_deepxde,
    poisson_exact_bc_exact,
    poisson_exact_bc_symgrad,
    poisson_neumann_1d_deepxde,
    poisson_neumann_1d_symgrad,
    poisson_periodic_1d_deepxde,
    poisson_periodic_1d_symgrad,
    poisson_robin_1d_deepxde,
    poisson_robin_1d_symgrad,
    sin_pi,
    square_plus,
)
from gallery_cases.time_dependent import (
    burgers_deepxde,
    burgers_exact,
    burgers_symgrad,
    burgers_test,
    diffusion_1d_deepxde,
    diffusion_1d_exact_bc_deepxde,
    diffusion_1d_exact_bc_symgrad,
    diffusion_1d_symgrad,
    diffusion_exact,
    diffusion_reaction_deepxde,
    diffusion_reaction_exact,
    diffusion_reaction_symgrad,
    heat_deepxde,
    heat_exact,
    heat_symgrad,
    klein_gordon_deepxde,
    klein_gordon_exact,
    klein_gordon_symgrad,
    wave_1d_deepxde,
    wave_1d_symgrad,
    wave_exact,
)


# =====================================================================================
def _linspace_test(lo, hi, n):
    return lambda: np.linspace(lo, hi, n)[:, None]


def _grid_test(x, t):
    return lambda: grid(x, t)


PROBLEMS: dict[str, Problem] = {
    "ode_system": Problem(
        ode_system_deepxde, ode_system_symgrad, _linspace_test(0, 10, 100), ode_system_exact
    ),
    "ode_2nd": Problem(ode_2nd_deepxde, ode_2nd_symgrad, _linspace_test(0, 0.25, 500), ode_2nd_exact),
    "Lotka_Volterra": Problem(
        lotka_volterra_deepxde,
        lotka_volterra_symgrad,
        _linspace_test(0, 1, 100),
        lotka_volterra_exact,
        note="reference: solve_ivp; the PyTorch input transform sin(t)",
    ),  # fmt: skip
    "Poisson_Dirichlet_1d": Problem(
        poisson_dirichlet_1d_deepxde, poisson_dirichlet_1d_symgrad, _linspace_test(-1, 1, 100), sin_pi
    ),
    "Poisson_Dirichlet_1d_exactBC": Problem(
        poisson_exact_bc_deepxde,
        poisson_exact_bc_symgrad,
        _linspace_test(0, np.pi, 400),
        poisson_exact_bc_exact,
    ),
    "Poisson_Neumann_1d": Problem(
        poisson_neumann_1d_deepxde, poisson_neumann_1d_symgrad, _linspace_test(-1, 1, 100), square_plus
    ),
    "Poisson_Robin_1d": Problem(
        poisson_robin_1d_deepxde, poisson_robin_1d_symgrad, _linspace_test(-1, 1, 100), square_plus
    ),
    "Poisson_periodic_1d": Problem(
        poisson_periodic_1d_deepxde, poisson_periodic_1d_symgrad, _linspace_test(-1, 1, 100), sin_pi
    ),
    "Poisson_Lshape": Problem(
        poisson_lshape_deepxde,
        poisson_lshape_symgrad,
        lambda: lshape_reference()[0],
        lshape_exact,
        note="reference: finite differences (h = 1/256, Richardson), about 1e-4",
    ),  # fmt: skip
    "Laplace_disk": Problem(
        laplace_disk_deepxde,
        laplace_disk_symgrad,
        _grid_test(np.linspace(0, 1, 100), np.linspace(0, 2 * np.pi, 100)),
        laplace_disk_exact,
    ),  # fmt: skip
    "Helmholtz_Dirichlet_2d": Problem(
        helmholtz_dirichlet_2d_deepxde,
        helmholtz_dirichlet_2d_symgrad,
        _grid_test(np.linspace(0, 1, 100), np.linspace(0, 1, 100)),
        helmholtz_exact(K2),
    ),  # fmt: skip
    "Helmholtz_Neumann_2d_hole": Problem(
        helmholtz_neumann_2d_hole_deepxde,
        helmholtz_neumann_2d_hole_symgrad,
        helmholtz_hole_test,
        helmholtz_exact(K1),
        note="test grid: the example's, less the points in the hole",
    ),  # fmt: skip
    "heat": Problem(
        heat_deepxde, heat_symgrad, _grid_test(np.linspace(0, 1, 256), np.linspace(0, 1, 201)), heat_exact
    ),
    "diffusion_1d": Problem(
        diffusion_1d_deepxde,
        diffusion_1d_symgrad,
        _grid_test(np.linspace(-1, 1, 100), np.linspace(0, 1, 100)),
        diffusion_exact,
    ),  # fmt: skip
    "diffusion_1d_exactBC": Problem(
        diffusion_1d_exact_bc_deepxde,
        diffusion_1d_exact_bc_symgrad,
        _grid_test(np.linspace(-1, 1, 100), np.linspace(0, 1, 100)),
        diffusion_exact,
    ),  # fmt: skip
    "diffusion_reaction": Problem(
        diffusion_reaction_deepxde,
        diffusion_reaction_symgrad,
        _grid_test(np.linspace(-np.pi, np.pi, 200), np.linspace(0, 1, 100)),
        diffusion_reaction_exact,
    ),  # fmt: skip
    "wave_1d": Problem(
        wave_1d_deepxde,
        wave_1d_symgrad,
        _grid_test(np.linspace(0, 1, 100), np.linspace(0, 1, 100)),
        wave_exact,
        note="symgrad: the example's STMsFFN (SpatioTemporalFourierMLP); DeepXDE's PyTorch backend has none: "
        "FNN [2, 100, 100, 100, 1]",
    ),  # fmt: skip
    "Klein_Gordon": Problem(
        klein_gordon_deepxde,
        klein_gordon_symgrad,
        _grid_test(np.linspace(-1, 1, 256), np.linspace(0, 10, 256)),
        klein_gordon_exact,
    ),  # fmt: skip
    "Euler_beam": Problem(euler_beam_deepxde, euler_beam_symgrad, _linspace_test(0, 1, 100), beam_exact),
    "Burgers": Problem(
        burgers_deepxde, burgers_symgrad, burgers_test, burgers_exact, note="reference: Cole-Hopf"
    ),
    "Lorenz_inverse": Problem(
        lorenz_inverse_deepxde,
        lorenz_inverse_symgrad,
        _linspace_test(0, 3, 300),
        lorenz_exact,
        truth=dict(zip(("C1", "C2", "C3"), LORENZ_C)),
        note="observations: 25 from solve_ivp (DeepXDE: Lorenz.npz); error: the trajectory",
    ),  # fmt: skip
    "diffusion_1d_inverse": Problem(
        diffusion_1d_inverse_deepxde,
        diffusion_1d_inverse_symgrad,
        _grid_test(np.linspace(-1, 1, 100), np.linspace(0, 1, 100)),
        diffusion_exact,
        truth={"C": 1.0},
    ),  # fmt: skip
    "elliptic_inverse_field": Problem(
        elliptic_inverse_field_deepxde,
        elliptic_inverse_field_symgrad,
        _linspace_test(-1, 1, 500),
        elliptic_exact,
        note="error: u and q stacked (q dominates); both also shown",
    ),  # fmt: skip
}

# how each error is split into fields for the extra line (problems with several outputs worth naming)
FIELDS: dict[str, tuple[str, ...]] = {"elliptic_inverse_field": ("u", "q")}

__all__ = ["DeepXDE", "FIELDS", "PROBLEMS", "Problem", "Symgrad"]
