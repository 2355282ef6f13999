"""Helmholtz_Dirichlet_2d: -lap u - k0^2 u = k0^2 sin(k0 x) sin(k0 y) on the unit square, u = 0 on
its boundary, k0 = 4 pi (n = 2); exact u = sin(k0 x) sin(k0 y).

DeepXDE's examples/pinn_forward/Helmholtz_Dirichlet_2d.py written with symgrad.pinn: the example's
network ([2, 150, 150, 150, 1], sin, Glorot uniform) inside its output transform
u = x (1 - x) y (1 - y) N(x, y) (``hard_constraint``: the equation is the only term), its 400
points inside and 80 on the boundary (20 per wavelength / precision), trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/helmholtz_dirichlet_2d.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Rectangle, ResidualLoss, hard_constraint, laplacian, predict, solve

K0 = 2 * np.pi * 2  # n = 2


def exact(X):
    """u at the (n, 2) points X, (n, 1)."""
    return np.sin(K0 * X[:, 0:1]) * np.sin(K0 * X[:, 1:2])


def test_points():
    """A 100 x 100 grid of the unit square, (n, 2)."""
    x, y = np.meshgrid(np.linspace(0, 1, 100), np.linspace(0, 1, 100), indexing="ij")
    return np.stack([x.ravel(), y.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, y), and the unknowns' values (None: a forward problem)."""
    square = Rectangle((0, 0), (1, 1))
    net = MLP([2, 150, 150, 150, 1], "sin", "glorot_uniform", seed=seed)
    u = hard_constraint(net, 0.0, lambda x, y: x * (1 - x) * y * (1 - y))  # the example's output transform

    def pde(x, y):
        return -laplacian(u, (0, 1))(x, y) - K0**2 * u(x, y) - K0**2 * ops.sin(K0 * x) * ops.sin(K0 * y)

    points = np.hstack([square.interior(20**2, "halton", seed), square.boundary(4 * 20, "halton", seed)])
    return [(ResidualLoss(pde, ("x", "y"), net, name="pde"), points, square)], net, u, None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 error on the test points."""
    terms, params, u, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = predict(u, X.T).reshape(-1, 1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    print(f"relative L2 error on {len(X)} test points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
