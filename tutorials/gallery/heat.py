"""heat: u_t = a u_xx on [0, 1] x [0, 1], a = 0.4, u = 0 at x = 0 and 1, u(x, 0) = sin(pi x);
exact u = exp(-pi^2 a t) sin(pi x).

DeepXDE's examples/pinn_forward/heat.py written with symgrad.pinn: the example's network
([2, 20, 20, 20, 1], tanh, Glorot normal), its 2540 points inside, 80 on the walls and 160 at
t = 0 (the equation at all of them, each condition at its own), trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/heat.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, dirichlet, grad, initial, predict, solve

A = 0.4


def exact(X):
    """u at the (n, 2) points (x, t), (n, 1)."""
    return np.exp(-(np.pi**2) * A * X[:, 1:2]) * np.sin(np.pi * X[:, 0:1])


def test_points():
    """A 256 x 201 grid of [0, 1] x [0, 1], (n, 2)."""
    x, t = np.meshgrid(np.linspace(0, 1, 256), np.linspace(0, 1, 201), indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)
    inside = domain.interior(2540, "halton", seed)
    walls = domain.boundary(80, "halton", seed)
    start = domain.initial(160, "halton", seed)

    def pde(x, t):
        return grad(net, 1)(x, t) - A * grad(grad(net, 0), 0)(x, t)

    terms = [
        (ResidualLoss(pde, ("x", "t"), net, name="pde"), np.hstack([inside, walls, start]), domain),
        (dirichlet(net, domain, 0.0).loss(net), walls),
        (initial(net, domain, lambda x, t: ops.sin(np.pi * x)).loss(net), start),
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
