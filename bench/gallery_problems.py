"""The problems of bench/pinn_gallery.py: DeepXDE's example gallery, each written twice.

Each problem is a pair of functions a user would write:

- ``<name>_deepxde(dde)``: DeepXDE's example (examples/pinn_forward/<name>.py or
  examples/pinn_inverse/<name>.py in github.com/lululxvi/deepxde) as shipped, for the PyTorch
  backend: its geometry, conditions, point counts, network, initializer, loss weights, learning
  rate and schedule, and its Adam steps then (where the example has it) L-BFGS. It returns the
  model and that recipe (:class:`DeepXDE`); the gallery trains it under a wall-time cap.
- ``<name>_symgrad(seed)``: the same problem with ``symgrad.pinn`` (its geometry, conditions,
  ``ResidualLoss``): the same network (layer sizes, activation, initializer), the same point
  counts (DeepXDE evaluates the equation at its domain, boundary and initial points and its
  anchors, and the conditions at those of them on their part of the boundary; so do these), the
  same loss weights. It returns the terms and the weights to train (:class:`Symgrad`); the gallery
  hands them to ``symgrad.pinn.solve`` with no other settings. Conditions are built into u
  (``hard_constraint`` or a written-out transform) only where DeepXDE's example has an output
  transform. Points: symgrad's scrambled Halton (DeepXDE's default is Hammersley, also
  low-discrepancy).

Each :class:`Problem` also holds a test set and the exact solution there (or an independently
computed reference: ``scipy.integrate.solve_ivp`` for the ODE systems, a finite-difference solve
for the L-shape, Cole-Hopf quadrature for Burgers), and for inverse problems the true values of the
unknowns. Departures from the examples, also listed in ``Problem.note``:

- wave_1d: DeepXDE's example uses a spatio-temporal multi-scale Fourier feature network (STMsFFN,
  not in DeepXDE 1.15's PyTorch backend); both use a plain MLP of the same size, [2, 100, 100, 100, 1]
  tanh, after the example's input scaling. DeepXDE keeps its 5 / initial-loss weights, schedule
  and per-step resampling; symgrad weights 1 (``solve`` balances terms itself where they differ).
- Poisson_Lshape: DeepXDE has no exact solution (it plots against a stored FEM field); the reference
  here is a 5-point finite-difference solve on a 513 x 513 grid with Richardson extrapolation from
  257 x 257 (about 1e-4 relative L2 from the exact field, by the two grids' difference).
- Lorenz_inverse: DeepXDE reads 25 observations from examples/dataset/Lorenz.npz (a Lorenz
  trajectory with C = 10, 15, 8/3 at an ODE solver's step times); here 25 equally spaced
  observations of the same trajectory come from ``solve_ivp`` (rtol 1e-10).
- Lotka_Volterra: the PyTorch version of the example's input transform (sin t; the TensorFlow
  version adds sin 2t .. sin 6t); the example's output transform fixes the initial values in both.
- Klein_Gordon: the example names no PyTorch backend only because it imports tf.cos; the
  backend's cos is used.
- Poisson_Lshape in DeepXDE float32: DeepXDE 1.15's ``Polygon.random_boundary_points`` returns
  float64 points, which the PyTorch backend refuses next to float32 weights; the points are cast.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from symgrad import Parameter, Tensor, ops
from symgrad.pinn import (
    MLP,
    Beam,
    Burgers,
    Difference,
    Disk,
    Interval,
    Polygon,
    Rectangle,
    ResidualLoss,
    SpaceTime,
    TimeDomain,
    dirichlet,
    grad,
    hard_constraint,
    initial,
    laplacian,
    neumann,
    observations,
    periodic,
    robin,
)


@dataclass
class DeepXDE:
    """A DeepXDE model and its example's training recipe: Adam (``lr``, ``decay``) for ``iterations``
    steps, then L-BFGS where ``lbfgs``; ``variables`` are an inverse problem's unknowns
    (``dde.Variable``), ``unknowns()`` their current values by name."""

    model: object
    iterations: int
    lbfgs: bool = False
    lr: float = 1e-3
    decay: tuple | None = None
    loss_weights: list | None = None
    variables: list = field(default_factory=list)
    callbacks: list = field(default_factory=list)
    unknowns: Callable[[], dict[str, float]] | None = None


@dataclass
class Symgrad:
    """The loss terms ((ResidualLoss, points) pairs) and the weights to train (a network, or a
    list of Parameters with an inverse problem's unknowns); ``u`` computes the solution's outputs
    from the coordinates (the network, or the network inside a transform), ``unknowns()`` the
    unknowns' current values by name."""

    terms: list
    params: object
    u: Callable
    unknowns: Callable[[], dict[str, float]] | None = None


@dataclass
class Problem:
    """One gallery problem: its two builders, the test points ((n, dim), as DeepXDE takes them), the
    exact solution there ((n, outputs)), the true values of unknowns, and departures from DeepXDE's
    example."""

    deepxde: Callable[..., DeepXDE]
    symgrad: Callable[[int], Symgrad]
    test_points: Callable[[], np.ndarray]
    exact: Callable[[np.ndarray], np.ndarray]
    truth: dict[str, float] = field(default_factory=dict)
    note: str = ""


# ----- helpers shared by the symgrad builders -----
def halton(geometry, n: int, seed: int, where: str = "interior") -> np.ndarray:
    """``n`` scrambled Halton points of the geometry's interior, boundary or initial slice, (dim, n)."""
    return getattr(geometry, where)(n, "halton", seed)


def at(value: float) -> np.ndarray:
    """One point of a 1-D domain, (1, 1)."""
    return np.array([[float(value)]])


def unknown(value: float, name: str) -> Parameter:
    """A scalar unknown of an inverse problem, learnt with the weights."""
    return Parameter(Tensor(np.array(float(value))), name=name)


def value_of(p: Parameter) -> float:
    return float(np.asarray(p.asnumpy()))


def grid(*axes: np.ndarray) -> np.ndarray:
    """The tensor grid of ``axes`` as (n, dim) points."""
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


# =====================================================================================
# ode_system: y1' = y2, y2' = -y1 on [0, 10], y1(0) = 0, y2(0) = 1; y = (sin t, cos t)
# =====================================================================================
def ode_system_exact(X):
    return np.hstack((np.sin(X), np.cos(X)))


def ode_system_deepxde(dde):
    def ode_system(x, y):
        y1, y2 = y[:, 0:1], y[:, 1:]
        return [dde.grad.jacobian(y, x, i=0) - y2, dde.grad.jacobian(y, x, i=1) + y1]

    geom = dde.geometry.TimeDomain(0, 10)
    ic1 = dde.icbc.IC(geom, lambda x: 0, lambda _, on_initial: on_initial, component=0)
    ic2 = dde.icbc.IC(geom, lambda x: 1, lambda _, on_initial: on_initial, component=1)
    data = dde.data.PDE(geom, ode_system, [ic1, ic2], 35, 2, solution=ode_system_exact, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [2], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000)


def ode_system_symgrad(seed):
    time = TimeDomain(0, 10)
    net = MLP([1, 50, 50, 50, 2], "tanh", "glorot_uniform", seed=seed)
    y1, y2 = net.output(0), net.output(1)

    def ode(t):
        return grad(y1)(t) - y2(t), grad(y2)(t) + y1(t)

    start1, start2 = initial(y1, time, 0.0, name="y1(0)"), initial(y2, time, 1.0, name="y2(0)")
    terms = [
        (ResidualLoss(ode, ("t",), net, name="ode"), np.hstack([halton(time, 35, seed), time.boundary(2)])),
        (start1.loss(net), start1.sample(1)),
        (start2.loss(net), start2.sample(1)),
    ]
    return Symgrad(terms, net, net)


# =====================================================================================
# ode_2nd: y'' - 10 y' + 9 y = 5 t on [0, 0.25], y(0) = -1, y'(0) = 2
# =====================================================================================
def ode_2nd_exact(t):
    return 50 / 81 + t * 5 / 9 - 2 * np.exp(t) + (31 / 81) * np.exp(9 * t)


def ode_2nd_deepxde(dde):
    def ode(t, y):
        return dde.grad.hessian(y, t) - 10 * dde.grad.jacobian(y, t) + 9 * y - 5 * t

    geom = dde.geometry.TimeDomain(0, 0.25)
    ic1 = dde.icbc.IC(geom, lambda x: -1, lambda _, on_initial: on_initial)
    ic2 = dde.icbc.OperatorBC(
        geom,
        lambda inputs, outputs, X: dde.grad.jacobian(outputs, inputs, i=0, j=None) - 2,
        lambda t, on_initial: on_initial and dde.utils.isclose(t[0], 0),
    )
    data = dde.data.TimePDE(geom, ode, [ic1, ic2], 16, 2, solution=ode_2nd_exact, num_test=500)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000, loss_weights=[0.01, 1, 1])


