"""Laplace_disk: Laplace's equation on the unit disk in polar coordinates,
r u_r + r^2 u_rr + u_thetatheta = 0 on (r, theta) in [0, 1] x [0, 2 pi], u(1, theta) = cos(theta);
exact u = r cos(theta).

DeepXDE's examples/pinn_forward/Laplace_disk.py written with symgrad.pinn: the example's network
([2, 20, 20, 20, 1], tanh, Glorot normal) behind its feature transform (the network sees
(r sin theta, r cos theta), so u is periodic in theta), its 2540 points inside and 80 on the
rectangle's boundary (the equation at all of them, the condition at those on r = 1), trained by
``solve``.
Departures from the example: the equation's term carries its domain, so ``solve`` may draw new
points there by residual (at 150 s it converges on the given ones and draws none); scrambled
Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/laplace_disk.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Rectangle, ResidualLoss, dirichlet, grad, predict, solve


def exact(X):
    """u at the (n, 2) points (r, theta), (n, 1)."""
    return X[:, 0:1] * np.cos(X[:, 1:2])


def test_points():
    """A 100 x 100 grid of (r, theta) in [0, 1] x [0, 2 pi], (n, 2)."""
    r, theta = np.meshgrid(np.linspace(0, 1, 100), np.linspace(0, 2 * np.pi, 100), indexing="ij")
    return np.stack([r.ravel(), theta.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (r, theta), and the unknowns' values (None: a forward problem)."""
    polar = Rectangle((0, 0), (1, 2 * np.pi))
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)

    def u(r, theta):  # the example's feature transform: the network sees (r sin theta, r cos theta)
        return net(r * ops.sin(theta), r * ops.cos(theta))

    u_r = grad(u, 0)

    def pde(r, theta):
        return r * u_r(r, theta) + r * r * grad(u_r, 0)(r, theta) + grad(grad(u, 1), 1)(r, theta)

    walls = polar.boundary(80, "halton", seed)  # DeepXDE's 80 boundary points; the condition holds on r = 1
    rim = walls[:, np.isclose(walls[0], 1.0)]
    terms = [
        (
            ResidualLoss(pde, ("r", "theta"), net, name="pde"),
            np.hstack([polar.interior(2540, "halton", seed), walls]),
            polar,
        ),
        (dirichlet(u, polar, lambda r, theta: ops.cos(theta), inputs=("r", "theta")).loss(net), rim),
    ]
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
