"""PINNacle's PNd (high dimension): Laplace(u) = -(pi^2 / 4) sum_i sin(pi x_i / 2) on [0, 1]^5,
u = sum_i sin(pi x_i / 2) on the boundary; exact u = sum_i sin(pi x_i / 2).

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/poisson.py, PoissonND) written
with symgrad.pinn: an MLP [5, 32, 32, 32, 1] (tanh, Glorot normal) on the inputs mapped from the
cube onto [-1, 1]^5, the equation (its Laplacian by the forward-Laplacian sweep) on 4096 Halton
points and the boundary values on 1024, trained by ``solve``; the L2RE against the exact solution
on a 7^5 grid inside the cube.

    python tutorials/pinnacle/poisson_nd.py [seconds]   # default 120 s
"""

from __future__ import annotations

import math
import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Box, ResidualLoss, dirichlet, laplacian, predict, solve

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (0,) * 5, (1,) * 5
NAMES = ("x1", "x2", "x3", "x4", "x5")
FILES: tuple[str, ...] = ()  # the reference is exact


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x1..x5): the MLP on the inputs mapped affinely from the cube onto [-1, 1]^5."""
    net = MLP([5, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def exact(*xs):
    return sum(np.sin(math.pi * x / 2) for x in xs)


def boundary_value(*xs):
    """The exact solution in symgrad ops (the boundary's values)."""
    return sum(ops.sin(math.pi * x / 2) for x in xs)


def pde(u):
    """The equation's residual for a solution u(x1..x5)."""

    def residual(*xs):
        return laplacian(u, tuple(range(5)))(*xs) + math.pi**2 / 4 * sum(ops.sin(math.pi * x / 2) for x in xs)

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x1..x5)."""
    cube = Box(LOWS, HIGHS)
    net, u = network(seed, hidden)
    edge = dirichlet(u, cube, boundary_value, inputs=NAMES)
    terms = [
        (ResidualLoss(pde(u), NAMES, net, name="pde"), cube.interior(4096, "halton", seed), cube),
        (edge.loss(net), edge.sample(1024, "halton", seed)),
    ]
    return terms, net, u


def reference(root=None):
    """The exact solution on a 7^5 grid strictly inside the cube: points (n, 5), u (n, 1)."""
    axes = [np.linspace(lo, hi, 9)[1:-1] for lo, hi in zip(LOWS, HIGHS)]
    points = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    return points, exact(*points.T)[:, None]


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
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 120.0)
