"""Physics-informed networks: losses compiled to kernels, optimizers, domains, reference problems.

- :mod:`symgrad.pinn.networks`: ``MLP``, ``ModifiedMLP`` and ``ResidualMLP`` of any inputs and outputs
  (random weight factorization as an option), Fourier and periodic input embeddings;
  :mod:`symgrad.pinn.fourier_networks`: multi-scale Fourier feature networks (DeepXDE's MsFFN, STMsFFN); any ``nn.Cell`` or function with Parameters is a network too.
- :mod:`symgrad.pinn.residual_loss`: ``ResidualLoss`` (one term, or one per component of a system;
  ``backend="auto"``: NumPy at once, C compiled in the background), ``predict``; ``laplacian``
  (``symgrad.laplacian``, one forward-Laplacian sweep) and ``derivatives`` (u_x, u_xx, u_xxx.. by
  Taylor mode) come from :mod:`symgrad.autodiff`.
- :mod:`symgrad.pinn.training`: Adam ``train`` with wall-time caps, early stops, callbacks, loss
  balancing by gradient norms and a non-finite guard; :mod:`symgrad.pinn.causal`: ``CausalLoss``
  (causal weights over time slabs); :mod:`symgrad.pinn.checkpoints` (atomic) and :mod:`symgrad.pinn.plots`.
- :mod:`symgrad.pinn.fit`: ``fit(terms, method, params, stop=Stop(...), callbacks=...)``, one entry
  point for Adam, L-BFGS and Levenberg-Marquardt with one stop rule and one ``History``.
- :mod:`symgrad.pinn.solve`: ``solve``, one entry point that picks and chains the methods below.
- :mod:`symgrad.pinn.lbfgs`: L-BFGS by SciPy's L-BFGS-B on the flat weights;
  :mod:`symgrad.pinn.levenberg_marquardt`: damped Gauss-Newton steps from the residuals' Jacobians.
- :mod:`symgrad.pinn.ode`: ``ode_residual``, an ODE's residual from its rates as ``solve_ivp`` takes
  them (a component that keeps its sign is fitted as the equation of its logarithm).
- :mod:`symgrad.pinn.conditions`: Dirichlet, Neumann, Robin (outward normals), periodic, initial and
  observation terms, each a ``Condition`` with ``loss(params)``.
- :mod:`symgrad.pinn.geometry`: intervals, boxes, disks, space x time, time alone (ODEs); uniform, LHS,
  Sobol', Halton points; the geometry protocol. :mod:`symgrad.pinn.polygon`: polygons and triangles;
  :mod:`symgrad.pinn.csg`: union, difference and intersection of any two geometries.
- :mod:`symgrad.pinn.problems`: Burgers, Allen-Cahn (periodic; ETDRK4 reference), Poisson (2-D,
  d-D), heat, KdV, Kovasznay (a system), beam, with exact solutions.
- :mod:`symgrad.pinn.adaptive`: residual-based refinement (RAR) and resampling (RAD), hard constraints.
- :mod:`symgrad.pinn.distributed`: loss and gradient over Dask arrays (one machine or a cluster).
"""

from symgrad.autodiff.api import grad, laplacian  # the same as symgrad.grad and symgrad.laplacian
from symgrad.autodiff.taylor import derivatives
from symgrad.parameter import parameters_of
from symgrad.pinn.adam import Adam
from symgrad.pinn.adaptive import hard_constraint, refine, resample
from symgrad.pinn.causal import CausalLoss
from symgrad.pinn.checkpoints import load_checkpoint, save_checkpoint
from symgrad.pinn.comsol import comsol_steady, comsol_transient, read_comsol
from symgrad.pinn.conditions import Condition, dirichlet, initial, neumann, observations, periodic, robin
from symgrad.pinn.csg import Difference, Intersection, Union
from symgrad.pinn.fit import LBFGS, AdamMethod, LevenbergMarquardt, fit
from symgrad.pinn.fourier_networks import MultiScaleFourierMLP, SpatioTemporalFourierMLP
from symgrad.pinn.geometry import Ball, Box, Disk, Interval, Rectangle, SpaceTime, TimeDomain
from symgrad.pinn.lbfgs import LbfgsResult, flatten, lbfgs, unflatten
from symgrad.pinn.levenberg_marquardt import LevenbergMarquardtResult, levenberg_marquardt
from symgrad.pinn.networks import MLP, FourierFeatures, ModifiedMLP, PeriodicEmbedding, ResidualMLP
from symgrad.pinn.ode import ode_residual
from symgrad.pinn.plots import plot_solution
from symgrad.pinn.polygon import Polygon, Triangle
from symgrad.pinn.problems import (
    AllenCahn,
    Beam,
    Burgers,
    Heat,
    KdV,
    Kovasznay,
    Poisson2D,
    PoissonND,
    Problem,
)
from symgrad.pinn.residual_loss import ResidualLoss, fast_backend, predict
from symgrad.pinn.solve import Solution, solve
from symgrad.pinn.training import History, NonFiniteLoss, Stop, TrainState, every, train, weighted_terms

__all__ = [
    "comsol_steady",
    "comsol_transient",
    "read_comsol",
    "AdamMethod",
    "LBFGS",
    "LevenbergMarquardt",
    "Stop",
    "fit",
    "MultiScaleFourierMLP",
    "SpatioTemporalFourierMLP",
    "Solution",
    "solve",
    "Difference",
    "Intersection",
    "Polygon",
    "TimeDomain",
    "Triangle",
    "Union",
    "grad",
    "AllenCahn",
    "LevenbergMarquardtResult",
    "levenberg_marquardt",
    "Kovasznay",
    "robin",
    "periodic",
    "observations",
    "ode_residual",
    "neumann",
    "initial",
    "dirichlet",
    "every",
    "TrainState",
    "NonFiniteLoss",
    "History",
    "predict",
    "parameters_of",
    "PeriodicEmbedding",
    "FourierFeatures",
    "ResidualMLP",
    "MLP",
    "ModifiedMLP",
    "Adam",
    "CausalLoss",
    "Ball",
    "Beam",
    "Box",
    "Burgers",
    "Condition",
    "Disk",
    "Heat",
    "Interval",
    "KdV",
    "LbfgsResult",
    "Poisson2D",
    "PoissonND",
    "Problem",
    "Rectangle",
    "ResidualLoss",
    "SpaceTime",
    "fast_backend",
    "flatten",
    "hard_constraint",
    "lbfgs",
    "laplacian",
    "derivatives",
    "load_checkpoint",
    "plot_solution",
    "refine",
    "resample",
    "save_checkpoint",
    "train",
    "weighted_terms",
    "unflatten",
]
