"""PINNacle's 2-D heat cases: Heat 2d-MS (multi-scale) and 2d-LT (long time)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    Rectangle,
    SpaceTime,
    dirichlet,
    grad,
    initial,
    laplacian,
)

from .pieces import PI, Built, network, pde_term, term


# =====================================================================================
# Heat 2d-MS: u_t = u_xx / (500 pi)^2 + u_yy / pi^2 on [0, 1]^2 x [0, 5]; u = 0 on the boundary,
# u(x, y, 0) = sin(20 pi x) sin(pi y); exact: that times exp(-(1/625 + 1) t)
# =====================================================================================
def heat_multiscale_exact(x, y, t):
    return np.sin(20 * PI * x) * np.sin(PI * y) * np.exp(-(400 / 500**2 + 1) * t)


def heat_multiscale_pde(u: Callable) -> Callable:
    def pde(x, y, t):
        u_xx, u_yy = grad(grad(u, 0), 0)(x, y, t), grad(grad(u, 1), 1)(x, y, t)
        return grad(u, 2)(x, y, t) - u_xx / (500 * PI) ** 2 - u_yy / PI**2

    return pde


def heat_multiscale(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    domain = SpaceTime(Rectangle((0, 0), (1, 1)), 0, 5)
    net, u = network(3, 1, hidden, (0, 0, 0), (1, 1, 5), seed)
    start = initial(u, domain, lambda x, y, t: ops.sin(20 * PI * x) * ops.sin(PI * y))
    return Built(
        [
            pde_term(heat_multiscale_pde(u), ("x", "y", "t"), net, domain, seed),
            term(start, net, 1024, seed),
            term(dirichlet(u, domain, 0.0), net, 1024, seed),
        ],
        net,
        u,
    )


# =====================================================================================
# Heat 2d-LT: u_t = 0.001 Laplace(u) + 5 sin(u^2) (1 + 2 sin(pi t / 4)) sin(4 pi x) sin(2 pi y)
# on [0, 1]^2 x [0, 100]; u = 0 on the boundary, u(x, y, 0) = sin(4 pi x) sin(3 pi y)
# =====================================================================================
def heat_longtime_pde(u: Callable) -> Callable:
    def pde(x, y, t):
        v = u(x, y, t)
        source = 5 * ops.sin(v**2) * (1 + 2 * ops.sin(PI * t / 4)) * ops.sin(4 * PI * x) * ops.sin(2 * PI * y)
        return grad(u, 2)(x, y, t) - 0.001 * laplacian(u, (0, 1))(x, y, t) - source

    return pde


def heat_longtime(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    domain = SpaceTime(Rectangle((0, 0), (1, 1)), 0, 100)
    net, u = network(3, 1, hidden, (0, 0, 0), (1, 1, 100), seed)
    start = initial(u, domain, lambda x, y, t: ops.sin(4 * PI * x) * ops.sin(3 * PI * y))
    return Built(
        [
            pde_term(heat_longtime_pde(u), ("x", "y", "t"), net, domain, seed),
            term(start, net, 1024, seed),
            term(dirichlet(u, domain, 0.0), net, 1024, seed),
        ],
        net,
        u,
    )
