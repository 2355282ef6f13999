"""PINNacle's high-dimensional cases: PNd (Poisson on [0, 1]^5) and HNd (heat on the 5-ball)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    Box,
    SpaceTime,
    dirichlet,
    grad,
    initial,
    laplacian,
    neumann,
)

from .pieces import PI, Ball, Built, network, pde_term, term
from .references import exact

# =====================================================================================
# High dimension. PNd: Laplace(u) = -(pi^2 / 4) sum sin(pi x_i / 2) on [0, 1]^5, u = sum sin(pi x_i / 2)
# (exact, and on the boundary). HNd: u_t = Laplace(u) / 5 - |x|^2 exp(|x|^2 / 2 + t) / 5 on the unit
# 5-ball x [0, 1]; du/dn = exp(|x|^2 / 2 + t) on the sphere, u(x, 0) = exp(|x|^2 / 2); exact exp(|x|^2 / 2 + t)
# =====================================================================================
NAMES5 = ("x1", "x2", "x3", "x4", "x5")


def poisson_nd_exact(*xs):
    return sum(np.sin(PI * x / 2) for x in xs)


def poisson_nd_value(*xs):
    return sum(ops.sin(PI * x / 2) for x in xs)


def poisson_nd_pde(u: Callable) -> Callable:
    def pde(*xs):
        return laplacian(u, tuple(range(5)))(*xs) + PI**2 / 4 * sum(ops.sin(PI * x / 2) for x in xs)

    return pde


def poisson_nd(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    cube = Box([0] * 5, [1] * 5)
    net, u = network(5, 1, hidden, [0] * 5, [1] * 5, seed)

    return Built(
        [
            pde_term(poisson_nd_pde(u), NAMES5, net, cube, seed),
            term(dirichlet(u, cube, poisson_nd_value, inputs=NAMES5), net, 1024, seed),
        ],
        net,
        u,
    )


def heat_nd_exact(*xt):
    *xs, t = xt
    return np.exp(sum(x**2 for x in xs) / 2 + t)


def heat_nd_value(*xt):
    """exp(|x|^2 / 2 + t) in symgrad ops: the solution, its normal derivative on the unit sphere, u(x, 0)."""
    *xs, t = xt
    return ops.exp(sum(x**2 for x in xs) / 2 + t)


def heat_nd_pde(u: Callable) -> Callable:
    def pde(*xt):
        *xs, t = xt
        source = -sum(x**2 for x in xs) * ops.exp(sum(x**2 for x in xs) / 2 + t) / 5
        return laplacian(u, tuple(range(5)))(*xt) / 5 + source - grad(u, 5)(*xt)

    return pde


def heat_nd(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    domain = SpaceTime(Ball([0] * 5, 1.0), 0, 1)
    names = (*NAMES5, "t")
    net, u = network(6, 1, hidden, [-1] * 5 + [0], [1] * 6, seed)

    return Built(
        [
            pde_term(heat_nd_pde(u), names, net, domain, seed),
            term(neumann(u, domain, heat_nd_value, inputs=names), net, 1024, seed),
            term(initial(u, domain, heat_nd_value, inputs=names), net, 1024, seed),
        ],
        net,
        u,
    )


def ball_points(root: Path | None) -> tuple[np.ndarray, np.ndarray]:
    points = SpaceTime(Ball([0] * 5, 1.0), 0, 1).interior(20000, "halton", 12345).T
    return exact(points, heat_nd_exact)
