"""The problems of bench/pinn_gallery.py: DeepXDE's example gallery, each written twice.

Each problem's symgrad side is a script a user can copy and run, tutorials/gallery/<name>.py; its
DeepXDE side lives in bench/gallery_cases/, one module a kind (common.py: the records and the
scripts' loader; odes.py, poisson_1d.py, elliptic_2d.py, time_dependent.py, inverse.py); this
module is their index, :data:`PROBLEMS`.

Each problem is a pair of functions a user would write:

- ``<name>_deepxde(dde)``: DeepXDE's example (examples/pinn_forward/<name>.py or
  examples/pinn_inverse/<name>.py in github.com/lululxvi/deepxde) as shipped, for the PyTorch
  backend: its geometry, conditions, point counts, network, initializer, loss weights, learning
  rate and schedule, and its Adam steps then (where the example has it) L-BFGS. It returns the
  model and that recipe (:class:`DeepXDE`); the gallery trains it under a wall-time cap.
- ``build(seed)`` in tutorials/gallery/<name in lower case>.py: the same problem with
  ``symgrad.pinn`` (its geometry, conditions, ``ResidualLoss``): the same network (layer sizes,
  activation, initializer), the same point counts (DeepXDE evaluates the equation at its domain,
  boundary and initial points and its anchors, and the conditions at those of them on their part
  of the boundary; so do these), the same loss weights. It returns the terms and the weights to
  train (here as a :class:`Symgrad`); the gallery hands them to ``symgrad.pinn.solve`` with no
  other settings. Conditions are built into u (``hard_constraint`` or a written-out transform)
  only where DeepXDE's example has an output transform. Points: symgrad's scrambled Halton
  (DeepXDE's default is Hammersley, also low-discrepancy).

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
  908 of 1080 unchanged); symgrad weights 1 (``solve`` balances terms itself where they differ) and
  gives the equation's term its domain (``solve`` draws new points by residual once the residual
  between the points is far above that at them).
- Poisson_multiscale_1d: DeepXDE 1.15's PyTorch backend has no MsFFN (the example's network, sigmas
  1 and 10): DeepXDE runs an FNN of the same sizes, symgrad the example's network
  (``MultiScaleFourierMLP``); DeepXDE keeps its per-step redrawing of its random points.
- Kovasznay_flow, Beltrami_flow: the test sets are a 101 x 101 grid (DeepXDE: 100,000 random
  points) and the example's 10 x 10 x 10 grid at t = 0 and t = 1; Beltrami's error is the
  velocity's, as the example reports it (no condition fixes the pressure's constant).
- Poisson_Lshape: DeepXDE has no exact solution (it plots against a stored FEM field); the reference
  here is a 5-point finite-difference solve on a 513 x 513 grid with Richardson extrapolation from
  257 x 257 (about 1e-4 relative L2 from the exact field, by the two grids' difference).
- Lorenz_inverse: DeepXDE reads 25 observations from examples/dataset/Lorenz.npz (a Lorenz
  trajectory with C = 10, 15, 8/3 at an ODE solver's step times); here 25 equally spaced
  observations of the same trajectory come from ``solve_ivp`` (rtol 1e-10).
- Lotka_Volterra: the PyTorch version of the example's input transform (sin t; the TensorFlow
  version adds sin 2t .. sin 6t); the example's output transform fixes the initial values in both.
  symgrad's side gives the equations as the example's ``func`` for solve_ivp through
  ``ode_residual``, which fits both populations' residuals divided by them (they keep their
  sign); DeepXDE's side keeps the example's absolute residuals.
- Klein_Gordon: the example names no PyTorch backend only because it imports tf.cos; the
  backend's cos is used.
- elasticity_plate: DeepXDE's parallel network (PFNN, five subnetworks [2, 40 x 4, 1]) is written
  as five ``MLP``s on the symgrad side; the test set is a 101 x 101 grid (DeepXDE: 100 random
  points) and the error the five outputs' stacked.
- Allen_Cahn, reaction_inverse: DeepXDE reads examples/dataset/Allen_Cahn.mat and reaction.npz;
  here the reference (and reaction_inverse's observations, at k_f = 0.1 and D = 2) come from a
  finite-difference solve integrated by ``solve_ivp`` (BDF), 1.6e-4 and 5e-4-6e-4 from those files.
- black_scholes_call: DeepXDE draws Sobol points; symgrad scrambled Halton as everywhere.
- Poisson_Lshape in DeepXDE float32: DeepXDE 1.15's ``Polygon.random_boundary_points`` returns
  float64 points, which the PyTorch backend refuses next to float32 weights; the points are cast.
"""