def ode_2nd_symgrad(seed):
    time = TimeDomain(0, 0.25)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    y_t = grad(net)

    def ode(t):
        return grad(y_t)(t) - 10 * y_t(t) + 9 * net(t) - 5 * t

    value, slope = initial(net, time, -1.0, name="y(0)"), initial(net, time, 2.0, derivative=1, name="y'(0)")
    terms = [
        (
            ResidualLoss(ode, ("t",), net, weight=0.01, name="ode"),
            np.hstack([halton(time, 16, seed), time.boundary(2)]),
        ),
        (value.loss(net), value.sample(1)),
        (slope.loss(net), slope.sample(1)),
    ]
    return Symgrad(terms, net, net)


# =====================================================================================
# Lotka_Volterra: predator-prey, scaled time [0, 1]; reference by solve_ivp
# =====================================================================================
UB, RB = 200, 20


def lotka_volterra_rates(t, r):
    x, y = r
    return (
        RB / UB * (2.0 * UB * x - 0.04 * UB * x * UB * y),
        RB / UB * (0.02 * UB * x * UB * y - 1.06 * UB * y),
    )


def lotka_volterra_exact(X):
    t = np.ravel(X)
    order = np.argsort(t)
    sol = solve_ivp(
        lotka_volterra_rates, (0, 1), (100 / UB, 15 / UB), t_eval=t[order], rtol=1e-11, atol=1e-12
    )
    out = np.empty((t.size, 2))
    out[order] = sol.y.T
    return out


