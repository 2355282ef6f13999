"""Kovasznay_flow: steady incompressible Navier-Stokes at Re = 20 on [-0.5, 1] x [-0.5, 1.5],
u u_x + v u_y + p_x = (u_xx + u_yy) / Re, u v_x + v v_y + p_y = (v_xx + v_yy) / Re, u_x + v_y = 0;
u and v as exact on the whole boundary, p on the outflow x = 1. Exact (Kovasznay 1948), with
l = Re / 2 - sqrt(Re^2 / 4 + 4 pi^2): u = 1 - e^(l x) cos(2 pi y), v = l / (2 pi) e^(l x) sin(2 pi y),
p = (1 - e^(2 l x)) / 2.

DeepXDE's examples/pinn_forward/Kovasznay_flow.py written with symgrad.pinn: the example's network
([2, 50 x 4, 3], tanh, Glorot normal), its 2601 points inside and 400 on the boundary (the
equations at all of them, u and v at the boundary's, p at those on x = 1), trained by ``solve``.
Departures from the example: scrambled Halton points (DeepXDE: Hammersley); the test set is a
101 x 101 grid (DeepXDE: 100,000 random points).

    python tutorials/gallery/kovasznay_flow.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Rectangle, ResidualLoss, dirichlet, grad, laplacian, predict, solve

RE = 20
L = RE / 2 - np.sqrt(RE**2 / 4 + 4 * np.pi**2)


def flow(x, y, m=np):
    """(u, v, p), by NumPy (``m = np``) or as symgrad expressions (``m = ops``)."""
    u = 1 - m.exp(L * x) * m.cos(2 * np.pi * y)
    v = L / (2 * np.pi) * m.exp(L * x) * m.sin(2 * np.pi * y)
    p = (1 - m.exp(2 * L * x)) / 2
    return u, v, p


def exact(X):
    """(u, v, p) at the (n, 2) points (x, y), (n, 3)."""
    return np.hstack(flow(X[:, 0:1], X[:, 1:2]))


def test_points():
    """A 101 x 101 grid of the rectangle, (n, 2)."""
    x, y = np.meshgrid(np.linspace(-0.5, 1, 101), np.linspace(-0.5, 1.5, 101), indexing="ij")
    return np.stack([x.ravel(), y.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equations' with their
    domain, where ``solve`` draws new points by residual), the weights to train, the solution as a
    function of (x, y), and the unknowns' values (None: a forward problem)."""
    box = Rectangle((-0.5, -0.5), (1, 1.5))
    net = MLP([2, 50, 50, 50, 50, 3], "tanh", "glorot_normal", seed=seed)
    u, v, p = (net.output(k) for k in range(3))

    def navier_stokes(x, y):
        uu, vv = u(x, y), v(x, y)
        u_x, u_y, v_x, v_y = grad(u, 0)(x, y), grad(u, 1)(x, y), grad(v, 0)(x, y), grad(v, 1)(x, y)
        return (
            uu * u_x + vv * u_y + grad(p, 0)(x, y) - laplacian(u, (0, 1))(x, y) / RE,
            uu * v_x + vv * v_y + grad(p, 1)(x, y) - laplacian(v, (0, 1))(x, y) / RE,
            u_x + v_y,
        )

    def part(k):
        return lambda x, y: flow(x, y, ops)[k]

    outflow = box.face(0, "high")
    walls = [dirichlet(u, box, part(0), name="u"), dirichlet(v, box, part(1), name="v")]
    pressure = dirichlet(p, box, part(2), on=outflow, name="p(x = 1)")
    inside, edge = box.interior(2601, "halton", seed), box.boundary(400, "halton", seed)
    equations = ResidualLoss(navier_stokes, ("x", "y"), net, name="pde")
    terms = [
        (equations, np.hstack([inside, edge]), box),
        *((wall.loss(net), edge) for wall in walls),
        (pressure.loss(net), edge[:, outflow(*edge)]),
    ]

    def solution(x, y):
        return u(x, y), v(x, y), p(x, y)

    return terms, net, solution, None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 errors on the test points."""
    terms, params, solution, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(solution, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    for k, name in enumerate("uvp"):
        own = np.linalg.norm(predicted[:, k] - expected[:, k]) / np.linalg.norm(expected[:, k])
        print(f"relative L2 error of {name}: {own:.3e}")
    print(f"relative L2 error on {len(X)} test points: {error:.3e} (u, v, p together)")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
