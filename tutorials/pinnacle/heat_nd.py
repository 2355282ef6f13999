"""PINNacle's HNd (high dimension): u_t = Laplace(u) / 5 - |x|^2 exp(|x|^2 / 2 + t) / 5 on the unit
5-ball x [0, 1], du/dn = exp(|x|^2 / 2 + t) on its sphere, u(x, 0) = exp(|x|^2 / 2); exact
u = exp(|x|^2 / 2 + t).

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/heat.py, HeatND) written with
symgrad.pinn: the domain as ``SpaceTime(Ball(...), 0, 1)``, an MLP [6, 32, 32, 32, 1] (tanh,
Glorot normal) on the inputs mapped from the box [-1, 1]^5 x [0, 1] onto [-1, 1]^6, the equation on
4096 Halton points, the Neumann condition on 1024 and the initial values on 1024, trained by
``solve``; the L2RE against the exact solution on 20000 Halton points of the ball x time.

    python tutorials/pinnacle/heat_nd.py [seconds]   # default 120 s
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Ball, ResidualLoss, SpaceTime, grad, initial, laplacian, neumann, predict, solve

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (-1,) * 5 + (0,), (1,) * 6  # the box of (x1..x5, t)
NAMES = ("x1", "x2", "x3", "x4", "x5", "t")
FILES: tuple[str, ...] = ()  # the reference is exact


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x1..x5, t): the MLP on the inputs mapped affinely from the box onto [-1, 1]^6."""
    net = MLP([6, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def domain():
    return SpaceTime(Ball([0] * 5, 1.0), 0, 1)


def exact(*xt):
    *xs, t = xt
    return np.exp(sum(x**2 for x in xs) / 2 + t)


def solution(*xt):
    """exp(|x|^2 / 2 + t) in symgrad ops: the solution, its normal derivative on the unit sphere, u(x, 0)."""
    *xs, t = xt
    return ops.exp(sum(x**2 for x in xs) / 2 + t)


def pde(u):
    """The equation's residual for a solution u(x1..x5, t)."""

    def residual(*xt):
        *xs, t = xt
        source = -sum(x**2 for x in xs) * ops.exp(sum(x**2 for x in xs) / 2 + t) / 5
        return laplacian(u, tuple(range(5)))(*xt) / 5 + source - grad(u, 5)(*xt)

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x1..x5, t)."""
    ball_time = domain()
    net, u = network(seed, hidden)
    flux = neumann(u, ball_time, solution, inputs=NAMES)
    start = initial(u, ball_time, solution, inputs=NAMES)
    terms = [
        (ResidualLoss(pde(u), NAMES, net, name="pde"), ball_time.interior(4096, "halton", seed), ball_time),
        (flux.loss(net), flux.sample(1024, "halton", seed)),
        (start.loss(net), start.sample(1024, "halton", seed)),
    ]
    return terms, net, u


def reference(root=None):
    """The exact solution at 20000 Halton points of the ball x time: points (n, 6), u (n, 1)."""
    points = domain().interior(20000, "halton", 12345).T
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
