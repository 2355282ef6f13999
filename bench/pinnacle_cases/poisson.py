"""PINNacle's 2-D Poisson cases: Poisson 2d-C (Laplace around four disks) and 2d-CG (Poisson-Boltzmann)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from symgrad import ops
from symgrad.pinn import (
    Rectangle,
    dirichlet,
    laplacian,
)

from .pieces import PI, Built, network, on_box_edge, pde_term, term, with_holes

# =====================================================================================
# Poisson 2d-C: Laplace's equation on [-1/2, 1/2]^2 less four disks; u = 1 on the square, 0 on the disks
# =====================================================================================
CLASSIC_DISKS = [(0.3, 0.3, 0.1), (-0.3, 0.3, 0.1), (0.3, -0.3, 0.1), (-0.3, -0.3, 0.1)]


def laplace_pde(u: Callable) -> Callable:
    return lambda x, y: laplacian(u, (0, 1))(x, y)


def poisson2d_classic(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    lows, highs = (-0.5, -0.5), (0.5, 0.5)
    shape = with_holes(Rectangle(lows, highs), CLASSIC_DISKS)
    net, u = network(2, 1, hidden, lows, highs, seed)
    square = on_box_edge(lows, highs)
    return Built(
        [
            pde_term(laplace_pde(u), ("x", "y"), net, shape, seed),
            term(dirichlet(u, shape, 1.0, on=square, name="square"), net, 512, seed),
            term(dirichlet(u, shape, 0.0, on=lambda x, y: ~square(x, y), name="disks"), net, 512, seed),
        ],
        net,
        u,
    )


# =====================================================================================
# Poisson 2d-CG (Poisson-Boltzmann): -Laplace(u) + k^2 u = f on [-1, 1]^2 less four disks;
# u = 0.2 on the square, 1 on the disks; k = 8, f = 10 (1 + x^2 + 16 + y^2) sin(pi x) sin(4 pi y)
# =====================================================================================
BOLTZMANN_DISKS = [(0.5, 0.5, 0.2), (0.4, -0.4, 0.4), (-0.2, -0.7, 0.1), (-0.6, 0.5, 0.3)]


def poisson_boltzmann2d_pde(u: Callable) -> Callable:
    def pde(x, y):
        f = 10 * (1 + x**2 + 16 + y**2) * ops.sin(PI * x) * ops.sin(4 * PI * y)
        return -laplacian(u, (0, 1))(x, y) + 64 * u(x, y) - f

    return pde


def poisson_boltzmann2d(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    lows, highs = (-1, -1), (1, 1)
    shape = with_holes(Rectangle(lows, highs), BOLTZMANN_DISKS)
    net, u = network(2, 1, hidden, lows, highs, seed)
    square = on_box_edge(lows, highs)
    return Built(
        [
            pde_term(poisson_boltzmann2d_pde(u), ("x", "y"), net, shape, seed),
            term(dirichlet(u, shape, 0.2, on=square, name="square"), net, 512, seed),
            term(dirichlet(u, shape, 1.0, on=lambda x, y: ~square(x, y), name="disks"), net, 512, seed),
        ],
        net,
        u,
    )
