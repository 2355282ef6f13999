"""diffusion_1d_exactBC: u_t = u_xx - e^-t (sin(pi x) - pi^2 sin(pi x)) on [-1, 1] x [0, 1], with
the boundary and initial values built into u; exact u = e^-t sin(pi x).

DeepXDE's examples/pinn_forward/diffusion_1d_exactBC.py written with symgrad.pinn: the example's
network ([2, 32, 32, 32, 1], tanh, Glorot uniform) inside its output transform
u = t (1 - x^2) N(x, t) + sin(pi x) (``hard_constraint``: the equation is the only term), its 40
points, trained by ``solve``, which adds points drawn in the domain (chosen by residual) once the
loss has converged at those.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/diffusion_1d_exact_bc.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, grad, hard_constraint, predict, solve


def exact(X):
    """u at the (n, 2) points (x, t), (n, 1)."""
    return np.sin(np.pi * X[:, 0:1]) * np.exp(-X[:, 1:2])


def test_points():
    """A 100 x 100 grid of [-1, 1] x [0, 1], (n, 2)."""
    x, t = np.meshgrid(np.linspace(-1, 1, 100), np.linspace(0, 1, 100), indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points, domain): ``solve`` draws new
    points in the domain once the loss converges at these), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net = MLP([2, 32, 32, 32, 1], "tanh", "glorot_uniform", seed=seed)
    u = hard_constraint(net, lambda x, t: ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))

    def pde(x, t):
        source = ops.exp(-t) * (ops.sin(np.pi * x) - np.pi**2 * ops.sin(np.pi * x))
        return grad(u, 1)(x, t) - grad(grad(u, 0), 0)(x, t) + source

    return (
        [(ResidualLoss(pde, ("x", "t"), net, name="pde"), domain.interior(40, "halton", seed), domain)],
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
