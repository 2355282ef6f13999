"""diffusion_reaction_rate: learn the reaction rate k(x) of l u'' - k u = sin(2 pi x) on [0, 1],
l = 0.01, u = 0 at both ends, from u observed at 100 points; true k = 0.1 + e^(-(x - 0.5)^2 / (2 0.15^2)).
Reference u: ``scipy.integrate.solve_bvp`` at the true k (tol 1e-8).

DeepXDE's examples/pinn_inverse/diffusion_reaction_rate.py written with symgrad.pinn: the example's
network (DeepXDE's PFNN [1, [20, 20], [20, 20], 2], tanh, Glorot uniform: a separate
[1, 20, 20, 1] network per output, here ``net_u`` and ``net_k``), its 50 points inside and the 2
ends (the equation at them), u = 0 at the ends, the 100 observations, trained by ``solve``.
Departures from the example: the observations come from solve_bvp at tol 1e-8 (the example's
default tol 1e-3); the error reported is that of u and k stacked, each field's also printed;
scrambled Halton points (DeepXDE: a uniform grid).

    python tutorials/gallery/diffusion_reaction_rate.py [seconds]   # default 60
"""

from __future__ import annotations

import sys
from functools import cache

import numpy as np
from scipy.integrate import solve_bvp

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, dirichlet, grad, observations, predict, solve

L = 0.01
OBSERVED_X = np.linspace(0, 1, 100).reshape(100, 1)  # where u is observed, (n, 1)


def rate(x):
    """The true reaction rate k(x)."""
    return 0.1 + np.exp(-0.5 * (x - 0.5) ** 2 / 0.15**2)


@cache
def reference():
    """u by solve_bvp at the true k: a callable of x."""

    def system(x, y):
        return np.vstack((y[1], (rate(x) * y[0] + np.sin(2 * np.pi * x)) / L))

    mesh = np.linspace(0, 1, 101)
    done = solve_bvp(system, lambda a, b: np.array([a[0], b[0]]), mesh, np.zeros((2, mesh.size)), tol=1e-8,
                     max_nodes=1000000)  # fmt: skip
    if not done.success:
        raise RuntimeError(f"diffusion_reaction_rate: solve_bvp failed: {done.message}")
    return done.sol


def exact(X):
    """(u, k) at the (n, 1) points X, (n, 2)."""
    return np.hstack([reference()(X[:, 0])[0][:, None], rate(X)])


def test_points():
    """The example's 500 points on [0, 1], (n, 1)."""
    return np.linspace(0, 1, 500)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    (u, k) as a function of x, and the unknowns' values (None: the unknown is the field k, an output)."""
    line = Interval(0, 1)
    net_u = MLP([1, 20, 20, 1], "tanh", "glorot_uniform", seed=seed)
    net_k = MLP([1, 20, 20, 1], "tanh", "glorot_uniform", seed=seed + 1000)
    params = [*net_u.trainable_params(), *net_k.trainable_params()]
    walls = dirichlet(net_u, line, 0.0)
    data = observations(net_u, OBSERVED_X.T, exact(OBSERVED_X)[:, 0], ("x",))

    def pde(x):
        return L * grad(grad(net_u))(x) - net_u(x) * net_k(x) - ops.sin(2 * np.pi * x)

    terms = [
        (
            ResidualLoss(pde, ("x",), params, name="pde"),
            np.hstack([line.interior(50, "halton", seed), line.boundary(2)]),
        ),
        (walls.loss(params), line.boundary(2)),
        (data.loss(params), data.sample()),
    ]
    return terms, params, lambda x: (net_u(x), net_k(x)), None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 errors on the test points."""
    terms, params, u, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(u, X.T), axis=1), exact(X)
    for k, name in enumerate("uk"):
        own = np.linalg.norm(predicted[:, k] - expected[:, k]) / np.linalg.norm(expected[:, k])
        print(f"relative L2 error of {name}: {own:.3e}")
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    print(f"relative L2 error on {len(X)} test points: {error:.3e} (u and k together)")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