from __future__ import annotations

from gallery_cases.common import DeepXDE, Problem, Symgrad, script, symgrad_side
from gallery_cases.elliptic_2d import (
    elasticity_plate_deepxde,
    helmholtz_dirichlet_2d_deepxde,
    helmholtz_neumann_2d_hole_deepxde,
    kovasznay_flow_deepxde,
    laplace_disk_deepxde,
    poisson_lshape_deepxde,
)
from gallery_cases.inverse import (
    brinkman_forchheimer_deepxde,
    diffusion_1d_inverse_deepxde,
    diffusion_reaction_rate_deepxde,
    elliptic_inverse_field_deepxde,
    lorenz_inverse_deepxde,
    reaction_inverse_deepxde,
)
from gallery_cases.odes import euler_beam_deepxde, lotka_volterra_deepxde, ode_2nd_deepxde, ode_system_deepxde
from gallery_cases.poisson_1d import (
    poisson_dirichlet_1d_deepxde,
    poisson_exact_bc_deepxde,
    poisson_multiscale_1d_deepxde,
    poisson_neumann_1d_deepxde,
    poisson_periodic_1d_deepxde,
    poisson_robin_1d_deepxde,
)
from gallery_cases.time_dependent import (
    allen_cahn_deepxde,
    beltrami_flow_deepxde,
    black_scholes_call_deepxde,
    burgers_deepxde,
    diffusion_1d_deepxde,
    diffusion_1d_exact_bc_deepxde,
    diffusion_reaction_deepxde,
    heat_deepxde,
    klein_gordon_deepxde,
    wave_1d_deepxde,
)


# =====================================================================================
def problem(file: str, deepxde, note: str = "") -> Problem:
    """The problem of tutorials/gallery/<file>.py (its build, test points, exact solution and, for
    an inverse problem, the unknowns' true values ``TRUTH``) with its DeepXDE builder."""
    module = script(file)
    truth = dict(getattr(module, "TRUTH", {}))
    return Problem(deepxde, symgrad_side(module), module.test_points, module.exact, truth, note)


