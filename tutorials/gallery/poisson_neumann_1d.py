"""Poisson_Neumann_1d: u'' = 2 on [-1, 1], u(-1) = 0, u'(1) = 4; exact u = (x + 1)^2.

DeepXDE's examples/pinn_forward/Poisson_Neumann_1d.py written with symgrad.pinn: the example's
network ([1, 50, 50, 50, 1], tanh, Glorot uniform), its 16 points inside and the 2 ends, a
Dirichlet term at x = -1 and a ``neumann`` term at x = 1 (du/dn = 2 (x + 1), the outward normal
is +x there), trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/poisson_neumann_1d.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad.pinn import MLP, Interval, ResidualLoss, dirichlet, grad, neumann, predict, solve


def exact(X):
    """u at the (n, 1) points X, (n, 1)."""
    return (X + 1) ** 2


def test_points():
    """The example's test set: 100 points on [-1, 1], (n, 1)."""
    return np.linspace(-1, 1, 100)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of x, and the unknowns' values (None: a forward problem)."""
    line = Interval(-1, 1)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    left = dirichlet(net, line, value=0.0, on=line.face(0, "low"), name="u(-1)")
    flux = neumann(net, line, lambda x: 2 * (x + 1), on=line.face(0, "high"))
    inside = line.interior(16, "halton", seed)
    terms = [
        (
            ResidualLoss(lambda x: grad(grad(net))(x) - 2, ("x",), net, name="pde"),
            np.hstack([inside, line.boundary(2)]),
        ),
        (left.loss(net), np.array([[-1.0]])),
        (flux.loss(net), flux.sample(1)),
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