def lotka_volterra_deepxde(dde):
    sin, tanh = dde.backend.sin, dde.backend.tanh

    def ode_system(x, y):
        r, p = y[:, 0:1], y[:, 1:2]
        dr_t, dp_t = dde.grad.jacobian(y, x, i=0), dde.grad.jacobian(y, x, i=1)
        return [
            dr_t - 1 / UB * RB * (2.0 * UB * r - 0.04 * UB * r * UB * p),
            dp_t - 1 / UB * RB * (0.02 * r * UB * p * UB - 1.06 * p * UB),
        ]

    geom = dde.geometry.TimeDomain(0, 1.0)
    data = dde.data.PDE(geom, ode_system, [], 3000, 2, num_test=3000)
    net = dde.nn.FNN([1] + [64] * 6 + [2], "tanh", "Glorot normal")
    net.apply_feature_transform(lambda t: dde.backend.concat([sin(t)], 1))
    net.apply_output_transform(
        lambda t, y: dde.backend.concat([y[:, 0:1] * tanh(t) + 100 / UB, y[:, 1:2] * tanh(t) + 15 / UB], 1)
    )
    return DeepXDE(dde.Model(data, net), iterations=50000, lbfgs=True)


def lotka_volterra_symgrad(seed):
    time = TimeDomain(0, 1.0)
    net = MLP([1, 64, 64, 64, 64, 64, 64, 2], "tanh", "glorot_normal", seed=seed)

    def u(t):  # the example's transforms: sin t in, x(0) and y(0) built into the outputs
        r, p = net(ops.sin(t))
        return r * ops.tanh(t) + 100 / UB, p * ops.tanh(t) + 15 / UB

    x, y = (lambda t: u(t)[0]), (lambda t: u(t)[1])

    def ode(t):
        r, p = u(t)
        return (
            grad(x)(t) - 1 / UB * RB * (2.0 * UB * r - 0.04 * UB * r * UB * p),
            grad(y)(t) - 1 / UB * RB * (0.02 * r * UB * p * UB - 1.06 * p * UB),
        )

    terms = [
        (ResidualLoss(ode, ("t",), net, name="ode"), np.hstack([halton(time, 3000, seed), time.boundary(2)]))
    ]
    return Symgrad(terms, net, u)


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


# =====================================================================================
# Time-dependent problems on an interval
# =====================================================================================
HEAT_A = 0.4


def heat_exact(X):
    return np.exp(-(np.pi**2) * HEAT_A * X[:, 1:2]) * np.sin(np.pi * X[:, 0:1])


def heat_deepxde(dde):
    def pde(x, y):
        return dde.grad.jacobian(y, x, i=0, j=1) - HEAT_A * dde.grad.hessian(y, x, i=0, j=0)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(0, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, lambda x: np.sin(np.pi * x[:, 0:1]), lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(
        geomtime, pde, [bc, ic], num_domain=2540, num_boundary=80, num_initial=160, num_test=2540
    )
    net = dde.nn.FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")
    return DeepXDE(dde.Model(data, net), iterations=20000, lbfgs=True)


def _space_time_points(domain, seed, n_domain, n_boundary, n_initial):
    """DeepXDE's TimePDE points: (interior, boundary, initial), and all of them (where it puts the equation)."""
    inside = halton(domain, n_domain, seed)
    walls = halton(domain, n_boundary, seed, "boundary") if n_boundary else np.empty((2, 0))
    start = halton(domain, n_initial, seed, "initial") if n_initial else np.empty((2, 0))
    return walls, start, np.hstack([inside, walls, start])


def heat_symgrad(seed):
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)
    walls, start, everywhere = _space_time_points(domain, seed, 2540, 80, 160)
    pde = lambda x, t: grad(net, 1)(x, t) - HEAT_A * grad(grad(net, 0), 0)(x, t)  # noqa: E731
    terms = [
        (ResidualLoss(pde, ("x", "t"), net, name="pde"), everywhere),
        (dirichlet(net, domain, 0.0).loss(net), walls),
        (initial(net, domain, lambda x, t: ops.sin(np.pi * x)).loss(net), start),
    ]
    return Symgrad(terms, net, net)


# diffusion_1d: u_t = u_xx - e^-t (sin(pi x) - pi^2 sin(pi x)) on [-1, 1] x [0, 1]; u = e^-t sin(pi x)
def diffusion_exact(X):
    return np.sin(np.pi * X[:, 0:1]) * np.exp(-X[:, 1:2])


def _diffusion_pde_deepxde(dde, C=1.0):
    sin, exp = dde.backend.sin, dde.backend.exp

    def pde(x, y):
        dy_t, dy_xx = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.hessian(y, x, i=0, j=0)
        return (
            dy_t - C * dy_xx + exp(-x[:, 1:]) * (sin(np.pi * x[:, 0:1]) - np.pi**2 * sin(np.pi * x[:, 0:1]))
        )

    return pde


def _diffusion_pde(u, C=1.0):
    def pde(x, t):
        source = ops.exp(-t) * (ops.sin(np.pi * x) - np.pi**2 * ops.sin(np.pi * x))
        return grad(u, 1)(x, t) - C * grad(grad(u, 0), 0)(x, t) + source

    return pde


def _diffusion_exact_tensor(x, t):
    return ops.sin(np.pi * x) * ops.exp(-t)


