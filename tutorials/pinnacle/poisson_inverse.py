"""PINNacle's PInv (inverse): div(a grad u) + f = 0 on [0, 1]^2, with u and the coefficient a both
unknown: a is known on the boundary and u is observed with N(0, 0.1^2) noise on a 50 x 50 grid.
Reference u = sin(pi x) sin(pi y), a = 1 / (1 + x^2 + y^2 + (x - 1)^2 + (y - 1)^2).

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/inverse.py, PoissonInv)
written with symgrad.pinn: two MLPs [2, 32, 32, 32, 1] (tanh, Glorot normal), one for u and one
for a, on the inputs mapped onto [-1, 1]^2, the equation on 4096 Halton points, the 2500 noisy
observations of u and a's boundary values on 512 points, trained together by ``solve``; the L2RE
over (u, a) together (as PINNacle) on a 50 x 50 grid inside the square.
As benchmarked, PINNacle's source term has (2x + 1) and (2y + 1) where the reference (u, a) needs
(2x - 1) and (2y - 1): no (u, a) fits both the data and the equation exactly. The noise is drawn
with the seed (PINNacle draws it unseeded).

    python tutorials/pinnacle/poisson_inverse.py [seconds]   # default 120 s
"""

from __future__ import annotations

import math
import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Rectangle, ResidualLoss, dirichlet, grad, observations, predict, solve

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (0, 0), (1, 1)
FILES: tuple[str, ...] = ()  # the reference is exact
PI = math.pi


def network(seed: int = 0, hidden=HIDDEN):
    """An MLP and its function of (x, y): the MLP on (x, y) mapped affinely from the box onto [-1, 1]^2."""
    net = MLP([2, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def exact(x, y):
    """The reference (u, a)."""
    return np.sin(PI * x) * np.sin(PI * y), 1 / (1 + x**2 + y**2 + (x - 1) ** 2 + (y - 1) ** 2)


def pde(u, a):
    """The equation's residual for u(x, y) and a(x, y): div(a grad u) + f, PINNacle's f."""

    def residual(x, y):
        s, c = ops.sin, ops.cos
        along = [grad(a, i)(x, y) * grad(u, i)(x, y) + a(x, y) * grad(grad(u, i), i)(x, y) for i in (0, 1)]
        div = along[0] + along[1]
        ar = 1 / (1 + x**2 + y**2 + (x - 1) ** 2 + (y - 1) ** 2)
        f = (
            2 * PI**2 * s(PI * x) * s(PI * y) * ar
            + 2 * PI * ((2 * x + 1) * c(PI * x) * s(PI * y) + (2 * y + 1) * s(PI * x) * c(PI * y)) * ar**2
        )
        return div + f

    return residual


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, both): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), both networks' weights and (u, a)(x, y)."""
    square = Rectangle(LOWS, HIGHS)
    net_u, u = network(seed, hidden)
    net_a, a = network(seed + 1000, hidden)
    params = [*net_u.trainable_params(), *net_a.trainable_params()]
    points = np.vstack([m.ravel() for m in np.meshgrid(np.linspace(0, 1, 50), np.linspace(0, 1, 50))])
    noisy = exact(*points)[0] + np.random.default_rng(seed).normal(0, 0.1, points.shape[1])
    data = observations(u, points, noisy, ("x", "y"))
    a_edge = dirichlet(a, square, lambda x, y: 1 / (1 + x**2 + y**2 + (x - 1) ** 2 + (y - 1) ** 2), name="a")
    terms = [
        (
            ResidualLoss(pde(u, a), ("x", "y"), params, name="pde"),
            square.interior(4096, "halton", seed),
            square,
        ),
        (data.loss(params), data.sample(0, "halton", seed)),
        (a_edge.loss(params), a_edge.sample(512, "halton", seed)),
    ]
    return terms, params, lambda x, y: (u(x, y), a(x, y))


def reference(root=None):
    """The reference (u, a) on a 50 x 50 grid strictly inside the square: points (n, 2), (u, a) (n, 2)."""
    axes = [np.linspace(lo, hi, 52)[1:-1] for lo, hi in zip(LOWS, HIGHS)]
    points = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    return points, np.column_stack(exact(*points.T))


def main(seconds: float = 120.0, root=None) -> float:
    """Solve within ``seconds``; print what ``solve`` did and the L2RE on the reference points."""
    points, values = reference(root)
    terms, params, both = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    predicted = np.column_stack(predict(both, points.T))
    error = float(np.sqrt(np.mean((predicted - values) ** 2) / np.mean(values**2)))
    print(f"L2RE over (u, a) on {len(points)} reference points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 120.0)
