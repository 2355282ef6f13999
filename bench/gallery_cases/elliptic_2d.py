"""The gallery's 2-D elliptic problems for DeepXDE: Poisson on the L-shape, Laplace on the disk, Helmholtz,
Kovasznay, the elasticity plate.

The symgrad side, the exact solutions and the test points are in tutorials/gallery/<name>.py
(``scripts``).
"""

from __future__ import annotations

import numpy as np

from .common import DeepXDE, component, scripts


# =====================================================================================
# Poisson_Lshape: -lap u = 1 on the L-shape, u = 0 on its boundary; finite-difference reference
# =====================================================================================
def poisson_lshape_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x, i=0, j=0) - dde.grad.hessian(y, x, i=1, j=1) - 1

    geom = dde.geometry.Polygon(scripts.poisson_lshape.LSHAPE)
    # DeepXDE 1.15's Polygon gives float64 boundary points whatever the default float, and PyTorch
    # then refuses the float32 network ("mat1 and mat2 must have the same dtype"): cast them
    boundary_points = geom.random_boundary_points
    geom.random_boundary_points = lambda n, random="pseudo": boundary_points(n, random).astype(
        dde.config.real(np)
    )
    bc = dde.icbc.DirichletBC(geom, lambda x: 0, lambda _, on_boundary: on_boundary)
    data = dde.data.PDE(geom, pde, bc, num_domain=1200, num_boundary=120, num_test=1500)
    net = dde.nn.FNN([2] + [50] * 4 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=50000, lbfgs=True)


# =====================================================================================
# Laplace_disk: r u_r + r^2 u_rr + u_tt = 0 in polar coordinates, u(1, theta) = cos(theta)
# =====================================================================================
def laplace_disk_deepxde(dde):
    sin, cos = dde.backend.sin, dde.backend.cos

    def pde(x, y):
        dy_r = dde.grad.jacobian(y, x, i=0, j=0)
        dy_rr = dde.grad.hessian(y, x, i=0, j=0)
        dy_thetatheta = dde.grad.hessian(y, x, i=1, j=1)
        return x[:, 0:1] * dy_r + x[:, 0:1] ** 2 * dy_rr + dy_thetatheta

    geom = dde.geometry.Rectangle(xmin=[0, 0], xmax=[1, 2 * np.pi])
    bc_rad = dde.icbc.DirichletBC(
        geom, lambda x: np.cos(x[:, 1:2]), lambda x, on_boundary: on_boundary and dde.utils.isclose(x[0], 1)
    )
    data = dde.data.PDE(
        geom, pde, bc_rad, num_domain=2540, num_boundary=80, solution=scripts.laplace_disk.exact
    )
    net = dde.nn.FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")
    net.apply_feature_transform(
        lambda x: dde.backend.concat([x[:, 0:1] * sin(x[:, 1:2]), x[:, 0:1] * cos(x[:, 1:2])], 1)
    )
    return DeepXDE(dde.Model(data, net), iterations=15000)


# =====================================================================================
# Helmholtz: -lap u - k0^2 u = k0^2 sin(k0 x) sin(k0 y)
# =====================================================================================
def helmholtz_dirichlet_2d_deepxde(dde):
    sin = dde.backend.sin
    k0 = scripts.helmholtz_dirichlet_2d.K0

    def pde(x, y):
        dy_xx, dy_yy = dde.grad.hessian(y, x, i=0, j=0), dde.grad.hessian(y, x, i=1, j=1)
        return -dy_xx - dy_yy - k0**2 * y - k0**2 * sin(k0 * x[:, 0:1]) * sin(k0 * x[:, 1:2])

    geom = dde.geometry.Rectangle([0, 0], [1, 1])
    nx_train, nx_test = int(1 / (0.5 / 10)), int(1 / (0.5 / 30))  # wave length / precision
    data = dde.data.PDE(
        geom, pde, [], num_domain=nx_train**2, num_boundary=4 * nx_train,
        solution=scripts.helmholtz_dirichlet_2d.exact, num_test=nx_test**2,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [150] * 3 + [1], "sin", "Glorot uniform")
    net.apply_output_transform(lambda x, y: x[:, 0:1] * (1 - x[:, 0:1]) * x[:, 1:2] * (1 - x[:, 1:2]) * y)
    return DeepXDE(dde.Model(data, net), iterations=5000)