def diffusion_1d_deepxde(dde):
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, diffusion_exact, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, diffusion_exact, lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(
        geomtime, _diffusion_pde_deepxde(dde), [bc, ic], num_domain=40, num_boundary=20, num_initial=10,
        solution=diffusion_exact, num_test=10000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def diffusion_1d_symgrad(seed):
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net = MLP([2, 32, 32, 32, 1], "tanh", "glorot_uniform", seed=seed)
    walls, start, everywhere = _space_time_points(domain, seed, 40, 20, 10)
    terms = [
        (ResidualLoss(_diffusion_pde(net), ("x", "t"), net, name="pde"), everywhere),
        (dirichlet(net, domain, _diffusion_exact_tensor).loss(net), walls),
        (initial(net, domain, _diffusion_exact_tensor).loss(net), start),
    ]
    return Symgrad(terms, net, net)


def diffusion_1d_exact_bc_deepxde(dde):
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    data = dde.data.TimePDE(
        geomtime, _diffusion_pde_deepxde(dde), [], num_domain=40, solution=diffusion_exact, num_test=10000
    )
    net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(
        lambda x, y: x[:, 1:2] * (1 - x[:, 0:1] ** 2) * y + dde.backend.sin(np.pi * x[:, 0:1])
    )
    return DeepXDE(dde.Model(data, net), iterations=10000)


def diffusion_1d_exact_bc_symgrad(seed):
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net = MLP([2, 32, 32, 32, 1], "tanh", "glorot_uniform", seed=seed)
    u = hard_constraint(net, lambda x, t: ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))
    return Symgrad(
        [(ResidualLoss(_diffusion_pde(u), ("x", "t"), net, name="pde"), halton(domain, 40, seed))], net, u
    )


# diffusion_reaction: u_t = u_xx + e^-t sum_k (k^2 - 1)/k sin(k x), k = 2, 3, 4, 8, on [-pi, pi] x [0, 1]
MODES = (1, 2, 3, 4, 8)


def diffusion_reaction_exact(X):
    return np.exp(-X[:, 1:2]) * sum(np.sin(k * X[:, 0:1]) / k for k in MODES)


def diffusion_reaction_deepxde(dde):
    sin, exp = dde.backend.sin, dde.backend.exp

    def pde(x, y):
        dy_t, dy_xx = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.hessian(y, x, i=0, j=0)
        source = 3 * sin(2 * x[:, 0:1]) / 2 + 8 * sin(3 * x[:, 0:1]) / 3 + 15 * sin(4 * x[:, 0:1]) / 4
        return dy_t - dy_xx - exp(-x[:, 1:]) * (source + 63 * sin(8 * x[:, 0:1]) / 8)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-np.pi, np.pi), dde.geometry.TimeDomain(0, 1))
    data = dde.data.TimePDE(
        geomtime, pde, [], num_domain=320, solution=diffusion_reaction_exact, num_test=80000
    )
    net = dde.nn.FNN([2] + [30] * 6 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(
        lambda x, y: x[:, 1:2] * (np.pi**2 - x[:, 0:1] ** 2) * y + sum(sin(k * x[:, 0:1]) / k for k in MODES)
    )
    return DeepXDE(dde.Model(data, net), iterations=20000)


def diffusion_reaction_symgrad(seed):
    domain = SpaceTime(Interval(-np.pi, np.pi), 0, 1)
    net = MLP([2, 30, 30, 30, 30, 30, 30, 1], "tanh", "glorot_uniform", seed=seed)
    u = hard_constraint(  # the example's output transform
        net, lambda x, t: sum(ops.sin(k * x) / k for k in MODES), lambda x, t: t * (np.pi**2 - x * x)
    )

    def pde(x, t):
        source = sum((k * k - 1) / k * ops.sin(k * x) for k in MODES[1:])
        return grad(u, 1)(x, t) - grad(grad(u, 0), 0)(x, t) - ops.exp(-t) * source

    return Symgrad([(ResidualLoss(pde, ("x", "t"), net, name="pde"), halton(domain, 320, seed))], net, u)


# wave_1d: u_tt = C^2 u_xx on [0, 1] x [0, 1], u = sin(pi x) cos(C pi t) + sin(A pi x) cos(A C pi t)
WAVE_A, WAVE_C = 2, 10
SCALE = 2 * np.sqrt(3)


def wave_exact(X):
    x, t = X[:, 0:1], X[:, 1:2]
    return np.sin(np.pi * x) * np.cos(WAVE_C * np.pi * t) + np.sin(WAVE_A * np.pi * x) * np.cos(
        WAVE_A * WAVE_C * np.pi * t
    )


def wave_1d_deepxde(dde):
    def pde(x, y):
        return dde.grad.hessian(y, x, i=1, j=1) - WAVE_C**2 * dde.grad.hessian(y, x, i=0, j=0)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(0, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, wave_exact, lambda _, on_boundary: on_boundary)
    ic_1 = dde.icbc.IC(geomtime, wave_exact, lambda _, on_initial: on_initial)
    ic_2 = dde.icbc.OperatorBC(
        geomtime, lambda x, y, _: dde.grad.jacobian(y, x, i=0, j=1), lambda x, _: dde.utils.isclose(x[1], 0)
    )
    data = dde.data.TimePDE(
        geomtime, pde, [bc, ic_1, ic_2], num_domain=360, num_boundary=360, num_initial=360,
        solution=wave_exact, num_test=10000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [100] * 3 + [1], "tanh", "Glorot uniform")  # the example: STMsFFN (see the note)
    net.apply_feature_transform(lambda x: (x - 0.5) * SCALE)
    model = dde.Model(data, net)
    model.compile("adam", lr=0.001)  # the example's get_initial_loss
    losshistory, _ = model.train(0, verbose=0)
    return DeepXDE(
        model, iterations=10000, decay=("inverse time", 2000, 0.9), loss_weights=5 / losshistory.loss_train[0],
        callbacks=[dde.callbacks.PDEPointResampler(period=1)],
    )  # fmt: skip


def wave_1d_symgrad(seed):
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net = MLP([2, 100, 100, 100, 1], "tanh", "glorot_uniform", seed=seed)

    def u(x, t):  # the example's input scaling
        return net((x - 0.5) * SCALE, (t - 0.5) * SCALE)

    def exact(x, t):
        return ops.sin(np.pi * x) * ops.cos(WAVE_C * np.pi * t) + ops.sin(WAVE_A * np.pi * x) * ops.cos(
            WAVE_A * WAVE_C * np.pi * t
        )

    walls, start, everywhere = _space_time_points(domain, seed, 360, 360, 360)
    pde = lambda x, t: grad(grad(u, 1), 1)(x, t) - WAVE_C**2 * grad(grad(u, 0), 0)(x, t)  # noqa: E731
    terms = [
        (ResidualLoss(pde, ("x", "t"), net, name="pde"), everywhere),
        (dirichlet(u, domain, exact).loss(net), walls),
        (initial(u, domain, exact).loss(net), start),
        (initial(u, domain, 0.0, derivative=1, name="u_t(x, 0)").loss(net), start),
    ]
    return Symgrad(terms, net, u)


# Klein_Gordon: u_tt - u_xx + u^2 = -x cos t + x^2 cos^2 t on [-1, 1] x [0, 10]; u = x cos t
def klein_gordon_exact(X):
    return X[:, 0:1] * np.cos(X[:, 1:2])


def klein_gordon_deepxde(dde):
    cos = dde.backend.cos

    def pde(x, y):
        dy_tt, dy_xx = dde.grad.hessian(y, x, i=1, j=1), dde.grad.hessian(y, x, i=0, j=0)
        x, t = x[:, 0:1], x[:, 1:2]
        return dy_tt - dy_xx + y**2 + x * cos(t) - (x**2) * (cos(t) ** 2)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 10))
    bc = dde.icbc.DirichletBC(geomtime, klein_gordon_exact, lambda _, on_boundary: on_boundary)
    ic_1 = dde.icbc.IC(geomtime, klein_gordon_exact, lambda _, on_initial: on_initial)
    ic_2 = dde.icbc.OperatorBC(
        geomtime, lambda x, y, _: dde.grad.jacobian(y, x, i=0, j=1), lambda _, on_initial: on_initial
    )
    data = dde.data.TimePDE(
        geomtime, pde, [bc, ic_1, ic_2], num_domain=30000, num_boundary=1500, num_initial=1500,
        solution=klein_gordon_exact, num_test=6000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [40] * 2 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000, lbfgs=True, decay=("inverse time", 3000, 0.9))


