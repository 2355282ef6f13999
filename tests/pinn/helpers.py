"""Small problems several PINN test files share."""

from __future__ import annotations

from symgrad.pinn import MLP, ResidualLoss


def xy_fit(seed: int = 0) -> tuple[MLP, ResidualLoss]:
    """u(x, y) = x y by a network [2, 6, 1] (25 weights), the term named "fit": on a dozen points
    its loss goes down to rounding errors."""
    net = MLP([2, 6, 1], seed=seed)
    return net, ResidualLoss(lambda x, y: net(x, y) - x * y, ("x", "y"), net, backend="numpy", name="fit")
