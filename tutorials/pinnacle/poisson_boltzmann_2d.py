"""PINNacle's Poisson 2d-CG (Poisson-Boltzmann): -Laplace(u) + k^2 u = f on [-1, 1]^2 less four disks,
k = 8, f = 10 (1 + x^2 + 16 + y^2) sin(pi x) sin(4 pi y); u = 0.2 on the square's edges and u = 1
on the disks.

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/poisson.py,
PoissonBoltzmann2D) written with symgrad.pinn: the geometry as a ``Difference`` of a rectangle and
four disks, an MLP [2, 32, 32, 32, 1] (tanh, Glorot normal) on the inputs mapped from the square
onto [-1, 1]^2, the equation on 4096 Halton points, the square's values on 512 boundary points and
the disks' on 512, trained by ``solve``; the L2RE on PINNacle's COMSOL reference
(ref/poisson_boltzmann2d.dat of a PINNacle checkout).

    python tutorials/pinnacle/poisson_boltzmann_2d.py [seconds] [PINNacle folder]   # default 120 s
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Difference,
    Disk,
    Rectangle,
    ResidualLoss,
    comsol_steady,
    dirichlet,
    laplacian,
    predict,
    solve,
)

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (-1, -1), (1, 1)
DISKS = [(0.5, 0.5, 0.2), (0.4, -0.4, 0.4), (-0.2, -0.7, 0.1), (-0.6, 0.5, 0.3)]  # (x, y, radius)
FILES = ("ref/poisson_boltzmann2d.dat",)


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x, y): the MLP on (x, y) mapped affinely from the box onto [-1, 1]^2."""
    net = MLP([2, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def geometry():
    """The square less the disks."""
    shape = Rectangle(LOWS, HIGHS)
    for x, y, r in DISKS:
        shape = Difference(shape, Disk((x, y), r))
    return shape


def on_square(x, y):
    """Whether boundary points lie on the square's edges (the rest lie on the disks)."""
    edge = [np.isclose(x, LOWS[0], atol=1e-9), np.isclose(x, HIGHS[0], atol=1e-9)]
    edge += [np.isclose(y, LOWS[1], atol=1e-9), np.isclose(y, HIGHS[1], atol=1e-9)]
    return edge[0] | edge[1] | edge[2] | edge[3]


def pde(u):
    """The equation's residual for a solution u(x, y)."""

    def residual(x, y):
        f = 10 * (1 + x**2 + 16 + y**2) * ops.sin(math.pi * x) * ops.sin(4 * math.pi * y)
        return -laplacian(u, (0, 1))(x, y) + 64 * u(x, y) - f

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x, y)."""
    shape = geometry()
    net, u = network(seed, hidden)
    square = dirichlet(u, shape, 0.2, on=on_square, name="square")
    disks = dirichlet(u, shape, 1.0, on=lambda x, y: ~on_square(x, y), name="disks")
    terms = [
        (ResidualLoss(pde(u), ("x", "y"), net, name="pde"), shape.interior(4096, "halton", seed), shape),
        (square.loss(net), square.sample(512, "halton", seed)),
        (disks.loss(net), disks.sample(512, "halton", seed)),
    ]
    return terms, net, u


def reference(root):
    """PINNacle's reference: points (n, 2) and u there, (n, 1)."""
    if root is None:
        raise FileNotFoundError(f"needs {FILES[0]} of a PINNacle checkout: pass the checkout's folder")
    return comsol_steady(Path(root) / FILES[0], 2)


def main(seconds: float = 120.0, root=None) -> float:
    """Solve within ``seconds``; print what ``solve`` did and the L2RE on the reference points."""
    points, values = reference(root)
    terms, params, u = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    predicted = np.column_stack([predict(u, points.T)])
    error = float(np.sqrt(np.mean((predicted - values) ** 2) / np.mean(values**2)))
    print(f"L2RE on {len(points)} reference points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 120.0, sys.argv[2] if len(sys.argv) > 2 else None)