def klein_gordon_symgrad(seed):
    domain = SpaceTime(Interval(-1, 1), 0, 10)
    net = MLP([2, 40, 40, 1], "tanh", "glorot_uniform", seed=seed)

    def pde(x, t):
        u, c = net(x, t), ops.cos(t)
        return grad(grad(net, 1), 1)(x, t) - grad(grad(net, 0), 0)(x, t) + u * u + x * c - x * x * c * c

    walls, start, everywhere = _space_time_points(domain, seed, 30000, 1500, 1500)
    terms = [
        (ResidualLoss(pde, ("x", "t"), net, name="pde"), everywhere),
        (dirichlet(net, domain, lambda x, t: x * ops.cos(t)).loss(net), walls),
        (initial(net, domain, lambda x, t: x).loss(net), start),
        (initial(net, domain, 0.0, derivative=1, name="u_t(x, 0)").loss(net), start),
    ]
    return Symgrad(terms, net, net)


# =====================================================================================
# Euler_beam: u'''' = -1 on [0, 1], u(0) = u'(0) = 0, u''(1) = u'''(1) = 0 (symgrad.pinn.Beam)
# =====================================================================================
BEAM = Beam()


def beam_exact(X):
    return BEAM.exact(X)


def euler_beam_deepxde(dde):
    def ddy(x, y):
        return dde.grad.hessian(y, x)

    def dddy(x, y):
        return dde.grad.jacobian(ddy(x, y), x)

    def pde(x, y):
        return dde.grad.hessian(ddy(x, y), x) + 1

    geom = dde.geometry.Interval(0, 1)
    left = lambda x, on: on and dde.utils.isclose(x[0], 0)  # noqa: E731
    right = lambda x, on: on and dde.utils.isclose(x[0], 1)  # noqa: E731
    bcs = [
        dde.icbc.DirichletBC(geom, lambda x: 0, left),
        dde.icbc.NeumannBC(geom, lambda x: 0, left),
        dde.icbc.OperatorBC(geom, lambda x, y, _: ddy(x, y), right),
        dde.icbc.OperatorBC(geom, lambda x, y, _: dddy(x, y), right),
    ]
    data = dde.data.PDE(geom, pde, bcs, num_domain=10, num_boundary=2, solution=beam_exact, num_test=100)
    net = dde.nn.FNN([1] + [20] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def euler_beam_symgrad(seed):
    line = BEAM.geometry
    net = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed)
    terms = [
        (
            ResidualLoss(BEAM.pde(net), BEAM.inputs, net, name="pde"),
            np.hstack([halton(line, 10, seed), line.boundary(2)]),
        )
    ]
    # Beam's conditions carry no input names (Condition.loss refuses them): wrap their residuals
    terms += [
        (ResidualLoss(c.residual, BEAM.inputs, net, name=c.name), c.sample(1)) for c in BEAM.conditions(net)
    ]
    return Symgrad(terms, net, net)


# =====================================================================================
# Burgers: u_t + u u_x = (0.01 / pi) u_xx on [-1, 1] x [0, 0.99] (symgrad.pinn.Burgers: Cole-Hopf)
# =====================================================================================
BURGERS = Burgers()


