"""The gallery's inverse problems for DeepXDE: Lorenz_inverse, diffusion_1d_inverse, elliptic_inverse_field,
brinkman_forchheimer, reaction_inverse, diffusion_reaction_rate.

The symgrad side, the exact solutions, the true unknowns and the test points are in
tutorials/gallery/<name>.py (``scripts``).
"""

from __future__ import annotations

import numpy as np

from .common import DeepXDE, scripts
from .time_dependent import _diffusion_pde_deepxde


# =====================================================================================
# Inverse problems
# =====================================================================================
# Lorenz_inverse: y1' = C1 (y2 - y1), y2' = y1 (C2 - y3) - y2, y3' = y1 y2 - C3 y3; C = (10, 15, 8/3)
def lorenz_inverse_deepxde(dde):
    lorenz = scripts.lorenz_inverse
    C1, C2, C3 = dde.Variable(1.0), dde.Variable(1.0), dde.Variable(1.0)

    def Lorenz_system(x, y):  # noqa: N802 - the example's name
        y1, y2, y3 = y[:, 0:1], y[:, 1:2], y[:, 2:]
        dy1_x, dy2_x, dy3_x = (dde.grad.jacobian(y, x, i=k) for k in range(3))
        return [dy1_x - C1 * (y2 - y1), dy2_x - y1 * (C2 - y3) + y2, dy3_x - y1 * y2 + C3 * y3]

    geom = dde.geometry.TimeDomain(0, 3)
    on_initial = lambda _, on_initial: on_initial  # noqa: E731
    constant = lambda v: lambda X: v  # noqa: E731 - DeepXDE reads a second argument as auxiliary data
    ics = [dde.icbc.IC(geom, constant(v), on_initial, component=k) for k, v in enumerate(lorenz.START)]
    observe_t = lorenz.OBSERVED_T  # DeepXDE's Lorenz.npz: 25 observations on [0, 3]
    ob_y = lorenz.exact(observe_t)
    observed = [dde.icbc.PointSetBC(observe_t, ob_y[:, k : k + 1], component=k) for k in range(3)]
    data = dde.data.PDE(
        geom, Lorenz_system, [*ics, *observed], num_domain=400, num_boundary=2, anchors=observe_t
    )
    net = dde.nn.FNN([1] + [40] * 3 + [3], "tanh", "Glorot uniform")
    return DeepXDE(
        dde.Model(data, net), iterations=20000, lbfgs=True, variables=[C1, C2, C3],
        unknowns=lambda: {f"C{k + 1}": float(c.detach().cpu()) for k, c in enumerate((C1, C2, C3))},
    )  # fmt: skip


