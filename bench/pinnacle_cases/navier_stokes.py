"""PINNacle's steady Navier-Stokes cases: NS 2d-C (lid-driven cavity) and 2d-CG (backward-facing step)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from symgrad.pinn import (
    Condition,
    Polygon,
    Rectangle,
    ResidualLoss,
    dirichlet,
    grad,
    laplacian,
    observations,
)

from .pieces import Built, field, near, network, term


# =====================================================================================
# Steady incompressible Navier-Stokes, nu = 1/100: u, v, p
# =====================================================================================
def navier_stokes(u: Callable, nu: float) -> Callable:
    vx, vy, p = (field(u, k) for k in range(3))

    def equations(x, y):
        a, b = vx(x, y), vy(x, y)
        ax, ay, bx, by = grad(vx, 0)(x, y), grad(vx, 1)(x, y), grad(vy, 0)(x, y), grad(vy, 1)(x, y)
        return (
            a * ax + b * ay + grad(p, 0)(x, y) - nu * laplacian(vx, (0, 1))(x, y),
            a * bx + b * by + grad(p, 1)(x, y) - nu * laplacian(vy, (0, 1))(x, y),
            ax + by,
        )

    return equations


NS_TERMS = ("momentum_x", "momentum_y", "continuity")


def velocity_condition(u: Callable, shape, values: tuple, on: Callable, name: str) -> Condition:
    """u = values[0] and v = values[1] on part of the boundary: one term, two components."""
    first = dirichlet(field(u, 0), shape, values[0], on=on, name=name)
    second = dirichlet(field(u, 1), shape, values[1], on=on, name=name)
    return Condition(
        name, lambda x, y: (first.residual(x, y), second.residual(x, y)), first.sample, first.inputs
    )


def ns_lid_driven(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    """NS 2d-C: the lid-driven cavity [0, 1]^2, lid velocity u = 4 x (1 - x), v = 0 at y = 1; no slip
    on the other walls; p(0, 0) = 0."""
    square = Rectangle((0, 0), (1, 1))
    net, u = network(2, 3, hidden, (0, 0), (1, 1), seed)
    top = lambda x, y: near(y, 1.0)  # noqa: E731
    anchor = observations(field(u, 2), np.zeros((2, 1)), np.zeros(1), ("x", "y"), name="p(0,0)")
    return Built(
        [
            (
                ResidualLoss(navier_stokes(u, 0.01), ("x", "y"), net, name="ns", term_names=NS_TERMS),
                square.interior(4096, "halton", seed),
                square,
            ),
            term(
                velocity_condition(u, square, (lambda x, y: 4 * x * (1 - x), 0.0), top, "lid"), net, 256, seed
            ),
            term(velocity_condition(u, square, (0.0, 0.0), lambda x, y: ~top(x, y), "walls"), net, 768, seed),
            term(anchor, net, 1, seed),
        ],
        net,
        u,
    )


BACKSTEP = [(0, 0), (4, 0), (4, 2), (2, 2), (2, 1), (0, 1)]


def ns_backstep(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    """NS 2d-CG: the channel [0, 4] x [0, 2] less [0, 2] x [1, 2] (a backward-facing step); inflow
    u = 4 y (1 - y), v = 0 at x = 0; p = 0 at x = 4; no slip on the other walls."""
    shape = Polygon(BACKSTEP)
    net, u = network(2, 3, hidden, (0, 0), (4, 2), seed)
    inlet, outlet = (lambda x, y: near(x, 0.0)), (lambda x, y: near(x, 4.0))
    pressure = dirichlet(field(u, 2), shape, 0.0, on=outlet, name="outlet")
    return Built(
        [
            (
                ResidualLoss(navier_stokes(u, 0.01), ("x", "y"), net, name="ns", term_names=NS_TERMS),
                shape.interior(4096, "halton", seed),
                shape,
            ),
            term(
                velocity_condition(u, shape, (lambda x, y: 4 * y * (1 - y), 0.0), inlet, "inlet"),
                net,
                256,
                seed,
            ),
            term(pressure, net, 256, seed),
            term(
                velocity_condition(u, shape, (0.0, 0.0), lambda x, y: ~(inlet(x, y) | outlet(x, y)), "walls"),
                net,
                768,
                seed,
            ),
        ],
        net,
        u,
    )
