"""The gallery's 1-D Poisson problems for DeepXDE: Dirichlet, Neumann, Robin, periodic and exactBC.

The symgrad side, the exact solutions and the test points are in tutorials/gallery/<name>.py
(``scripts``).
"""

from __future__ import annotations

import numpy as np

from .common import DeepXDE, scripts

sin_pi = scripts.poisson_dirichlet_1d.exact  # sin(pi x): the Dirichlet and periodic problems' solution
square_plus = scripts.poisson_neumann_1d.exact  # (x + 1)^2: the Neumann and Robin problems'


# =====================================================================================
# Poisson 1-D: -u'' = pi^2 sin(pi x) (Dirichlet, periodic), u'' = 2 (Neumann, Robin)
# =====================================================================================
def poisson_dirichlet_1d_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x) - np.pi**2 * dde.backend.sin(np.pi * x)

    geom = dde.geometry.Interval(-1, 1)
    bc = dde.icbc.DirichletBC(geom, sin_pi, lambda x, on_boundary: on_boundary)
    data = dde.data.PDE(geom, pde, bc, 16, 2, solution=sin_pi, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def poisson_neumann_1d_deepxde(dde):
    def pde(x, y):
        return dde.grad.hessian(y, x) - 2

    geom = dde.geometry.Interval(-1, 1)
    bc_l = dde.icbc.DirichletBC(geom, square_plus, lambda x, on: on and dde.utils.isclose(x[0], -1))
    bc_r = dde.icbc.NeumannBC(geom, lambda X: 2 * (X + 1), lambda x, on: on and dde.utils.isclose(x[0], 1))
    data = dde.data.PDE(geom, pde, [bc_l, bc_r], 16, 2, solution=square_plus, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def poisson_robin_1d_deepxde(dde):
    def pde(x, y):
        return dde.grad.hessian(y, x) - 2

    geom = dde.geometry.Interval(-1, 1)
    bc_l = dde.icbc.DirichletBC(geom, square_plus, lambda x, on: on and dde.utils.isclose(x[0], -1))
    bc_r = dde.icbc.RobinBC(geom, lambda X, y: y, lambda x, on: on and dde.utils.isclose(x[0], 1))
    data = dde.data.PDE(geom, pde, [bc_l, bc_r], 16, 2, solution=square_plus, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def poisson_periodic_1d_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x) - np.pi**2 * dde.backend.sin(np.pi * x)

    geom = dde.geometry.Interval(-1, 1)
    bc1 = dde.icbc.DirichletBC(geom, sin_pi, lambda x, on: on and dde.utils.isclose(x[0], -1))
    bc2 = dde.icbc.PeriodicBC(geom, 0, lambda x, on: on and dde.utils.isclose(x[0], 1))
    data = dde.data.PDE(geom, pde, [bc1, bc2], 16, 2, solution=sin_pi, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


# Poisson_Dirichlet_1d_exactBC: -u'' = sum_{i=1..4} i sin(i x) + 8 sin(8 x) on [0, pi], u(0) = 0, u(pi) = pi
def poisson_exact_bc_deepxde(dde):
    sin = dde.backend.sin

    def pde(x, y):
        return -dde.grad.hessian(y, x) - sum(i * sin(i * x) for i in range(1, 5)) - 8 * sin(8 * x)

    geom = dde.geometry.Interval(0, np.pi)
    data = dde.data.PDE(
        geom, pde, [], num_domain=64, solution=scripts.poisson_dirichlet_1d_exact_bc.exact, num_test=400
    )
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(lambda x, y: x * (np.pi - x) * y + x)
    return DeepXDE(dde.Model(data, net), iterations=30000, lr=1e-4, decay=("inverse time", 1000, 0.3))


# =====================================================================================
# Poisson_multiscale_1d: u'' = -(2 pi)^2 sin(2 pi x) - 0.1 (50 pi)^2 sin(50 pi x), MsFFN
# =====================================================================================
def poisson_multiscale_1d_deepxde(dde):
    problem, sin = scripts.poisson_multiscale_1d, dde.backend.sin
    a, b = problem.A, problem.B

    def pde(x, y):
        return (
            dde.grad.hessian(y, x)
            + (np.pi * a) ** 2 * sin(np.pi * a * x)
            + 0.1 * (np.pi * b) ** 2 * sin(np.pi * b * x)
        )

    geom = dde.geometry.Interval(0, 1)
    bc = dde.icbc.DirichletBC(geom, problem.exact, lambda _, on_boundary: on_boundary)
    data = dde.data.PDE(
        geom, pde, bc, 1280, 2, train_distribution="pseudo", solution=problem.exact, num_test=10000
    )
    # DeepXDE 1.15's PyTorch backend has no MsFFN: an FNN of the same sizes (as wave_1d's STMsFFN)
    net = dde.nn.FNN([1] + [100] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(
        dde.Model(data, net), iterations=20000, decay=("inverse time", 2000, 0.9),
        callbacks=[dde.callbacks.PDEPointResampler(period=1)],
    )  # fmt: skip
