"""The gallery's ODEs: ode_system, ode_2nd, Lotka_Volterra and Euler_beam."""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Beam,
    ResidualLoss,
    TimeDomain,
    grad,
    initial,
)

from .common import DeepXDE, Symgrad, halton


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
