"""Klein_Gordon: u_tt - u_xx + u^2 = -x cos t + x^2 cos^2 t on [-1, 1] x [0, 10], u = exact on the
walls and at t = 0, u_t(x, 0) = 0; exact u = x cos t.

DeepXDE's examples/pinn_forward/Klein_Gordon.py written with symgrad.pinn: the example's network
([2, 40, 40, 1], tanh, Glorot uniform), its 30000 points inside, 1500 on the walls and 1500 at
t = 0 (the equation at all of them, each condition at its own), trained by ``solve``.
Departures from the example: none but the points, scrambled Halton (DeepXDE: Hammersley). (The
example names no PyTorch backend only because it imports tf.cos; the gallery bench runs DeepXDE
with the backend's cos.)

    python tutorials/gallery/klein_gordon.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, dirichlet, grad, initial, predict, solve


def exact(X):
    """u at the (n, 2) points (x, t), (n, 1)."""
    return X[:, 0:1] * np.cos(X[:, 1:2])


def test_points():
    """A 256 x 256 grid of [-1, 1] x [0, 10], (n, 2)."""
    x, t = np.meshgrid(np.linspace(-1, 1, 256), np.linspace(0, 10, 256), indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(-1, 1), 0, 10)
    net = MLP([2, 40, 40, 1], "tanh", "glorot_uniform", seed=seed)

    def pde(x, t):
        u, c = net(x, t), ops.cos(t)
        return grad(grad(net, 1), 1)(x, t) - grad(grad(net, 0), 0)(x, t) + u * u + x * c - x * x * c * c

    inside = domain.interior(30000, "halton", seed)
    walls = domain.boundary(1500, "halton", seed)
    start = domain.initial(1500, "halton", seed)
    terms = [
        (ResidualLoss(pde, ("x", "t"), net, name="pde"), np.hstack([inside, walls, start]), domain),
        (dirichlet(net, domain, lambda x, t: x * ops.cos(t)).loss(net), walls),
        (initial(net, domain, lambda x, t: x).loss(net), start),
        (initial(net, domain, 0.0, derivative=1, name="u_t(x, 0)").loss(net), start),
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