def burgers_test():
    return np.stack([g.ravel() for g in BURGERS.grid()], 1)


def burgers_exact(X):
    return BURGERS.exact(X[:, 0], X[:, 1])[:, None]


def burgers_deepxde(dde):
    def pde(x, y):
        dy_x, dy_t = dde.grad.jacobian(y, x, i=0, j=0), dde.grad.jacobian(y, x, i=0, j=1)
        return dy_t + y * dy_x - 0.01 / np.pi * dde.grad.hessian(y, x, i=0, j=0)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 0.99))
    bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, lambda x: -np.sin(np.pi * x[:, 0:1]), lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(geomtime, pde, [bc, ic], num_domain=2540, num_boundary=80, num_initial=160)
    net = dde.nn.FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")
    return DeepXDE(dde.Model(data, net), iterations=15000, lbfgs=True)


def burgers_symgrad(seed):
    domain = SpaceTime(Interval(-1, 1), 0, 0.99)
    net = MLP([2, 20, 20, 20, 1], "tanh", "glorot_normal", seed=seed)
    walls, start, everywhere = _space_time_points(domain, seed, 2540, 80, 160)
    terms = [
        (ResidualLoss(BURGERS.pde(net), BURGERS.inputs, net, name="pde"), everywhere),
        (dirichlet(net, domain, 0.0).loss(net), walls),
        (initial(net, domain, lambda x, t: -ops.sin(np.pi * x)).loss(net), start),
    ]
    return Symgrad(terms, net, net)


# =====================================================================================
# Inverse problems
# =====================================================================================
# Lorenz_inverse: y1' = C1 (y2 - y1), y2' = y1 (C2 - y3) - y2, y3' = y1 y2 - C3 y3; C = (10, 15, 8/3)
LORENZ_C = (10.0, 15.0, 8.0 / 3.0)
LORENZ_START = (-8.0, 7.0, 27.0)


def lorenz_rates(t, y, c1=LORENZ_C[0], c2=LORENZ_C[1], c3=LORENZ_C[2]):
    return [c1 * (y[1] - y[0]), y[0] * (c2 - y[2]) - y[1], y[0] * y[1] - c3 * y[2]]


def lorenz_exact(X):
    t = np.ravel(X)
    order = np.argsort(t)
    sol = solve_ivp(
        lorenz_rates, (0, 3), LORENZ_START, t_eval=t[order], method="DOP853", rtol=1e-11, atol=1e-11
    )
    out = np.empty((t.size, 3))
    out[order] = sol.y.T
    return out


OBSERVED_T = np.linspace(0, 3, 25)[:, None]  # DeepXDE's Lorenz.npz: 25 observations on [0, 3]


def lorenz_inverse_deepxde(dde):
    C1, C2, C3 = dde.Variable(1.0), dde.Variable(1.0), dde.Variable(1.0)

    def Lorenz_system(x, y):  # noqa: N802 - the example's name
        y1, y2, y3 = y[:, 0:1], y[:, 1:2], y[:, 2:]
        dy1_x, dy2_x, dy3_x = (dde.grad.jacobian(y, x, i=k) for k in range(3))
        return [dy1_x - C1 * (y2 - y1), dy2_x - y1 * (C2 - y3) + y2, dy3_x - y1 * y2 + C3 * y3]

    geom = dde.geometry.TimeDomain(0, 3)
    on_initial = lambda _, on_initial: on_initial  # noqa: E731
    constant = lambda v: lambda X: v  # noqa: E731 - DeepXDE reads a second argument as auxiliary data
    ics = [dde.icbc.IC(geom, constant(v), on_initial, component=k) for k, v in enumerate(LORENZ_START)]
    observe_t, ob_y = OBSERVED_T, lorenz_exact(OBSERVED_T)
    observed = [dde.icbc.PointSetBC(observe_t, ob_y[:, k : k + 1], component=k) for k in range(3)]
    data = dde.data.PDE(
        geom, Lorenz_system, [*ics, *observed], num_domain=400, num_boundary=2, anchors=observe_t
    )
    net = dde.nn.FNN([1] + [40] * 3 + [3], "tanh", "Glorot uniform")
    return DeepXDE(
        dde.Model(data, net), iterations=20000, lbfgs=True, variables=[C1, C2, C3],
        unknowns=lambda: {f"C{k + 1}": float(c.detach().cpu()) for k, c in enumerate((C1, C2, C3))},
    )  # fmt: skip


def lorenz_inverse_symgrad(seed):
    time = TimeDomain(0, 3)
    net = MLP([1, 40, 40, 40, 3], "tanh", "glorot_uniform", seed=seed)
    C1, C2, C3 = unknown(1.0, "C1"), unknown(1.0, "C2"), unknown(1.0, "C3")
    unknowns = [*net.trainable_params(), C1, C2, C3]
    y1, y2, y3 = net.output(0), net.output(1), net.output(2)

    def lorenz(t):
        a, b, c = net(t)
        return grad(y1)(t) - C1 * (b - a), grad(y2)(t) - a * (C2 - c) + b, grad(y3)(t) - a * b + C3 * c

    starts = [
        initial(y, time, v, name=f"y{k + 1}(0)") for k, (y, v) in enumerate(zip((y1, y2, y3), LORENZ_START))
    ]
    data = observations(net, OBSERVED_T.T, lorenz_exact(OBSERVED_T).T, ("t",))
    terms = [
        (
            ResidualLoss(lorenz, ("t",), unknowns, name="ode"),
            np.hstack([halton(time, 400, seed), time.boundary(2), OBSERVED_T.T]),
        )
    ]
    terms += [(s.loss(unknowns), s.sample(1)) for s in starts]
    terms.append((data.loss(unknowns), data.sample()))
    return Symgrad(terms, unknowns, net, lambda: {"C1": value_of(C1), "C2": value_of(C2), "C3": value_of(C3)})