def helmholtz_neumann_2d_hole_deepxde(dde):
    sin = dde.backend.sin
    hole = scripts.helmholtz_neumann_2d_hole
    k0 = hole.K0
    outer = dde.geometry.Rectangle([-0.5, -0.5], [0.5, 0.5])
    inner = dde.geometry.Disk([0, 0], hole.HOLE_R)

    def pde(x, y):
        dy_xx, dy_yy = dde.grad.hessian(y, x, i=0, j=0), dde.grad.hessian(y, x, i=1, j=1)
        return -dy_xx - dy_yy - k0**2 * y - k0**2 * sin(k0 * x[:, 0:1]) * sin(k0 * x[:, 1:2])

    def neumann(x):
        gradient = np.array(
            [
                k0 * np.cos(k0 * x[:, 0:1]) * np.sin(k0 * x[:, 1:2]),
                k0 * np.sin(k0 * x[:, 0:1]) * np.cos(k0 * x[:, 1:2]),
            ]
        )
        normal = np.array([-inner.boundary_normal(x)]).T
        return np.sum(gradient * normal, axis=0)

    geom = outer - inner
    nx_train, nx_test = int(1 / (1 / 15)), int(1 / (1 / 30))
    bc_inner = dde.icbc.NeumannBC(geom, neumann, lambda x, on: on and inner.on_boundary(x))
    bc_outer = dde.icbc.DirichletBC(geom, hole.exact, lambda x, on: on and outer.on_boundary(x))
    data = dde.data.PDE(
        geom, pde, [bc_inner, bc_outer], num_domain=nx_train**2, num_boundary=16 * nx_train,
        solution=hole.exact, num_test=nx_test**2,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [350] * 3 + [1], "sin", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=5000, loss_weights=[1, 10, 100])


# =====================================================================================
# Kovasznay_flow: steady Navier-Stokes at Re = 20, exact (u, v, p); u, v on the boundary, p at x = 1
# =====================================================================================
def kovasznay_flow_deepxde(dde):
    flow = scripts.kovasznay_flow

    def pde(x, u):
        u_vel, v_vel = u[:, 0:1], u[:, 1:2]
        u_x, u_y = dde.grad.jacobian(u, x, i=0, j=0), dde.grad.jacobian(u, x, i=0, j=1)
        v_x, v_y = dde.grad.jacobian(u, x, i=1, j=0), dde.grad.jacobian(u, x, i=1, j=1)
        p_x, p_y = dde.grad.jacobian(u, x, i=2, j=0), dde.grad.jacobian(u, x, i=2, j=1)
        u_lap = dde.grad.hessian(u, x, component=0, i=0, j=0) + dde.grad.hessian(u, x, component=0, i=1, j=1)
        v_lap = dde.grad.hessian(u, x, component=1, i=0, j=0) + dde.grad.hessian(u, x, component=1, i=1, j=1)
        return [
            u_vel * u_x + v_vel * u_y + p_x - u_lap / flow.RE,
            u_vel * v_x + v_vel * v_y + p_y - v_lap / flow.RE,
            u_x + v_y,
        ]

    geom = dde.geometry.Rectangle(xmin=[-0.5, -0.5], xmax=[1, 1.5])
    everywhere = lambda _, on_boundary: on_boundary  # noqa: E731
    outflow = lambda x, on_boundary: on_boundary and dde.utils.isclose(x[0], 1)  # noqa: E731
    bcs = [
        dde.icbc.DirichletBC(geom, component(flow.exact, 0), everywhere, component=0),
        dde.icbc.DirichletBC(geom, component(flow.exact, 1), everywhere, component=1),
        dde.icbc.DirichletBC(geom, component(flow.exact, 2), outflow, component=2),
    ]
    data = dde.data.PDE(geom, pde, bcs, num_domain=2601, num_boundary=400, num_test=100000)
    net = dde.nn.FNN([2] + 4 * [50] + [3], "tanh", "Glorot normal")
    return DeepXDE(dde.Model(data, net), iterations=30000, lbfgs=True)


# =====================================================================================
# elasticity_plate: linear elasticity, five outputs (displacement and stress), conditions built in
# =====================================================================================
def elasticity_plate_deepxde(dde):
    plate = scripts.elasticity_plate
    sin, stack = dde.backend.sin, dde.backend.stack
    stiff = 2 * plate.MU + plate.LAMBDA

    def hard_bc(x, f):
        u_x = f[:, 0] * x[:, 1] * (1 - x[:, 1])
        u_y = f[:, 1] * x[:, 0] * (1 - x[:, 0]) * x[:, 1]
        s_xx = f[:, 2] * x[:, 0] * (1 - x[:, 0])
        s_yy = f[:, 3] * (1 - x[:, 1]) + stiff * plate.Q * sin(np.pi * x[:, 0])
        return stack((u_x, u_y, s_xx, s_yy, f[:, 4]), axis=1)

    def pde(x, f):
        jac = lambda i, j: dde.grad.jacobian(f, x, i=i, j=j)  # noqa: E731
        hooke = plate.stress(jac(0, 0), jac(1, 1), 0.5 * (jac(0, 1) + jac(1, 0)))
        f_x, f_y = plate.load(x[:, 0:1], x[:, 1:2], dde.backend)
        return [
            jac(2, 0) + jac(4, 1) - f_x,
            jac(4, 0) + jac(3, 1) - f_y,
            *(s - f[:, k : k + 1] for k, s in enumerate(hooke, start=2)),
        ]

    data = dde.data.PDE(
        dde.geometry.Rectangle([0, 0], [1, 1]), pde, [], num_domain=500, num_boundary=500, num_test=100
    )
    net = dde.nn.PFNN([2, [40] * 5, [40] * 5, [40] * 5, [40] * 5, 5], "tanh", "Glorot uniform")
    net.apply_output_transform(hard_bc)
    return DeepXDE(dde.Model(data, net), iterations=5000)
