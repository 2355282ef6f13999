"""elasticity_plate: linear elasticity on the unit square (Haghighat et al. 2021), the displacement
(u_x, u_y) and the stress (s_xx, s_yy, s_xy) as five outputs, lambda = 1, mu = 0.5, Q = 4:
s_xx,x + s_xy,y = f_x, s_xy,x + s_yy,y = f_y, and each stress equal to Hooke's law of the strain
(e_xx = u_x,x, e_yy = u_y,y, e_xy = (u_x,y + u_y,x) / 2): s_xx = (2 mu + lambda) e_xx + lambda e_yy,
s_yy = (2 mu + lambda) e_yy + lambda e_xx, s_xy = 2 mu e_xy. Exact: u_x = cos(2 pi x) sin(pi y),
u_y = Q y^4 sin(pi x) / 4 and the stresses of their strains.

DeepXDE's examples/pinn_forward/elasticity_plate.py written with symgrad.pinn: the example's
parallel network (five networks [2, 40 x 4, 1], one an output, tanh, Glorot uniform) inside its
output transform (the conditions held exactly: u_x = 0 at y = 0 and 1, u_y = 0 at x = 0 and 1 and
y = 0, s_xx = 0 at x = 0 and 1, s_yy = (2 mu + lambda) Q sin(pi x) at y = 1), the five equations at
its 500 points inside and 500 on the boundary, trained by ``solve``.
Departures from the example: scrambled Halton points (DeepXDE: Hammersley); the test set is a
101 x 101 grid (DeepXDE: 100 random points).

    python tutorials/gallery/elasticity_plate.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Rectangle, ResidualLoss, grad, predict, solve

LAMBDA, MU, Q = 1.0, 0.5, 4.0
PI = np.pi


def displacement(x, y):
    """The exact (u_x, u_y) at the arrays x, y."""
    return np.cos(2 * PI * x) * np.sin(PI * y), np.sin(PI * x) * Q * y**4 / 4


def stress(e_xx, e_yy, e_xy):
    """(s_xx, s_yy, s_xy) of the strains by Hooke's law: arrays, symgrad expressions or DeepXDE's tensors."""
    return (2 * MU + LAMBDA) * e_xx + LAMBDA * e_yy, (2 * MU + LAMBDA) * e_yy + LAMBDA * e_xx, 2 * MU * e_xy


def load(x, y, m=np):
    """The body force (f_x, f_y) of the exact displacement, as the example writes it."""
    cos2x, sin2x, sinx, cosx = m.cos(2 * PI * x), m.sin(2 * PI * x), m.sin(PI * x), m.cos(PI * x)
    siny, cosy = m.sin(PI * y), m.cos(PI * y)
    f_x = (
        -LAMBDA * (4 * PI**2 * cos2x * siny - Q * y**3 * PI * cosx)
        - MU * (PI**2 * cos2x * siny - Q * y**3 * PI * cosx)
        - 8 * MU * PI**2 * cos2x * siny
    )
    f_y = (
        LAMBDA * (3 * Q * y**2 * sinx - 2 * PI**2 * cosy * sin2x)
        - MU * (2 * PI**2 * cosy * sin2x + Q * y**4 * PI**2 * sinx / 4)
        + 6 * Q * MU * y**2 * sinx
    )
    return f_x, f_y


def exact(X):
    """(u_x, u_y, s_xx, s_yy, s_xy) at the (n, 2) points (x, y), (n, 5)."""
    x, y = X[:, 0:1], X[:, 1:2]
    u_x, u_y = displacement(x, y)
    e_xx = -2 * PI * np.sin(2 * PI * x) * np.sin(PI * y)
    e_yy = np.sin(PI * x) * Q * y**3
    e_xy = (PI * np.cos(2 * PI * x) * np.cos(PI * y) + PI * np.cos(PI * x) * Q * y**4 / 4) / 2
    return np.hstack([u_x, u_y, *stress(e_xx, e_yy, e_xy)])


def test_points():
    """A 101 x 101 grid of the unit square, (n, 2)."""
    x, y = np.meshgrid(np.linspace(0, 1, 101), np.linspace(0, 1, 101), indexing="ij")
    return np.stack([x.ravel(), y.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equations' with their
    domain, where ``solve`` draws new points by residual), the weights to train, the solution as a
    function of (x, y), and the unknowns' values (None: a forward problem)."""
    square = Rectangle((0, 0), (1, 1))
    nets = [MLP([2, 40, 40, 40, 40, 1], "tanh", "glorot_uniform", seed=5 * seed + k) for k in range(5)]

    def u_x(x, y):  # the example's output transform
        return nets[0](x, y) * y * (1 - y)

    def u_y(x, y):
        return nets[1](x, y) * x * (1 - x) * y

    def s_xx(x, y):
        return nets[2](x, y) * x * (1 - x)

    def s_yy(x, y):
        return nets[3](x, y) * (1 - y) + (LAMBDA + 2 * MU) * Q * ops.sin(PI * x)

    def s_xy(x, y):
        return nets[4](x, y)

    def elasticity(x, y):
        e_xx, e_yy = grad(u_x, 0)(x, y), grad(u_y, 1)(x, y)
        e_xy = (grad(u_x, 1)(x, y) + grad(u_y, 0)(x, y)) / 2
        f_x, f_y = load(x, y, ops)
        hooke_xx, hooke_yy, hooke_xy = stress(e_xx, e_yy, e_xy)
        return (
            grad(s_xx, 0)(x, y) + grad(s_xy, 1)(x, y) - f_x,
            grad(s_xy, 0)(x, y) + grad(s_yy, 1)(x, y) - f_y,
            hooke_xx - s_xx(x, y),
            hooke_yy - s_yy(x, y),
            hooke_xy - s_xy(x, y),
        )

    def solution(x, y):
        return u_x(x, y), u_y(x, y), s_xx(x, y), s_yy(x, y), s_xy(x, y)

    params = [p for net in nets for p in net.trainable_params()]
    points = np.hstack([square.interior(500, "halton", seed), square.boundary(500, "halton", seed)])
    terms = [(ResidualLoss(elasticity, ("x", "y"), params, name="pde"), points, square)]
    return terms, params, solution, None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 errors on the test points."""
    terms, params, solution, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(solution, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    for k, name in enumerate(("u_x", "u_y", "s_xx", "s_yy", "s_xy")):
        own = np.linalg.norm(predicted[:, k] - expected[:, k]) / np.linalg.norm(expected[:, k])
        print(f"relative L2 error of {name}: {own:.3e}")
    print(f"relative L2 error on {len(X)} test points: {error:.3e} (the five outputs together)")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
