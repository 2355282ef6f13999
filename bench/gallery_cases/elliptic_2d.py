"""The gallery's 2-D elliptic problems: Poisson on the L-shape, Laplace on the disk, Helmholtz."""

from __future__ import annotations

import functools

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Difference,
    Disk,
    Polygon,
    Rectangle,
    ResidualLoss,
    dirichlet,
    grad,
    hard_constraint,
    laplacian,
    neumann,
)

from .common import DeepXDE, Symgrad, grid, halton

# =====================================================================================
# Poisson_Lshape: -lap u = 1 on the L-shape, u = 0 on its boundary; finite-difference reference
# =====================================================================================
LSHAPE = [[0, 0], [1, 0], [1, -1], [-1, -1], [-1, 1], [0, 1]]


def _lshape_fd(cells: int) -> np.ndarray:
    """The 5-point finite-difference solution on the (cells + 1)^2 grid of [-1, 1]^2 (zero outside)."""
    import scipy.sparse as sparse
    import scipy.sparse.linalg as sparse_linalg

    h = 2.0 / cells
    g = np.linspace(-1, 1, cells + 1)
    X, Y = np.meshgrid(g, g, indexing="ij")
    eps = 1e-12
    inside = (np.abs(X) < 1 - eps) & (np.abs(Y) < 1 - eps) & ~((X > -eps) & (Y > -eps))
    index = -np.ones(X.shape, int)
    index[inside] = np.arange(inside.sum())
    rows_i, cols_j = np.nonzero(inside)
    rows, cols, vals = [index[rows_i, cols_j]], [index[rows_i, cols_j]], [np.full(len(rows_i), 4.0)]
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        k = index[rows_i + di, cols_j + dj]
        ok = k >= 0
        rows.append(index[rows_i, cols_j][ok])
        cols.append(k[ok])
        vals.append(-np.ones(ok.sum()))
    A = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))))
    u = np.zeros(X.shape)
    u[inside] = sparse_linalg.spsolve(A, np.full(len(rows_i), h * h))
    return u


@functools.lru_cache(maxsize=1)
def lshape_reference() -> tuple[np.ndarray, np.ndarray]:
    """Test points (the 65 x 65 grid's nodes in the L-shape, boundary included) and the reference
    there: h = 1/256 finite differences, Richardson-extrapolated with h = 1/128."""
    fine, coarse = _lshape_fd(512)[::8, ::8], _lshape_fd(256)[::4, ::4]
    g = np.linspace(-1, 1, 65)
    X, Y = np.meshgrid(g, g, indexing="ij")
    keep = ~((X > 1e-12) & (Y > 1e-12))
    return np.stack([X[keep], Y[keep]], 1), (fine + (fine - coarse) / 3)[keep][:, None]


def lshape_exact(X):
    points, values = lshape_reference()
    if X.shape != points.shape or not np.array_equal(X, points):
        raise ValueError("the L-shape's reference is known only at its test points")
    return values


def poisson_lshape_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x, i=0, j=0) - dde.grad.hessian(y, x, i=1, j=1) - 1

    geom = dde.geometry.Polygon(LSHAPE)
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


