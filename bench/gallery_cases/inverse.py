"""The gallery's inverse problems: Lorenz_inverse, diffusion_1d_inverse, elliptic_inverse_field."""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Interval,
    ResidualLoss,
    SpaceTime,
    TimeDomain,
    dirichlet,
    grad,
    initial,
    observations,
)

from .common import DeepXDE, Symgrad, _space_time_points, halton, unknown, value_of
from .poisson_1d import sin_pi
from .time_dependent import _diffusion_exact_tensor, _diffusion_pde, _diffusion_pde_deepxde, diffusion_exact

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
