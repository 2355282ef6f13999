"""PINNacle's Heat 2d-LT (long time): u_t = 0.001 Laplace(u) + 5 sin(u^2) (1 + 2 sin(pi t / 4))
sin(4 pi x) sin(2 pi y) on [0, 1]^2 x [0, 100], u = 0 on the square's edges, u(x, y, 0) =
sin(4 pi x) sin(3 pi y).

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/heat.py, HeatLongTime)
written with symgrad.pinn: an MLP [3, 32, 32, 32, 1] (tanh, Glorot normal) on the inputs mapped
from the box onto [-1, 1]^3, the equation on 4096 Halton points, the initial values on 1024 and the
edges on 1024, trained by ``solve``; the L2RE on PINNacle's COMSOL reference (ref/heat_longtime.dat
of a PINNacle checkout). Every method of the paper fails here (L2RE 0.999).

    python tutorials/pinnacle/heat_longtime.py [seconds] [PINNacle folder]   # default 120 s
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Rectangle,
    ResidualLoss,
    SpaceTime,
    comsol_transient,
    dirichlet,
    grad,
    initial,
    laplacian,
    predict,
    solve,
)

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (0, 0, 0), (1, 1, 100)  # the box of (x, y, t)
FILES = ("ref/heat_longtime.dat",)


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x, y, t): the MLP on (x, y, t) mapped affinely from the box onto [-1, 1]^3."""
    net = MLP([3, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def pde(u):
    """The equation's residual for a solution u(x, y, t)."""

    def residual(x, y, t):
        v, pi = u(x, y, t), math.pi
        source = 5 * ops.sin(v**2) * (1 + 2 * ops.sin(pi * t / 4)) * ops.sin(4 * pi * x) * ops.sin(2 * pi * y)
        return grad(u, 2)(x, y, t) - 0.001 * laplacian(u, (0, 1))(x, y, t) - source

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x, y, t)."""
    domain = SpaceTime(Rectangle((0, 0), (1, 1)), 0, 100)
    net, u = network(seed, hidden)
    start = initial(u, domain, lambda x, y, t: ops.sin(4 * math.pi * x) * ops.sin(3 * math.pi * y))
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


def reference(root):
    """PINNacle's reference: points (n, 3) of (x, y, t) and u there, (n, 1)."""
    if root is None:
        raise FileNotFoundError(f"needs {FILES[0]} of a PINNacle checkout: pass the checkout's folder")
    return comsol_transient(Path(root) / FILES[0], 2)


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
