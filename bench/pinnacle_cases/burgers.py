"""PINNacle's Burgers 1d-C."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from symgrad import ops
from symgrad.pinn import (
    Interval,
    SpaceTime,
    dirichlet,
    grad,
    initial,
)

from .pieces import PI, Built, network, pde_term, term


# =====================================================================================
# Burgers 1d-C: u_t + u u_x = (0.01 / pi) u_xx on [-1, 1] x [0, 1]; u(x, 0) = -sin(pi x), u(+-1, t) = 0
# =====================================================================================
def burgers1d_pde(u: Callable) -> Callable:
    nu = 0.01 / PI

    def pde(x, t):
        return grad(u, 1)(x, t) + u(x, t) * grad(u, 0)(x, t) - nu * grad(grad(u, 0), 0)(x, t)

    return pde


def burgers1d(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net, u = network(2, 1, hidden, (-1, 0), (1, 1), seed)
    return Built(
        [
            pde_term(burgers1d_pde(u), ("x", "t"), net, domain, seed),
            term(initial(u, domain, lambda x, t: -ops.sin(PI * x)), net, 512, seed),
            term(dirichlet(u, domain, 0.0), net, 256, seed),
        ],
        net,
        u,
    )
