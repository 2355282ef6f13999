"""Beltrami_flow: the unsteady incompressible Navier-Stokes equations in 3-D at Re = 1 on
[-1, 1]^3 x [0, 1] (four equations: three momentum, continuity); the velocity (u, v, w) as exact
on the cube's faces and at t = 0. Exact (Ethier & Steinman 1994, a = d = 1), e.g.
u = -a (e^(a x) sin(a y + d z) + e^(a z) cos(a x + d y)) e^(-d^2 t). The pressure is fixed by no
condition (only up to a constant), so the error is the velocity's, as the example reports it.

DeepXDE's examples/pinn_forward/Beltrami_flow.py written with symgrad.pinn: the example's network
([4, 50 x 4, 4], tanh, Glorot normal), its 50,000 points inside, 5,000 on the faces and 5,000 at
t = 0 (the equations at all of them, each condition at its own), its loss weights (1 for the
equations, 100 for the conditions), trained by ``solve``.
Departures from the example: scrambled Halton points (DeepXDE: Hammersley); the test set is the
example's 10 x 10 x 10 grid at t = 0 and at t = 1 together.

    python tutorials/gallery/beltrami_flow.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Box,
    ResidualLoss,
    SpaceTime,
    dirichlet,
    grad,
    initial,
    laplacian,
    predict,
    solve,
)

A, D, RE = 1.0, 1.0, 1.0
WEIGHT = 100.0  # the example's weight of each condition


def velocity(x, y, z, t, m=np):
    """(u, v, w), by NumPy (``m = np``) or as symgrad expressions (``m = ops``)."""
    decay = m.exp(-(D**2) * t)
    u = -A * (m.exp(A * x) * m.sin(A * y + D * z) + m.exp(A * z) * m.cos(A * x + D * y)) * decay
    v = -A * (m.exp(A * y) * m.sin(A * z + D * x) + m.exp(A * x) * m.cos(A * y + D * z)) * decay
    w = -A * (m.exp(A * z) * m.sin(A * x + D * y) + m.exp(A * y) * m.cos(A * z + D * x)) * decay
    return u, v, w


def exact(X):
    """(u, v, w) at the (n, 4) points (x, y, z, t), (n, 3)."""
    return np.hstack(velocity(*(X[:, k : k + 1] for k in range(4))))


def test_points():
    """The example's 10 x 10 x 10 grid of the cube at t = 0 and at t = 1, (2000, 4)."""
    grid = np.stack(np.meshgrid(*3 * [np.linspace(-1, 1, 10)], indexing="ij"), axis=-1).reshape(-1, 3)
    return np.vstack([np.hstack([grid, np.full((1000, 1), t)]) for t in (0.0, 1.0)])


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equations' with their
    domain, where ``solve`` draws new points by residual), the weights to train, the velocity as a
    function of (x, y, z, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Box((-1, -1, -1), (1, 1, 1)), 0, 1)
    net = MLP([4, 50, 50, 50, 50, 4], "tanh", "glorot_normal", seed=seed)
    fields = [net.output(k) for k in range(4)]  # u, v, w, p
    space = (0, 1, 2)

    def navier_stokes(x, y, z, t):
        where = (x, y, z, t)
        speeds = [f(*where) for f in fields[:3]]
        momentum = tuple(
            grad(f, 3)(*where)
            + sum(s * grad(f, k)(*where) for k, s in enumerate(speeds))
            + grad(fields[3], i)(*where)
            - laplacian(f, space)(*where) / RE
            for i, f in enumerate(fields[:3])
        )
        return (*momentum, sum(grad(f, k)(*where) for k, f in enumerate(fields[:3])))

    def part(k):
        return lambda *where: velocity(*where, m=ops)[k]

    inside, faces, start = (
        domain.interior(50000, "halton", seed),
        domain.boundary(5000, "halton", seed),
        domain.initial(5000, "halton", seed),
    )
    terms = [
        (
            ResidualLoss(navier_stokes, ("x", "y", "z", "t"), net, name="pde"),
            np.hstack([inside, faces, start]),
            domain,
        )
    ]
    for k, name in enumerate("uvw"):
        terms.append(
            (
                dirichlet(fields[k], domain, part(k), name=f"{name} on the faces").loss(net, weight=WEIGHT),
                faces,
            )
        )
        terms.append(
            (initial(fields[k], domain, part(k), name=f"{name} at t = 0").loss(net, weight=WEIGHT), start)
        )

    def solution(x, y, z, t):
        return tuple(f(x, y, z, t) for f in fields[:3])

    return terms, net, solution, None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 errors on the test points."""
    terms, params, solution, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(solution, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    for k, name in enumerate("uvw"):
        own = np.linalg.norm(predicted[:, k] - expected[:, k]) / np.linalg.norm(expected[:, k])
        print(f"relative L2 error of {name}: {own:.3e}")
    print(f"relative L2 error on {len(X)} test points: {error:.3e} (u, v, w together)")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
