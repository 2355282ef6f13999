"""Poisson_Dirichlet_1d: -u'' = pi^2 sin(pi x) on [-1, 1], u(-1) = u(1) = 0; exact u = sin(pi x).

DeepXDE's examples/pinn_forward/Poisson_Dirichlet_1d.py written with symgrad.pinn: the example's
network ([1, 50, 50, 50, 1], tanh, Glorot uniform), its 16 points inside and the 2 ends (the
equation is evaluated at all of them, the boundary condition at the ends), trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/poisson_dirichlet_1d.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, dirichlet, grad, predict, solve


def exact(X):
    """u at the (n, 1) points X, (n, 1)."""
    return np.sin(np.pi * X)


def test_points():
    """The example's test set: 100 points on [-1, 1], (n, 1)."""
    return np.linspace(-1, 1, 100)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of x, and the unknowns' values (None: a forward problem)."""
    line = Interval(-1, 1)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)

    def pde(x):
        return -grad(grad(net))(x) - np.pi**2 * ops.sin(np.pi * x)

    walls = dirichlet(net, line, value=lambda x: ops.sin(np.pi * x))
    inside = line.interior(16, "halton", seed)
    terms = [
        (ResidualLoss(pde, ("x",), net, name="pde"), np.hstack([inside, line.boundary(2)])),
        (walls.loss(net), line.boundary(2)),
    ]
    return terms, net, net, None


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
