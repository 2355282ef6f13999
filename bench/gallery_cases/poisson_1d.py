"""The gallery's 1-D Poisson problems: Dirichlet, Neumann, Robin, periodic and exactBC."""

from __future__ import annotations

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Interval,
    ResidualLoss,
    dirichlet,
    grad,
    hard_constraint,
    neumann,
    periodic,
    robin,
)

from .common import DeepXDE, Symgrad, at, halton


# =====================================================================================
# Poisson 1-D: -u'' = pi^2 sin(pi x) (Dirichlet, periodic), u'' = 2 (Neumann, Robin)
# =====================================================================================
def sin_pi(X):
    return np.sin(np.pi * X)


def square_plus(X):
    return (X + 1) ** 2


def poisson_dirichlet_1d_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x) - np.pi**2 * dde.backend.sin(np.pi * x)

    geom = dde.geometry.Interval(-1, 1)
    bc = dde.icbc.DirichletBC(geom, sin_pi, lambda x, on_boundary: on_boundary)
    data = dde.data.PDE(geom, pde, bc, 16, 2, solution=sin_pi, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def poisson_dirichlet_1d_symgrad(seed):
    line = Interval(-1, 1)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)

    def pde(x):
        return -grad(grad(net))(x) - np.pi**2 * ops.sin(np.pi * x)

    walls = dirichlet(net, line, value=lambda x: ops.sin(np.pi * x))
    terms = [
        (ResidualLoss(pde, ("x",), net, name="pde"), np.hstack([halton(line, 16, seed), line.boundary(2)])),
        (walls.loss(net), line.boundary(2)),
    ]
    return Symgrad(terms, net, net)


def poisson_neumann_1d_deepxde(dde):
    def pde(x, y):
        return dde.grad.hessian(y, x) - 2

    geom = dde.geometry.Interval(-1, 1)
    bc_l = dde.icbc.DirichletBC(geom, square_plus, lambda x, on: on and dde.utils.isclose(x[0], -1))
    bc_r = dde.icbc.NeumannBC(geom, lambda X: 2 * (X + 1), lambda x, on: on and dde.utils.isclose(x[0], 1))
    data = dde.data.PDE(geom, pde, [bc_l, bc_r], 16, 2, solution=square_plus, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def _poisson_2_symgrad(seed, right):
    """u'' = 2 on [-1, 1], u(-1) = 0, and ``right(net, line)``, a condition at x = 1."""
    line = Interval(-1, 1)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    left = dirichlet(net, line, value=0.0, on=line.face(0, "low"), name="u(-1)")
    flux = right(net, line)
    terms = [
        (
            ResidualLoss(lambda x: grad(grad(net))(x) - 2, ("x",), net, name="pde"),
            np.hstack([halton(line, 16, seed), line.boundary(2)]),
        ),
        (left.loss(net), at(-1)),
        (flux.loss(net), flux.sample(1)),
    ]
    return Symgrad(terms, net, net)


def poisson_neumann_1d_symgrad(seed):
    # du/dn = 2 (x + 1) at x = 1 (the outward normal is +x there)
    return _poisson_2_symgrad(
        seed, lambda net, line: neumann(net, line, lambda x: 2 * (x + 1), on=line.face(0, "high"))
    )


def poisson_robin_1d_deepxde(dde):
    def pde(x, y):
        return dde.grad.hessian(y, x) - 2

    geom = dde.geometry.Interval(-1, 1)
    bc_l = dde.icbc.DirichletBC(geom, square_plus, lambda x, on: on and dde.utils.isclose(x[0], -1))
    bc_r = dde.icbc.RobinBC(geom, lambda X, y: y, lambda x, on: on and dde.utils.isclose(x[0], 1))
    data = dde.data.PDE(geom, pde, [bc_l, bc_r], 16, 2, solution=square_plus, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def poisson_robin_1d_symgrad(seed):
    # du/dn = u at x = 1: -u + du/dn = 0
    return _poisson_2_symgrad(
        seed, lambda net, line: robin(net, line, a=-1.0, b=1.0, on=line.face(0, "high"))
    )


def poisson_periodic_1d_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x) - np.pi**2 * dde.backend.sin(np.pi * x)

    geom = dde.geometry.Interval(-1, 1)
    bc1 = dde.icbc.DirichletBC(geom, sin_pi, lambda x, on: on and dde.utils.isclose(x[0], -1))
    bc2 = dde.icbc.PeriodicBC(geom, 0, lambda x, on: on and dde.utils.isclose(x[0], 1))
    data = dde.data.PDE(geom, pde, [bc1, bc2], 16, 2, solution=sin_pi, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def poisson_periodic_1d_symgrad(seed):
    # u(-1) = 0 and u(-1) = u(1) make sin(pi x) the only solution
    line = Interval(-1, 1)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)

    def pde(x):
        return -grad(grad(net))(x) - np.pi**2 * ops.sin(np.pi * x)

    left = dirichlet(net, line, value=0.0, name="u(-1)")
    same = periodic(net, line, axis=0, derivatives=0)
    terms = [
        (ResidualLoss(pde, ("x",), net, name="pde"), np.hstack([halton(line, 16, seed), line.boundary(2)])),
        (left.loss(net), at(-1)),
        (same.loss(net), same.sample(1)),
    ]
    return Symgrad(terms, net, net)


# Poisson_Dirichlet_1d_exactBC: -u'' = sum_{i=1..4} i sin(i x) + 8 sin(8 x) on [0, pi], u(0) = 0, u(pi) = pi
def poisson_exact_bc_exact(X):
    return X + sum(np.sin(i * X) / i for i in range(1, 5)) + np.sin(8 * X) / 8


def poisson_exact_bc_deepxde(dde):
    sin = dde.backend.sin

    def pde(x, y):
        return -dde.grad.hessian(y, x) - sum(i * sin(i * x) for i in range(1, 5)) - 8 * sin(8 * x)

    geom = dde.geometry.Interval(0, np.pi)
    data = dde.data.PDE(geom, pde, [], num_domain=64, solution=poisson_exact_bc_exact, num_test=400)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(lambda x, y: x * (np.pi - x) * y + x)
    return DeepXDE(dde.Model(data, net), iterations=30000, lr=1e-4, decay=("inverse time", 1000, 0.3))


def poisson_exact_bc_symgrad(seed):
    line = Interval(0, np.pi)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    u = hard_constraint(net, lambda x: x, lambda x: x * (np.pi - x))  # the example's output transform

    def pde(x):
        return -grad(grad(u))(x) - sum(i * ops.sin(i * x) for i in range(1, 5)) - 8 * ops.sin(8 * x)

    return Symgrad([(ResidualLoss(pde, ("x",), net, name="pde"), halton(line, 64, seed))], net, u)
