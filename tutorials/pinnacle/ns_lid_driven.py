"""PINNacle's NS 2d-C: the steady incompressible Navier-Stokes equations (nu = 1/100) in the
lid-driven cavity [0, 1]^2: u = 4 x (1 - x), v = 0 on the lid y = 1, no slip on the other walls,
p(0, 0) = 0; outputs u, v, p.

The benchmark's problem (Hao et al., NeurIPS 2024; PINNacle's src/pde/ns.py, NS2D_LidDriven)
written with symgrad.pinn: an MLP [2, 32, 32, 32, 3] (tanh, Glorot normal) on the inputs mapped
from the square onto [-1, 1]^2, the three equations as one term on 4096 Halton points, the lid's
velocity on 256 boundary points, the walls' on 768 and the pressure's value at the origin as an
observation, trained by ``solve``; the L2RE over u, v and p together (as PINNacle) on its COMSOL
reference (ref/lid_driven_a4.dat of a PINNacle checkout).

    python tutorials/pinnacle/ns_lid_driven.py [seconds] [PINNacle folder]   # default 120 s
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from symgrad.pinn import (
    MLP,
    Condition,
    Rectangle,
    ResidualLoss,
    comsol_steady,
    dirichlet,
    grad,
    laplacian,
    observations,
    predict,
    solve,
)

HIDDEN = (32, 32, 32)
LOWS, HIGHS = (0, 0), (1, 1)
NU = 0.01
FILES = ("ref/lid_driven_a4.dat",)


def network(seed: int = 0, hidden=HIDDEN):
    """The MLP and (u, v, p)(x, y): the MLP on (x, y) mapped affinely from the box onto [-1, 1]^2."""
    net = MLP([2, *hidden, 3], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(LOWS, HIGHS)]
    half = [(hi - lo) / 2 for lo, hi in zip(LOWS, HIGHS)]
    return net, lambda *xs: net(*((x - c) / h for x, c, h in zip(xs, centre, half)))


def component(flow, k: int):
    """Output k of ``flow`` as a function of its own: u (0), v (1) or p (2)."""
    return lambda x, y: flow(x, y)[k]


def navier_stokes(flow, nu: float = NU):
    """The momentum (x, y) and continuity residuals of ``flow`` (x, y) -> (u, v, p)."""
    vx, vy, p = (component(flow, k) for k in range(3))

    def equations(x, y):
        a, b = vx(x, y), vy(x, y)
        ax, ay, bx, by = grad(vx, 0)(x, y), grad(vx, 1)(x, y), grad(vy, 0)(x, y), grad(vy, 1)(x, y)
        return (
            a * ax + b * ay + grad(p, 0)(x, y) - nu * laplacian(vx, (0, 1))(x, y),
            a * bx + b * by + grad(p, 1)(x, y) - nu * laplacian(vy, (0, 1))(x, y),
            ax + by,
        )

    return equations


def velocity(flow, shape, values: tuple, on, name: str) -> Condition:
    """u = values[0] and v = values[1] where ``on`` holds on the boundary: one term, two components."""
    first = dirichlet(component(flow, 0), shape, values[0], on=on, name=name)
    second = dirichlet(component(flow, 1), shape, values[1], on=on, name=name)
    return Condition(
        name, lambda x, y: (first.residual(x, y), second.residual(x, y)), first.sample, first.inputs
    )


def on_lid(x, y):
    return np.isclose(y, 1.0, atol=1e-9)


def build(seed: int = 0, hidden=HIDDEN, root=None):
    """(terms, params, flow): the loss terms ((loss, points) pairs; the equations' with their domain,
    where ``solve`` draws new points by residual), the weights to train and (u, v, p)(x, y)."""
    square = Rectangle(LOWS, HIGHS)
    net, flow = network(seed, hidden)
    equations = ResidualLoss(
        navier_stokes(flow), ("x", "y"), net, name="ns", term_names=("momentum_x", "momentum_y", "continuity")
    )
    lid = velocity(flow, square, (lambda x, y: 4 * x * (1 - x), 0.0), on_lid, "lid")
    walls = velocity(flow, square, (0.0, 0.0), lambda x, y: ~on_lid(x, y), "walls")
    pressure = observations(component(flow, 2), np.zeros((2, 1)), np.zeros(1), ("x", "y"), name="p(0,0)")
    terms = [
        (equations, square.interior(4096, "halton", seed), square),
        (lid.loss(net), lid.sample(256, "halton", seed)),
        (walls.loss(net), walls.sample(768, "halton", seed)),
        (pressure.loss(net), pressure.sample(1, "halton", seed)),
    ]
    return terms, net, flow


def reference(root):
    """PINNacle's reference: points (n, 2) and (u, v, p) there, (n, 3)."""
    if root is None:
        raise FileNotFoundError(f"needs {FILES[0]} of a PINNacle checkout: pass the checkout's folder")
    return comsol_steady(Path(root) / FILES[0], 2, 3)


def main(seconds: float = 120.0, root=None) -> float:
    """Solve within ``seconds``; print what ``solve`` did and the L2RE on the reference points."""
    points, values = reference(root)
    terms, params, flow = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    predicted = np.column_stack(predict(flow, points.T))
    error = float(np.sqrt(np.mean((predicted - values) ** 2) / np.mean(values**2)))
    print(f"L2RE over u, v, p on {len(points)} reference points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 120.0, sys.argv[2] if len(sys.argv) > 2 else None)
