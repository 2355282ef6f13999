"""PINNacle's HInv (inverse): u_t = div(a grad u) + f on [-1, 1]^2 x [0, 1], with u and the
coefficient a(x, y) both unknown: a is known on the boundary and u is observed with N(0, 0.1^2)
noise at PINNacle's 2500 points (ref/heatinv_points.dat of a PINNacle checkout). Reference
u = exp(-t) sin(pi x) sin(pi y), a = 2 + sin(pi x) sin(pi y).

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/inverse.py, HeatInv) written
with symgrad.pinn: two MLPs [.., 32, 32, 32, 1] (tanh, Glorot normal), one for u(x, y, t) and one
for a(x, y) (PINNacle masks t out of a's network), on the inputs mapped onto [-1, 1], the equation
on 4096 Halton points, the noisy observations of u and a's boundary values on 1024 points, trained
together by ``solve``; the L2RE over (u, a) together (as PINNacle) on a 28 x 28 x 26 grid inside
the box. The noise is drawn with the seed (PINNacle draws it unseeded).

    python tutorials/pinnacle/heat_inverse.py [seconds] [PINNacle folder]   # default 120 s
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
    dirichlet,
    grad,
    observations,
    predict,
    solve,
)

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (-1, -1, 0), (1, 1, 1)  # the box of (x, y, t)
FILES = ("ref/heatinv_points.dat",)
PI = math.pi


def network(inputs: int, seed: int = 0, hidden=HIDDEN):
    """An MLP and its function of the first ``inputs`` coordinates, mapped affinely from the box onto [-1, 1]."""
    net = MLP([inputs, *hidden, 1], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS[:inputs], HIGHS[:inputs])]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS[:inputs], HIGHS[:inputs])]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def exact(x, y, t):
    """The reference (u, a)."""
    s = np.sin(PI * x) * np.sin(PI * y)
    return np.exp(-t) * s, 2 + s + 0 * t


def pde(u, a):
    """The equation's residual for u(x, y, t) and a(x, y, t) (a ignores t): u_t - div(a grad u) - f."""

    def residual(x, y, t):
        s, c = ops.sin, ops.cos
        along = [
            grad(a, i)(x, y, t) * grad(u, i)(x, y, t) + a(x, y, t) * grad(grad(u, i), i)(x, y, t)
            for i in (0, 1)
        ]
        sx, sy, cx, cy = s(PI * x), s(PI * y), c(PI * x), c(PI * y)
        f = ops.exp(-t) * (
            (4 * PI**2 - 1) * sx * sy + PI**2 * (2 * sx**2 * sy**2 - cx**2 * sy**2 - sx**2 * cy**2)
        )
        return grad(u, 2)(x, y, t) - (along[0] + along[1]) - f

    return residual


def observed_points(root) -> np.ndarray:
    """PINNacle's observation points, (3, 2500)."""
    if root is None:
        raise FileNotFoundError(f"needs {FILES[0]} of a PINNacle checkout: pass the checkout's folder")
    return np.loadtxt(Path(root) / FILES[0], ndmin=2).T


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, both): the loss terms ((loss, points) pairs; the equation's with its domain,
    where ``solve`` draws new points by residual), both networks' weights and (u, a)(x, y, t)."""
    domain = SpaceTime(Rectangle((-1, -1), (1, 1)), 0, 1)
    net_u, u = network(3, seed, hidden)
    net_a, a_space = network(2, seed + 1000, hidden)
    params = [*net_u.trainable_params(), *net_a.trainable_params()]

    def a(x, y, t):
        return a_space(x, y)

    points = observed_points(root)
    noisy = exact(*points)[0] + np.random.default_rng(seed).normal(0, 0.1, points.shape[1])
    data = observations(u, points, noisy, ("x", "y", "t"))
    a_edge = dirichlet(a, domain, lambda x, y, t: 2 + ops.sin(PI * x) * ops.sin(PI * y), name="a")
    terms = [
        (
            ResidualLoss(pde(u, a), ("x", "y", "t"), params, name="pde"),
            domain.interior(4096, "halton", seed),
            domain,
        ),
        (data.loss(params), data.sample(0, "halton", seed)),
        (a_edge.loss(params), a_edge.sample(1024, "halton", seed)),
    ]
    return terms, params, lambda x, y, t: (u(x, y, t), a(x, y, t))


def reference(root=None):
    """The reference (u, a) on a 28 x 28 x 26 grid strictly inside the box: points (n, 3), (u, a) (n, 2)."""
    axes = [np.linspace(lo, hi, k + 2)[1:-1] for lo, hi, k in zip(LOWS, HIGHS, (28, 28, 26))]
    points = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    return points, np.column_stack(exact(*points.T))


def main(seconds: float = 120.0, root=None) -> float:
    """Solve within ``seconds``; print what ``solve`` did and the L2RE on the reference points."""
    points, values = reference(root)
    terms, params, both = build(seed=0, root=root)
    print(solve(terms, params, seconds=seconds))
    predicted = np.column_stack(predict(both, points.T))
    error = float(np.sqrt(np.mean((predicted - values) ** 2) / np.mean(values**2)))
    print(f"L2RE over (u, a) on {len(points)} reference points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 120.0, sys.argv[2] if len(sys.argv) > 2 else None)