# diffusion_1d_inverse: diffusion_1d with the diffusivity C unknown (2 at first, 1 true), u seen at t = 1
OBSERVED_X = np.vstack((np.linspace(-1, 1, num=10), np.full((10), 1))).T


def diffusion_1d_inverse_deepxde(dde):
    C = dde.Variable(2.0)
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, diffusion_exact, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, diffusion_exact, lambda _, on_initial: on_initial)
    observe_y = dde.icbc.PointSetBC(OBSERVED_X, diffusion_exact(OBSERVED_X), component=0)
    data = dde.data.TimePDE(
        geomtime, _diffusion_pde_deepxde(dde, C), [bc, ic, observe_y], num_domain=40, num_boundary=20,
        num_initial=10, anchors=OBSERVED_X, solution=diffusion_exact, num_test=10000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(
        dde.Model(data, net), iterations=50000, variables=[C], unknowns=lambda: {"C": float(C.detach().cpu())}
    )


def diffusion_1d_inverse_symgrad(seed):
    domain = SpaceTime(Interval(-1, 1), 0, 1)
    net = MLP([2, 32, 32, 32, 1], "tanh", "glorot_uniform", seed=seed)
    C = unknown(2.0, "C")
    unknowns = [*net.trainable_params(), C]
    walls, start, everywhere = _space_time_points(domain, seed, 40, 20, 10)
    data = observations(net, OBSERVED_X.T, diffusion_exact(OBSERVED_X)[:, 0], ("x", "t"))
    terms = [
        (
            ResidualLoss(_diffusion_pde(net, C), ("x", "t"), unknowns, name="pde"),
            np.hstack([everywhere, OBSERVED_X.T]),
        ),
        (dirichlet(net, domain, _diffusion_exact_tensor).loss(unknowns), walls),
        (initial(net, domain, _diffusion_exact_tensor).loss(unknowns), start),
        (data.loss(unknowns), data.sample()),
    ]
    return Symgrad(terms, unknowns, net, lambda: {"C": value_of(C)})


# elliptic_inverse_field: -u'' + q = 0 on [-1, 1], u = sin(pi x) seen at 100 points; q = -pi^2 sin(pi x)
def elliptic_exact(X):
    return np.hstack([np.sin(np.pi * X), -(np.pi**2) * np.sin(np.pi * X)])


ELLIPTIC_X = np.linspace(-1, 1, 100).reshape(100, 1)


def elliptic_inverse_field_deepxde(dde):
    def pde(x, y):
        return -dde.grad.hessian(y, x, component=0, i=0, j=0) + y[:, 1:2]

    geom = dde.geometry.Interval(-1, 1)
    bc = dde.icbc.DirichletBC(geom, sin_pi, lambda _, on_boundary: on_boundary, component=0)
    observe_u = dde.icbc.PointSetBC(ELLIPTIC_X, sin_pi(ELLIPTIC_X), component=0)
    data = dde.data.PDE(
        geom, pde, [bc, observe_u], num_domain=200, num_boundary=2, anchors=ELLIPTIC_X, num_test=1000
    )
    net = dde.nn.PFNN([1, [20, 20], [20, 20], [20, 20], 2], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000, lr=0.0001, loss_weights=[1, 100, 1000])


def elliptic_inverse_field_symgrad(seed):
    line = Interval(-1, 1)
    # DeepXDE's PFNN [1, [20, 20], [20, 20], [20, 20], 2]: a separate [1, 20, 20, 20, 1] network per output
    net_u = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed)
    net_q = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed + 1000)
    params = [*net_u.trainable_params(), *net_q.trainable_params()]
    walls = dirichlet(net_u, line, lambda x: ops.sin(np.pi * x))
    data = observations(net_u, ELLIPTIC_X.T, np.sin(np.pi * ELLIPTIC_X[:, 0]), ("x",))
    pde = ResidualLoss(lambda x: -grad(grad(net_u))(x) + net_q(x), ("x",), params, name="pde")
    terms = [
        (pde, np.hstack([halton(line, 200, seed), line.boundary(2), ELLIPTIC_X.T])),
        (walls.loss(params, weight=100.0), line.boundary(2)),
        (data.loss(params, weight=1000.0), data.sample()),
    ]
    return Symgrad(terms, params, lambda x: (net_u(x), net_q(x)))


# =====================================================================================
def _linspace_test(lo, hi, n):
    return lambda: np.linspace(lo, hi, n)[:, None]


def _grid_test(x, t):
    return lambda: grid(x, t)


