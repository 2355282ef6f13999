"""PINNacle's Burgers 1d-C: u_t + u u_x = (0.01 / pi) u_xx on [-1, 1] x [0, 1], u(x, 0) = -sin(pi x),
u(-1, t) = u(1, t) = 0.

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/burgers.py) written with
symgrad.pinn: an MLP [2, 32, 32, 32, 1] (tanh, Glorot normal) on the inputs mapped from the box onto
[-1, 1]^2, the equation on 4096 Halton points (``solve`` may draw more there by residual), the
initial values on 512 and the walls on 256, trained by ``solve``; the L2RE on PINNacle's COMSOL
reference (ref/burgers1d.dat of a PINNacle checkout). That reference is itself 1.3e-2 from the exact
(Cole-Hopf) solution, the floor of the metric here.

    python tutorials/pinnacle/burgers_1d.py [seconds] [PINNacle folder]   # default 120 s
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Interval,
    ResidualLoss,
    SpaceTime,
    comsol_transient,
    dirichlet,
    grad,
    initial,
    predict,
    solve,
)

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (-1, 0), (1, 1)  # the box of (x, t)
FILES = ("ref/burgers1d.dat",)


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x, t): the MLP on (x, t) mapped affinely from the box onto [-1, 1]^2."""
    net = MLP([2, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def pde(u):
    """The equation's residual for a solution u(x, t)."""
    nu = 0.01 / math.pi

    def residual(x, t):
        return grad(u, 1)(x, t) + u(x, t) * grad(u, 0)(x, t) - nu * grad(grad(u, 0), 0)(x, t)

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x, t)."""
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net, u = network(seed, hidden)
    start = initial(u, domain, lambda x, t: -ops.sin(math.pi * x))
    walls = dirichlet(u, domain, 0.0)
    terms = [
        (ResidualLoss(pde(u), ("x", "t"), net, name="pde"), domain.interior(4096, "halton", seed), domain),
        (start.loss(net), start.sample(512, "halton", seed)),
        (walls.loss(net), walls.sample(256, "halton", seed)),
    ]
    return terms, net, u


def reference(root):
    """PINNacle's reference: points (n, 2) of (x, t) and u there, (n, 1)."""
    if root is None:
        raise FileNotFoundError(f"needs {FILES[0]} of a PINNacle checkout: pass the checkout's folder")
    return comsol_transient(Path(root) / FILES[0], 1)


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
