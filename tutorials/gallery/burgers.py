"""Burgers: u_t + u u_x = (0.01 / pi) u_xx on [-1, 1] x [0, 0.99], u = 0 at x = -1 and 1,
u(x, 0) = -sin(pi x); reference by the Cole-Hopf transform (``symgrad.pinn.Burgers``).

DeepXDE's examples/pinn_forward/Burgers.py written with symgrad.pinn: the example's network
([2, 20, 20, 20, 1], tanh, Glorot normal), its 2540 points inside, 80 on the walls and 160 at
t = 0 (the equation at all of them, each condition at its own), trained by ``solve``, which adds
points drawn in the domain (chosen by residual) once they no longer represent it.
Departures from the example: the reference is the Cole-Hopf solution on ``Burgers().grid()``
(DeepXDE reads a stored one from Burgers.npz); scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/burgers.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Burgers, Interval, ResidualLoss, SpaceTime, dirichlet, initial, predict, solve

BURGERS = Burgers()


def exact(X):
    """u at the (n, 2) points (x, t), (n, 1), by Cole-Hopf."""
    return BURGERS.exact(X[:, 0], X[:, 1])[:, None]


def test_points():
    """``Burgers().grid()`` as (n, 2) points."""
    return np.stack([g.ravel() for g in BURGERS.grid()], 1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(-1, 1), 0, 0.99)
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)
    inside = domain.interior(2540, "halton", seed)
    walls = domain.boundary(80, "halton", seed)
    start = domain.initial(160, "halton", seed)
    terms = [
        (
            ResidualLoss(BURGERS.pde(net), BURGERS.inputs, net, name="pde"),
            np.hstack([inside, walls, start]),
            domain,
        ),
        (dirichlet(net, domain, 0.0).loss(net), walls),
        (initial(net, domain, lambda x, t: -ops.sin(np.pi * x)).loss(net), start),
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
