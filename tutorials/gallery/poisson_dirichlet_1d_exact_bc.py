"""Poisson_Dirichlet_1d_exactBC: -u'' = sum_{i=1..4} i sin(i x) + 8 sin(8 x) on [0, pi], u(0) = 0,
u(pi) = pi; exact u = x + sum_{i=1..4} sin(i x) / i + sin(8 x) / 8.

DeepXDE's examples/pinn_forward/Poisson_Dirichlet_1d_exactBC.py written with symgrad.pinn: the
example's network ([1, 50, 50, 50, 1], tanh, Glorot uniform) inside its output transform
u = x (pi - x) N(x) + x (``hard_constraint``: the boundary values hold exactly, so the equation is
the only term), its 64 points, trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/poisson_dirichlet_1d_exact_bc.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, grad, hard_constraint, predict, solve


def exact(X):
    """u at the (n, 1) points X, (n, 1)."""
    return X + sum(np.sin(i * X) / i for i in range(1, 5)) + np.sin(8 * X) / 8


def test_points():
    """The example's test set: 400 points on [0, pi], (n, 1)."""
    return np.linspace(0, np.pi, 400)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of x, and the unknowns' values (None: a forward problem)."""
    line = Interval(0, np.pi)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    u = hard_constraint(net, lambda x: x, lambda x: x * (np.pi - x))  # the example's output transform

    def pde(x):
        return -grad(grad(u))(x) - sum(i * ops.sin(i * x) for i in range(1, 5)) - 8 * ops.sin(8 * x)

    terms = [(ResidualLoss(pde, ("x",), net, name="pde"), line.interior(64, "halton", seed))]
    return terms, net, u, None


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
