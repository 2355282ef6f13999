"""diffusion_reaction: u_t = u_xx + e^-t sum_k (k^2 - 1)/k sin(k x), k = 2, 3, 4, 8, on
[-pi, pi] x [0, 1], with the boundary and initial values built into u;
exact u = e^-t sum_{k = 1, 2, 3, 4, 8} sin(k x) / k.

DeepXDE's examples/pinn_forward/diffusion_reaction.py written with symgrad.pinn: the example's
network ([2, 30 x 6, 1], tanh, Glorot uniform) inside its output transform
u = t (pi^2 - x^2) N(x, t) + sum_k sin(k x) / k (``hard_constraint``: the equation is the only
term), its 320 points, trained by ``solve``.
Departures from the example: the equation's term carries its domain, so ``solve`` draws new points
there by residual once the loss has converged or the points no longer represent the domain (150 s,
seeds 0 / 1: error 1.7e-7 / 2.4e-7 with it, 5.9e-7 / 3.4e-7 without); scrambled Halton points
(DeepXDE: Hammersley).

    python tutorials/gallery/diffusion_reaction.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, grad, hard_constraint, predict, solve

MODES = (1, 2, 3, 4, 8)


def exact(X):
    """u at the (n, 2) points (x, t), (n, 1)."""
    return np.exp(-X[:, 1:2]) * sum(np.sin(k * X[:, 0:1]) / k for k in MODES)


def test_points():
    """A 200 x 100 grid of [-pi, pi] x [0, 1], (n, 2)."""
    x, t = np.meshgrid(np.linspace(-np.pi, np.pi, 200), np.linspace(0, 1, 100), indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(-np.pi, np.pi), 0, 1)
    net = MLP([2, 30, 30, 30, 30, 30, 30, 1], "tanh", "glorot_uniform", seed=seed)
    u = hard_constraint(  # the example's output transform
        net, lambda x, t: sum(ops.sin(k * x) / k for k in MODES), lambda x, t: t * (np.pi**2 - x * x)
    )

    def pde(x, t):
        source = sum((k * k - 1) / k * ops.sin(k * x) for k in MODES[1:])
        return grad(u, 1)(x, t) - grad(grad(u, 0), 0)(x, t) - ops.exp(-t) * source

    return (
        [(ResidualLoss(pde, ("x", "t"), net, name="pde"), domain.interior(320, "halton", seed), domain)],
        net,
        u,
        None,
    )


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