PROBLEMS: dict[str, Problem] = {
    "ode_system": Problem(
        ode_system_deepxde, ode_system_symgrad, _linspace_test(0, 10, 100), ode_system_exact
    ),
    "ode_2nd": Problem(ode_2nd_deepxde, ode_2nd_symgrad, _linspace_test(0, 0.25, 500), ode_2nd_exact),
    "Lotka_Volterra": Problem(
        lotka_volterra_deepxde,
        lotka_volterra_symgrad,
        _linspace_test(0, 1, 100),
        lotka_volterra_exact,
        note="reference: solve_ivp; the PyTorch input transform sin(t)",
    ),  # fmt: skip
    "Poisson_Dirichlet_1d": Problem(
        poisson_dirichlet_1d_deepxde, poisson_dirichlet_1d_symgrad, _linspace_test(-1, 1, 100), sin_pi
    ),
    "Poisson_Dirichlet_1d_exactBC": Problem(
        poisson_exact_bc_deepxde,
        poisson_exact_bc_symgrad,
        _linspace_test(0, np.pi, 400),
        poisson_exact_bc_exact,
    ),
    "Poisson_Neumann_1d": Problem(
        poisson_neumann_1d_deepxde, poisson_neumann_1d_symgrad, _linspace_test(-1, 1, 100), square_plus
    ),
    "Poisson_Robin_1d": Problem(
        poisson_robin_1d_deepxde, poisson_robin_1d_symgrad, _linspace_test(-1, 1, 100), square_plus
    ),
    "Poisson_periodic_1d": Problem(
        poisson_periodic_1d_deepxde, poisson_periodic_1d_symgrad, _linspace_test(-1, 1, 100), sin_pi
    ),
    "Poisson_Lshape": Problem(
        poisson_lshape_deepxde,
        poisson_lshape_symgrad,
        lambda: lshape_reference()[0],
        lshape_exact,
        note="reference: finite differences (h = 1/256, Richardson), about 1e-4",
    ),  # fmt: skip
    "Laplace_disk": Problem(
        laplace_disk_deepxde,
        laplace_disk_symgrad,
        _grid_test(np.linspace(0, 1, 100), np.linspace(0, 2 * np.pi, 100)),
        laplace_disk_exact,
    ),  # fmt: skip
    "Helmholtz_Dirichlet_2d": Problem(
        helmholtz_dirichlet_2d_deepxde,
        helmholtz_dirichlet_2d_symgrad,
        _grid_test(np.linspace(0, 1, 100), np.linspace(0, 1, 100)),
        helmholtz_exact(K2),
    ),  # fmt: skip
    "Helmholtz_Neumann_2d_hole": Problem(
        helmholtz_neumann_2d_hole_deepxde,
        helmholtz_neumann_2d_hole_symgrad,
        helmholtz_hole_test,
        helmholtz_exact(K1),
        note="test grid: the example's, less the points in the hole",
    ),  # fmt: skip
    "heat": Problem(
        heat_deepxde, heat_symgrad, _grid_test(np.linspace(0, 1, 256), np.linspace(0, 1, 201)), heat_exact
    ),
    "diffusion_1d": Problem(
        diffusion_1d_deepxde,
        diffusion_1d_symgrad,
        _grid_test(np.linspace(-1, 1, 100), np.linspace(0, 1, 100)),
        diffusion_exact,
    ),  # fmt: skip
    "diffusion_1d_exactBC": Problem(
        diffusion_1d_exact_bc_deepxde,
        diffusion_1d_exact_bc_symgrad,
        _grid_test(np.linspace(-1, 1, 100), np.linspace(0, 1, 100)),
        diffusion_exact,
    ),  # fmt: skip
    "diffusion_reaction": Problem(
        diffusion_reaction_deepxde,
        diffusion_reaction_symgrad,
        _grid_test(np.linspace(-np.pi, np.pi, 200), np.linspace(0, 1, 100)),
        diffusion_reaction_exact,
    ),  # fmt: skip
    "wave_1d": Problem(
        wave_1d_deepxde,
        wave_1d_symgrad,
        _grid_test(np.linspace(0, 1, 100), np.linspace(0, 1, 100)),
        wave_exact,
        note="both a plain MLP [2, 100, 100, 100, 1] (the example: STMsFFN)",
    ),  # fmt: skip
    "Klein_Gordon": Problem(
        klein_gordon_deepxde,
        klein_gordon_symgrad,
        _grid_test(np.linspace(-1, 1, 256), np.linspace(0, 10, 256)),
        klein_gordon_exact,
    ),  # fmt: skip
    "Euler_beam": Problem(euler_beam_deepxde, euler_beam_symgrad, _linspace_test(0, 1, 100), beam_exact),
    "Burgers": Problem(
        burgers_deepxde, burgers_symgrad, burgers_test, burgers_exact, note="reference: Cole-Hopf"
    ),
    "Lorenz_inverse": Problem(
        lorenz_inverse_deepxde,
        lorenz_inverse_symgrad,
        _linspace_test(0, 3, 300),
        lorenz_exact,
        truth=dict(zip(("C1", "C2", "C3"), LORENZ_C)),
        note="observations: 25 from solve_ivp (DeepXDE: Lorenz.npz); error: the trajectory",
    ),  # fmt: skip
    "diffusion_1d_inverse": Problem(
        diffusion_1d_inverse_deepxde,
        diffusion_1d_inverse_symgrad,
        _grid_test(np.linspace(-1, 1, 100), np.linspace(0, 1, 100)),
        diffusion_exact,
        truth={"C": 1.0},
    ),  # fmt: skip
    "elliptic_inverse_field": Problem(
        elliptic_inverse_field_deepxde,
        elliptic_inverse_field_symgrad,
        _linspace_test(-1, 1, 500),
        elliptic_exact,
        note="error: u and q stacked (q dominates); both also shown",
    ),  # fmt: skip
}

# how each error is split into fields for the extra line (problems with several outputs worth naming)
FIELDS: dict[str, tuple[str, ...]] = {"elliptic_inverse_field": ("u", "q")}

__all__ = ["DeepXDE", "FIELDS", "PROBLEMS", "Problem", "Symgrad"]
