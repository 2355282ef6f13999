"""PINNacle's Wave 1d-C."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

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
# Wave 1d-C: u_tt = 4 u_xx on [0, 1] x [0, 1]; exact u = sin(pi x) cos(2 pi t) + sin(4 pi x) cos(8 pi t) / 2
# (u and u_t = 0 at t = 0, u = 0 at x = 0, 1)
# =====================================================================================
def wave_exact(x, t):
    return np.sin(PI * x) * np.cos(2 * PI * t) + 0.5 * np.sin(4 * PI * x) * np.cos(8 * PI * t)


def wave1d_pde(u: Callable) -> Callable:
    def pde(x, t):
        return grad(grad(u, 1), 1)(x, t) - 4 * grad(grad(u, 0), 0)(x, t)

    return pde


def wave1d(seed: int, hidden: Sequence[int], root: Path | None = None) -> Built:
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net, u = network(2, 1, hidden, (0, 0), (1, 1), seed)

    def start(x, t):
        return ops.sin(PI * x) + 0.5 * ops.sin(4 * PI * x)

    return Built(
        [
            pde_term(wave1d_pde(u), ("x", "t"), net, domain, seed),
            term(initial(u, domain, start, name="u(x,0)"), net, 512, seed),
            term(initial(u, domain, 0.0, derivative=1, name="u_t(x,0)"), net, 512, seed),
            term(dirichlet(u, domain, 0.0), net, 512, seed),
        ],
        net,
        u,
    )