# diffusion_1d_inverse: diffusion_1d with the diffusivity C unknown (2 at first, 1 true), u seen at t = 1
def diffusion_1d_inverse_deepxde(dde):
    problem = scripts.diffusion_1d_inverse
    observed_x, diffusion_exact = problem.OBSERVED_X, problem.exact
    C = dde.Variable(2.0)
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, diffusion_exact, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, diffusion_exact, lambda _, on_initial: on_initial)
    observe_y = dde.icbc.PointSetBC(observed_x, diffusion_exact(observed_x), component=0)
    data = dde.data.TimePDE(
        geomtime, _diffusion_pde_deepxde(dde, C), [bc, ic, observe_y], num_domain=40, num_boundary=20,
        num_initial=10, anchors=observed_x, solution=diffusion_exact, num_test=10000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(
        dde.Model(data, net), iterations=50000, variables=[C], unknowns=lambda: {"C": float(C.detach().cpu())}
    )


# elliptic_inverse_field: -u'' + q = 0 on [-1, 1], u = sin(pi x) seen at 100 points; q = -pi^2 sin(pi x)
def elliptic_inverse_field_deepxde(dde):
    problem = scripts.elliptic_inverse_field
    observed_x = problem.OBSERVED_X

    def sin_pi(X):  # u
        return problem.exact(X)[:, 0:1]

    def pde(x, y):
        return -dde.grad.hessian(y, x, component=0, i=0, j=0) + y[:, 1:2]

    geom = dde.geometry.Interval(-1, 1)
    bc = dde.icbc.DirichletBC(geom, sin_pi, lambda _, on_boundary: on_boundary, component=0)
    observe_u = dde.icbc.PointSetBC(observed_x, sin_pi(observed_x), component=0)
    data = dde.data.PDE(
        geom, pde, [bc, observe_u], num_domain=200, num_boundary=2, anchors=observed_x, num_test=1000
    )
    net = dde.nn.PFNN([1, [20, 20], [20, 20], [20, 20], 2], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000, lr=0.0001, loss_weights=[1, 100, 1000])


# brinkman_forchheimer: -v_e / e u'' + v u / K = g, u = x (1 - x) net; v_e, K from 5 observations
def brinkman_forchheimer_deepxde(dde):
    problem = scripts.brinkman_forchheimer
    v_e, K = dde.Variable(0.1), dde.Variable(0.1)

    def pde(x, y):
        return -v_e / problem.POROSITY * dde.grad.hessian(y, x) + problem.NU * y / K - problem.G

    ob_x = problem.OBSERVED_X.T
    observe_u = dde.icbc.PointSetBC(ob_x, problem.exact(ob_x), component=0)
    data = dde.data.PDE(
        dde.geometry.Interval(0, 1), pde, solution=problem.exact, bcs=[observe_u], num_domain=100,
        num_boundary=0, train_distribution="uniform", num_test=500,
    )  # fmt: skip
    net = dde.nn.FNN([1] + [20] * 3 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(lambda x, y: x * (1 - x) * y)
    return DeepXDE(
        dde.Model(data, net), iterations=30000, variables=[v_e, K],
        unknowns=lambda: {"v_e": float(v_e.detach().cpu()), "K": float(K.detach().cpu())},
    )  # fmt: skip


# reaction_inverse: k_f and D of a reaction-diffusion system from C_A, C_B on a 201 x 201 grid
def reaction_inverse_deepxde(dde):
    problem = scripts.reaction_inverse
    k_f, D = dde.Variable(0.05), dde.Variable(1.0)

    def pde(x, y):
        ca, cb = y[:, 0:1], y[:, 1:2]
        dca_t, dcb_t = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.jacobian(y, x, i=1, j=1)
        dca_xx = dde.grad.hessian(y, x, component=0, i=0, j=0)
        dcb_xx = dde.grad.hessian(y, x, component=1, i=0, j=0)
        return [
            dca_t - 1e-3 * D * dca_xx + k_f * ca * cb**2,
            dcb_t - 1e-3 * D * dcb_xx + 2 * k_f * ca * cb**2,
        ]

    domain = dde.geometry.GeometryXTime(dde.geometry.Interval(0, 1), dde.geometry.TimeDomain(0, 10))
    walls = [
        dde.icbc.DirichletBC(domain, lambda x: 1 - x[:, 0:1], lambda _, on: on, component=k) for k in range(2)
    ]
    starts = [
        dde.icbc.IC(domain, lambda x: np.exp(-20 * x[:, 0:1]), lambda _, on: on, component=k)
        for k in range(2)
    ]
    observed_x = problem.test_points()
    seen = problem.exact(observed_x)
    data_terms = [dde.icbc.PointSetBC(observed_x, seen[:, k : k + 1], component=k) for k in range(2)]
    data = dde.data.TimePDE(
        domain, pde, [*walls, *starts, *data_terms], num_domain=2000, num_boundary=100, num_initial=100,
        anchors=observed_x, num_test=50000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [20] * 3 + [2], "tanh", "Glorot uniform")
    return DeepXDE(
        dde.Model(data, net), iterations=80000, variables=[k_f, D],
        unknowns=lambda: {"k_f": float(k_f.detach().cpu()), "D": float(D.detach().cpu())},
    )  # fmt: skip


# diffusion_reaction_rate: the field k(x) of l u'' - k u = sin(2 pi x) from u seen at 100 points
def diffusion_reaction_rate_deepxde(dde):
    problem = scripts.diffusion_reaction_rate
    observed_x = problem.OBSERVED_X

    def pde(x, y):
        du_xx = dde.grad.hessian(y, x, i=0, j=0, component=0)
        return problem.L * du_xx - y[:, 0:1] * y[:, 1:2] - dde.backend.sin(2 * np.pi * x)

    geom = dde.geometry.Interval(0, 1)
    bc = dde.icbc.DirichletBC(geom, lambda x: 0, lambda _, on_boundary: on_boundary, component=0)
    observe_u = dde.icbc.PointSetBC(observed_x, problem.exact(observed_x)[:, 0:1], component=0)
    data = dde.data.PDE(
        geom, pde, bcs=[bc, observe_u], num_domain=50, num_boundary=8, train_distribution="uniform",
        num_test=1000,
    )  # fmt: skip
    net = dde.nn.PFNN([1, [20, 20], [20, 20], 2], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000)