def poisson_lshape_symgrad(seed):
    shape = Polygon(LSHAPE)
    net = MLP([2, 50, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    walls = halton(shape, 120, seed, "boundary")
    pde = ResidualLoss(lambda x, y: -laplacian(net, (0, 1))(x, y) - 1, ("x", "y"), net, name="pde")
    terms = [
        (pde, np.hstack([halton(shape, 1200, seed), walls])),
        (dirichlet(net, shape, 0.0).loss(net), walls),
    ]
    return Symgrad(terms, net, net)


# =====================================================================================
# Laplace_disk: r u_r + r^2 u_rr + u_tt = 0 in polar coordinates, u(1, theta) = cos(theta)
# =====================================================================================
def laplace_disk_exact(X):
    return X[:, 0:1] * np.cos(X[:, 1:2])


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
    data = dde.data.PDE(geom, pde, bc_rad, num_domain=2540, num_boundary=80, solution=laplace_disk_exact)
    net = dde.nn.FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")
    net.apply_feature_transform(
        lambda x: dde.backend.concat([x[:, 0:1] * sin(x[:, 1:2]), x[:, 0:1] * cos(x[:, 1:2])], 1)
    )
    return DeepXDE(dde.Model(data, net), iterations=15000)


def laplace_disk_symgrad(seed):
    polar = Rectangle((0, 0), (1, 2 * np.pi))
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)

    def u(r, theta):  # the example's feature transform: the network sees (r sin theta, r cos theta)
        return net(r * ops.sin(theta), r * ops.cos(theta))

    u_r = grad(u, 0)

    def pde(r, theta):
        return r * u_r(r, theta) + r * r * grad(u_r, 0)(r, theta) + grad(grad(u, 1), 1)(r, theta)

    walls = halton(polar, 80, seed, "boundary")  # DeepXDE's 80 boundary points; the condition holds on r = 1
    rim = walls[:, np.isclose(walls[0], 1.0)]
    terms = [
        (ResidualLoss(pde, ("r", "theta"), net, name="pde"), np.hstack([halton(polar, 2540, seed), walls])),
        (dirichlet(u, polar, lambda r, theta: ops.cos(theta), inputs=("r", "theta")).loss(net), rim),
    ]
    return Symgrad(terms, net, u)


# =====================================================================================
# Helmholtz: -lap u - k0^2 u = k0^2 sin(k0 x) sin(k0 y)
# =====================================================================================
K2 = 2 * np.pi * 2  # Helmholtz_Dirichlet_2d: n = 2
K1 = 2 * np.pi * 1  # Helmholtz_Neumann_2d_hole: n = 1


def helmholtz_exact(k0):
    return lambda X: np.sin(k0 * X[:, 0:1]) * np.sin(k0 * X[:, 1:2])


def _helmholtz_pde(u, k0):
    def pde(x, y):
        return -laplacian(u, (0, 1))(x, y) - k0**2 * u(x, y) - k0**2 * ops.sin(k0 * x) * ops.sin(k0 * y)

    return pde


def helmholtz_dirichlet_2d_deepxde(dde):
    sin = dde.backend.sin
    k0 = K2

    def pde(x, y):
        dy_xx, dy_yy = dde.grad.hessian(y, x, i=0, j=0), dde.grad.hessian(y, x, i=1, j=1)
        return -dy_xx - dy_yy - k0**2 * y - k0**2 * sin(k0 * x[:, 0:1]) * sin(k0 * x[:, 1:2])

    geom = dde.geometry.Rectangle([0, 0], [1, 1])
    nx_train, nx_test = int(1 / (0.5 / 10)), int(1 / (0.5 / 30))  # wave length / precision
    data = dde.data.PDE(
        geom, pde, [], num_domain=nx_train**2, num_boundary=4 * nx_train,
        solution=helmholtz_exact(k0), num_test=nx_test**2,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [150] * 3 + [1], "sin", "Glorot uniform")
    net.apply_output_transform(lambda x, y: x[:, 0:1] * (1 - x[:, 0:1]) * x[:, 1:2] * (1 - x[:, 1:2]) * y)
    return DeepXDE(dde.Model(data, net), iterations=5000)


def helmholtz_dirichlet_2d_symgrad(seed):
    square = Rectangle((0, 0), (1, 1))
    net = MLP([2, 150, 150, 150, 1], "sin", "glorot_uniform", seed=seed)
    u = hard_constraint(net, 0.0, lambda x, y: x * (1 - x) * y * (1 - y))  # the example's output transform
    points = np.hstack([halton(square, 20**2, seed), halton(square, 4 * 20, seed, "boundary")])
    return Symgrad([(ResidualLoss(_helmholtz_pde(u, K2), ("x", "y"), net, name="pde"), points)], net, u)


HOLE_R = 1 / 4


def helmholtz_hole_test():
    g = np.linspace(-0.5, 0.5, 100)
    X = grid(g, g)
    return X[np.hypot(X[:, 0], X[:, 1]) >= HOLE_R]  # the example's grid, less the points in the hole


def helmholtz_neumann_2d_hole_deepxde(dde):
    sin = dde.backend.sin
    k0 = K1
    outer = dde.geometry.Rectangle([-0.5, -0.5], [0.5, 0.5])
    inner = dde.geometry.Disk([0, 0], HOLE_R)

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
    bc_outer = dde.icbc.DirichletBC(geom, helmholtz_exact(k0), lambda x, on: on and outer.on_boundary(x))
    data = dde.data.PDE(
        geom, pde, [bc_inner, bc_outer], num_domain=nx_train**2, num_boundary=16 * nx_train,
        solution=helmholtz_exact(k0), num_test=nx_test**2,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [350] * 3 + [1], "sin", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=5000, loss_weights=[1, 10, 100])


def helmholtz_neumann_2d_hole_symgrad(seed):
    k0 = K1
    shape = Difference(Rectangle((-0.5, -0.5), (0.5, 0.5)), Disk((0, 0), HOLE_R))
    net = MLP([2, 350, 350, 350, 1], "sin", "glorot_uniform", seed=seed)

    def on_hole(x, y):
        return np.hypot(x, y) <= HOLE_R + 1e-9

    def flux(x, y):  # du/dn on the hole, whose outward normal (out of the domain) is -(x, y) / R
        return (
            -(x * k0 * ops.cos(k0 * x) * ops.sin(k0 * y) + y * k0 * ops.sin(k0 * x) * ops.cos(k0 * y))
            / HOLE_R
        )

    walls = halton(shape, 16 * 15, seed, "boundary")
    hole = on_hole(*walls)
    inner = neumann(net, shape, flux, on=on_hole, name="hole")
    outer = dirichlet(net, shape, lambda x, y: ops.sin(k0 * x) * ops.sin(k0 * y), name="square")
    terms = [
        (
            ResidualLoss(_helmholtz_pde(net, k0), ("x", "y"), net, name="pde"),
            np.hstack([halton(shape, 15**2, seed), walls]),
        ),
        (inner.loss(net, weight=10.0), np.vstack([walls[:, hole], shape.normals(walls[:, hole])])),
        (outer.loss(net, weight=100.0), walls[:, ~hole]),
    ]
    return Symgrad(terms, net, net)