PROBLEMS: dict[str, Problem] = {
    "ode_system": problem("ode_system", ode_system_deepxde),
    "ode_2nd": problem("ode_2nd", ode_2nd_deepxde),
    "Lotka_Volterra": problem(
        "lotka_volterra", lotka_volterra_deepxde, "reference: solve_ivp; the PyTorch input transform sin(t)"
    ),
    "Poisson_Dirichlet_1d": problem("poisson_dirichlet_1d", poisson_dirichlet_1d_deepxde),
    "Poisson_Dirichlet_1d_exactBC": problem("poisson_dirichlet_1d_exact_bc", poisson_exact_bc_deepxde),
    "Poisson_Neumann_1d": problem("poisson_neumann_1d", poisson_neumann_1d_deepxde),
    "Poisson_Robin_1d": problem("poisson_robin_1d", poisson_robin_1d_deepxde),
    "Poisson_periodic_1d": problem("poisson_periodic_1d", poisson_periodic_1d_deepxde),
    "Poisson_multiscale_1d": problem(
        "poisson_multiscale_1d",
        poisson_multiscale_1d_deepxde,
        "symgrad: the example's MsFFN (MultiScaleFourierMLP); DeepXDE's PyTorch backend has none: FNN [1, 100, 100, 100, 1]",
    ),
    "Poisson_Lshape": problem(
        "poisson_lshape",
        poisson_lshape_deepxde,
        "reference: finite differences (h = 1/256, Richardson), about 1e-4",
    ),
    "Laplace_disk": problem("laplace_disk", laplace_disk_deepxde),
    "Helmholtz_Dirichlet_2d": problem("helmholtz_dirichlet_2d", helmholtz_dirichlet_2d_deepxde),
    "Helmholtz_Neumann_2d_hole": problem(
        "helmholtz_neumann_2d_hole",
        helmholtz_neumann_2d_hole_deepxde,
        "test grid: the example's, less the points in the hole",
    ),
    "Kovasznay_flow": problem(
        "kovasznay_flow",
        kovasznay_flow_deepxde,
        "test set: a 101 x 101 grid (DeepXDE: 100,000 random points)",
    ),
    "elasticity_plate": problem(
        "elasticity_plate",
        elasticity_plate_deepxde,
        "test set: a 101 x 101 grid (DeepXDE: 100 random points); error: the five outputs stacked",
    ),
    "heat": problem("heat", heat_deepxde),
    "diffusion_1d": problem("diffusion_1d", diffusion_1d_deepxde),
    "diffusion_1d_exactBC": problem("diffusion_1d_exact_bc", diffusion_1d_exact_bc_deepxde),
    "diffusion_reaction": problem("diffusion_reaction", diffusion_reaction_deepxde),
    "wave_1d": problem(
        "wave_1d",
        wave_1d_deepxde,
        "symgrad: the example's STMsFFN (SpatioTemporalFourierMLP); DeepXDE's PyTorch backend has none: "
        "FNN [2, 100, 100, 100, 1]",
    ),
    "Klein_Gordon": problem("klein_gordon", klein_gordon_deepxde),
    "Beltrami_flow": problem(
        "beltrami_flow",
        beltrami_flow_deepxde,
        "error: the velocity (u, v, w) on the example's grid at t = 0 and t = 1 (p is fixed only up to a constant)",
    ),
    "Euler_beam": problem("euler_beam", euler_beam_deepxde),
    "Burgers": problem("burgers", burgers_deepxde, "reference: Cole-Hopf"),
    "Allen_Cahn": problem(
        "allen_cahn",
        allen_cahn_deepxde,
        "reference: finite differences (3,201 nodes) and solve_ivp; 1.6e-4 from the example's Allen_Cahn.mat",
    ),
    "black_scholes_call": problem("black_scholes_call", black_scholes_call_deepxde),
    "Lorenz_inverse": problem(
        "lorenz_inverse",
        lorenz_inverse_deepxde,
        "observations: 25 from solve_ivp (DeepXDE: Lorenz.npz); error: the trajectory",
    ),
    "diffusion_1d_inverse": problem("diffusion_1d_inverse", diffusion_1d_inverse_deepxde),
    "elliptic_inverse_field": problem(
        "elliptic_inverse_field",
        elliptic_inverse_field_deepxde,
        "error: u and q stacked (q dominates); both also shown",
    ),
    "brinkman_forchheimer": problem("brinkman_forchheimer", brinkman_forchheimer_deepxde),
    "diffusion_reaction_rate": problem(
        "diffusion_reaction_rate",
        diffusion_reaction_rate_deepxde,
        "observations: solve_bvp at tol 1e-8 (the example: its default 1e-3); error: u and k stacked",
    ),
    "reaction_inverse": problem(
        "reaction_inverse",
        reaction_inverse_deepxde,
        "observations and reference: finite differences and solve_ivp at k_f = 0.1, D = 2 "
        "(DeepXDE: reaction.npz, 5e-4-6e-4 from it); error: C_A and C_B stacked",
    ),
}

# how each error is split into fields for the extra line (problems with several outputs worth naming)
FIELDS: dict[str, tuple[str, ...]] = {
    "elliptic_inverse_field": ("u", "q"),
    "Kovasznay_flow": ("u", "v", "p"),
    "Beltrami_flow": ("u", "v", "w"),
    "elasticity_plate": ("u_x", "u_y", "s_xx", "s_yy", "s_xy"),
    "reaction_inverse": ("C_A", "C_B"),
    "diffusion_reaction_rate": ("u", "k"),
}

__all__ = ["DeepXDE", "FIELDS", "PROBLEMS", "Problem", "Symgrad"]
