"""The PINNacle benchmark's problems (Hao et al., NeurIPS 2024) written with ``symgrad.pinn``.

Each problem is a script a user can copy and run, tutorials/pinnacle/<name>.py: the PDE, its
domain and its conditions, written from the mathematics (the equations, coefficients, domains and
boundary data of PINNacle's ``src/pde/*.py``; none of its code), ``build(seed, hidden, root)``
(the loss terms, the weights and the solution ``u``, a tuple for several outputs) and
``reference(root)``: a COMSOL file of PINNacle's ``ref/`` folder (read by
``symgrad.pinn.comsol_steady`` or ``comsol_transient``), or the exact solution PINNacle itself
measures against (sampled on a grid). This module is their index, :data:`CASES` (one :class:`Case`
a row of the paper's tables), with the metric, :func:`l2re`; bench/pinnacle.py hands each case's
terms to ``symgrad.pinn.solve``.

What every case shares, and where it departs from PINNacle (``Case.note`` and the scripts say more):

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
from tutorial_scripts import tutorial_script

from symgrad.pinn import Burgers

HIDDEN = (32, 32, 32)


def script(name: str) -> ModuleType:
    """tutorials/pinnacle/<name>.py imported as a module (``build``, ``reference``, ``FILES``, ...)."""
    return tutorial_script("pinnacle", name)


@dataclass
class Built:
    """A case made ready to solve: (loss, points) terms (the equations' with their domain), the
    weights to train, and ``u``."""

    terms: list
    params: object
    u: Callable


@dataclass
class Case:
    """One PINNacle problem: its name in the paper, its script (tutorials/pinnacle/<file>.py), a
    note, and an exact solution where the reference is numerical."""

    title: str
    file: str
    note: str = ""
    exact: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def module(self) -> ModuleType:
        return script(self.file)

    @property
    def files(self) -> tuple[str, ...]:
        """The PINNacle files the case reads (under the checkout's folder)."""
        return tuple(self.module.FILES)

    def build(self, seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
        return Built(*self.module.build(seed, tuple(hidden), root))

    def reference(self, root: Path | None) -> tuple[np.ndarray, np.ndarray]:
        """Points (n, dim) and values (n, outputs); FileNotFoundError where a file is needed and absent."""
        return self.module.reference(root)


def l2re(predicted, reference) -> float:
    """PINNacle's L2RE: sqrt(mean((y - y_ref)^2)) / sqrt(mean(y_ref^2)) over every point and output."""
    predicted, reference = np.asarray(predicted, float), np.asarray(reference, float)
    if predicted.shape != reference.shape:
        raise ValueError(
            f"l2re: prediction {predicted.shape} and reference {reference.shape} differ in shape"
        )
    return float(np.sqrt(np.mean((predicted - reference) ** 2)) / np.sqrt(np.mean(reference**2)))


CASES: dict[str, Case] = {
    "burgers1d": Case(
        "Burgers 1d-C",
        "burgers_1d",
        "PINNacle's COMSOL reference is itself 1.3e-2 (L2RE) from the exact solution (Cole-Hopf)",
        lambda points: Burgers().exact(points[:, 0], points[:, 1])[:, None],
    ),
    "poisson2d_classic": Case(
        "Poisson 2d-C",
        "poisson_2d_classic",
        "PINNacle's default reference for Poisson2D_Classic (ref/poisson_classic.dat is another export)",
    ),
    "poisson_boltzmann2d": Case("Poisson 2d-CG", "poisson_boltzmann_2d"),
    "heat_multiscale": Case(
        "Heat 2d-MS",
        "heat_multiscale",
        "exact solution on a 60 x 30 x 12 interior grid (PINNacle: 20000 uniform points)",
    ),
    "heat_longtime": Case("Heat 2d-LT", "heat_longtime"),
    "ns_lid_driven": Case("NS 2d-C", "ns_lid_driven", "L2RE over u, v, p together, as PINNacle"),
    "ns_backstep": Case("NS 2d-CG", "ns_backstep", "L2RE over u, v, p together, as PINNacle"),
    "wave1d": Case(
        "Wave 1d-C", "wave_1d", "PINNacle's 'Neumann at t = 0' on the (x, t) rectangle is u_t(x, 0) = 0"
    ),
    "poisson_nd": Case("High dim PNd", "poisson_nd", "7^5 interior grid"),
    "heat_nd": Case("High dim HNd", "heat_nd", "20000 Halton points of ball x time"),
    "poisson_inv": Case(
        "Inverse PInv",
        "poisson_inverse",
        "PINNacle's source term has (2x + 1), (2y + 1) where the reference (u, a) needs (2x - 1), (2y - 1): "
        "ported as benchmarked, so no (u, a) fits the data and the PDE exactly",
    ),
    "heat_inv": Case(
        "Inverse HInv",
        "heat_inverse",
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
