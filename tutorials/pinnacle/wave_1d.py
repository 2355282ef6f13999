"""PINNacle's Wave 1d-C: u_tt = 4 u_xx on [0, 1] x [0, 1], u = 0 at x = 0 and 1, u(x, 0) = sin(pi x)
+ sin(4 pi x) / 2 and u_t(x, 0) = 0; exact u = sin(pi x) cos(2 pi t) + sin(4 pi x) cos(8 pi t) / 2.

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/wave.py, Wave1D) written with
symgrad.pinn: an MLP [2, 32, 32, 32, 1] (tanh, Glorot normal) on the inputs mapped from the box onto
[-1, 1]^2, the equation on 4096 Halton points, u(x, 0) on 512, u_t(x, 0) on 512 (``initial`` with
``derivative=1``; PINNacle calls it Neumann at t = 0) and the ends on 512, trained by ``solve``; the
L2RE against the exact solution on a 50 x 50 grid inside the box.

    python tutorials/pinnacle/wave_1d.py [seconds]   # default 120 s
"""

from __future__ import annotations

import math
import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, dirichlet, grad, initial, predict, solve

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (0, 0), (1, 1)  # the box of (x, t)
FILES: tuple[str, ...] = ()  # the reference is exact


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and u(x, t): the MLP on (x, t) mapped affinely from the box onto [-1, 1]^2."""
    net = MLP([2, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def exact(x, t):
    return np.sin(math.pi * x) * np.cos(2 * math.pi * t) + 0.5 * np.sin(4 * math.pi * x) * np.cos(
        8 * math.pi * t
    )


def pde(u):
    """The equation's residual for a solution u(x, t)."""
    return lambda x, t: grad(grad(u, 1), 1)(x, t) - 4 * grad(grad(u, 0), 0)(x, t)


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, u): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), the weights to train and u(x, t)."""
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net, u = network(seed, hidden)
    start = initial(
        u, domain, lambda x, t: ops.sin(math.pi * x) + 0.5 * ops.sin(4 * math.pi * x), name="u(x,0)"
    )
    at_rest = initial(u, domain, 0.0, derivative=1, name="u_t(x,0)")
    ends = dirichlet(u, domain, 0.0)
    terms = [
        (ResidualLoss(pde(u), ("x", "t"), net, name="pde"), domain.interior(4096, "halton", seed), domain),
        *((c.loss(net), c.sample(512, "halton", seed)) for c in (start, at_rest, ends)),
    ]
    return terms, net, u


def reference(root=None):
    """The exact solution on a 50 x 50 grid strictly inside the box: points (n, 2), u (n, 1)."""
    axes = [np.linspace(lo, hi, 52)[1:-1] for lo, hi in zip(LOWS, HIGHS)]
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
