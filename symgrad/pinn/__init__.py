"""Physics-informed networks: losses compiled to kernels, optimizers, domains, reference problems.

- :mod:`symgrad.pinn.training`: ``ResidualLoss`` (``backend="auto"``: NumPy at once, C compiled in
  the background), ``laplacian``, Adam ``train``, checkpoints and plots; ``derivatives`` (u_x, u_xx,
  u_xxx.. by Taylor mode) comes from :mod:`symgrad.autodiff.taylor`.
- :mod:`symgrad.pinn.lbfgs`: L-BFGS by SciPy's L-BFGS-B on the flat weights.
- :mod:`symgrad.pinn.geometry`: intervals, boxes, disks, space x time; uniform, LHS, Sobol', Halton points.
- :mod:`symgrad.pinn.problems`: Burgers, Poisson (2-D, d-D), heat, KdV, beam, with exact solutions.
- :mod:`symgrad.pinn.adaptive`: residual-based refinement, hard constraints.
- :mod:`symgrad.pinn.distributed`: loss and gradient over Dask arrays (one machine or a cluster).
"""

from symgrad.autodiff.taylor import derivatives
from symgrad.pinn.adaptive import hard_constraint, refine
from symgrad.pinn.geometry import Box, Disk, Interval, Rectangle, SpaceTime
from symgrad.pinn.lbfgs import LbfgsResult, flatten, lbfgs, unflatten
from symgrad.pinn.problems import Beam, Burgers, Condition, Heat, KdV, Poisson2D, PoissonND, Problem
from symgrad.pinn.training import (
    Adam,
    ResidualLoss,
    fast_backend,
    laplacian,
    load_checkpoint,
    plot_solution,
    save_checkpoint,
    train,
)

__all__ = [
    "Adam",
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
    "save_checkpoint",
    "train",
    "unflatten",
]
