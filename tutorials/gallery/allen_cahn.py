"""Allen_Cahn: u_t = d u_xx + 5 (u - u^3) on [-1, 1] x [0, 1], d = 0.001, u(x, 0) = x^2 cos(pi x),
u(-1, t) = u(1, t) = -1. Reference: finite differences on 3,201 nodes in x (the Laplacian's three
points) integrated by ``scipy.integrate.solve_ivp`` (BDF, rtol 1e-10): 7.7e-6 relative L2 from the
same on 1,601 nodes, 1.6e-4 from the example's stored Allen_Cahn.mat.

DeepXDE's examples/pinn_forward/Allen_Cahn.py written with symgrad.pinn: the example's network
([2, 20, 20, 20, 1], tanh, Glorot normal) inside its output transform
(u = x^2 cos(pi x) + t (1 - x^2) y: the conditions hold exactly), the equation at its 8000 points
inside, 400 on the walls and 800 at t = 0, trained by ``solve``.
Departures from the example: scrambled Halton points (DeepXDE: Hammersley); the reference is
computed here (DeepXDE reads examples/dataset/Allen_Cahn.mat; the test set is that file's grid).

    python tutorials/gallery/allen_cahn.py [seconds]   # default 60
"""

from __future__ import annotations

import sys
from functools import cache

import numpy as np
from scipy.integrate import solve_ivp
from scipy.sparse import diags

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, grad, predict, solve

D = 0.001
TIMES = np.linspace(0, 1, 101)


@cache
def reference(nodes: int = 3200) -> tuple[np.ndarray, np.ndarray]:
    """(x, u): u (nodes + 1, 101) at the nodes x = -1 + 2 j / nodes and the times ``TIMES``."""
    x = np.linspace(-1, 1, nodes + 1)
    h, inner = 2 / nodes, x[1:-1]
    laplacian = diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(nodes - 1, nodes - 1)) / h**2
    walls = np.zeros(nodes - 1)
    walls[[0, -1]] = -1 / h**2  # u = -1 at both walls

    def rates(t, u):
        return D * (laplacian @ u + walls) + 5 * (u - u**3)

    def jacobian(t, u):
        return D * laplacian + diags(5 - 15 * u**2)

    start = inner**2 * np.cos(np.pi * inner)
    sol = solve_ivp(rates, (0, 1), start, "BDF", TIMES, rtol=1e-10, atol=1e-12, jac=jacobian)
    wall = -np.ones((1, TIMES.size))
    return x, np.vstack([wall, sol.y, wall])


def exact(X):
    """u at the (n, 2) points (x, t) of the test grid (x a multiple of 0.01, t of 0.01), (n, 1)."""
    x, u = reference()
    j = np.rint((X[:, 0] + 1) * (x.size - 1) / 2).astype(int)
    k = np.rint(X[:, 1] * (TIMES.size - 1)).astype(int)
    if not (np.allclose(x[j], X[:, 0], atol=1e-12) and np.allclose(TIMES[k], X[:, 1], atol=1e-12)):
        raise ValueError("allen_cahn.exact: points must lie on the reference's nodes and times")
    return u[j, k][:, None]


def test_points():
    """The example's test grid (that of Allen_Cahn.mat): 201 x 101 points of [-1, 1] x [0, 1], (n, 2)."""
    x, t = np.meshgrid(np.linspace(-1, 1, 201), TIMES, indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)

    def u(x, t):  # the example's output transform
        return x**2 * ops.cos(np.pi * x) + t * (1 - x**2) * net(x, t)

    def allen_cahn(x, t):
        value = u(x, t)
        return grad(u, 1)(x, t) - D * grad(grad(u, 0), 0)(x, t) - 5 * (value - value**3)

    points = np.hstack(
        [
            domain.interior(8000, "halton", seed),
            domain.boundary(400, "halton", seed),
            domain.initial(800, "halton", seed),
        ]
    )
    return [(ResidualLoss(allen_cahn, ("x", "t"), net, name="pde"), points, domain)], net, u, None


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
