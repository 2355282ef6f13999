"""PINNacle's Heat 2d-MS (multi-scale): u_t = u_xx / (500 pi)^2 + u_yy / pi^2 on [0, 1]^2 x [0, 5],
u = 0 on the square's edges, u(x, y, 0) = sin(20 pi x) sin(pi y); exact u = sin(20 pi x) sin(pi y)
exp(-(1/625 + 1) t).

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/heat.py, HeatMultiscale)
written with symgrad.pinn: an MLP [3, 32, 32, 32, 1] (tanh, Glorot normal) on the inputs mapped
from the box onto [-1, 1]^3, the equation on 4096 Halton points, the initial values on 1024 and the
edges on 1024, trained by ``solve``; the L2RE against the exact solution on a 60 x 30 x 12 grid
inside the box (PINNacle: 20000 uniform points).

    python tutorials/pinnacle/heat_multiscale.py [seconds]   # default 120 s
"""

from __future__ import annotations

import math
import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Rectangle, ResidualLoss, SpaceTime, dirichlet, grad, initial, predict, solve

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (0, 0, 0), (1, 1, 5)  # the box of (x, y, t)
FILES: tuple[str, ...] = ()  # the reference is exact


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x, y, t): the MLP on (x, y, t) mapped affinely from the box onto [-1, 1]^3."""
    net = MLP([3, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def exact(x, y, t):
    return np.sin(20 * math.pi * x) * np.sin(math.pi * y) * np.exp(-(400 / 500**2 + 1) * t)


def pde(u):
    """The equation's residual for a solution u(x, y, t)."""

    def residual(x, y, t):
        u_xx, u_yy = grad(grad(u, 0), 0)(x, y, t), grad(grad(u, 1), 1)(x, y, t)
        return grad(u, 2)(x, y, t) - u_xx / (500 * math.pi) ** 2 - u_yy / math.pi**2

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x, y, t)."""
    domain = SpaceTime(Rectangle((0, 0), (1, 1)), 0, 5)
    net, u = network(seed, hidden)
    start = initial(u, domain, lambda x, y, t: ops.sin(20 * math.pi * x) * ops.sin(math.pi * y))
    edges = dirichlet(u, domain, 0.0)
    terms = [
        (
            ResidualLoss(pde(u), ("x", "y", "t"), net, name="pde"),
            domain.interior(4096, "halton", seed),
            domain,
        ),
        (start.loss(net), start.sample(1024, "halton", seed)),
        (edges.loss(net), edges.sample(1024, "halton", seed)),
    ]
    return terms, net, u


def reference(root=None):
    """The exact solution on a 60 x 30 x 12 grid strictly inside the box: points (n, 3), u (n, 1)."""
    axes = [np.linspace(lo, hi, k + 2)[1:-1] for lo, hi, k in zip(LOWS, HIGHS, (60, 30, 12))]
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
