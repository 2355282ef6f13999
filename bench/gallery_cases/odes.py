"""The gallery's ODEs for DeepXDE: ode_system, ode_2nd, Lotka_Volterra and Euler_beam.

The symgrad side, the exact solutions and the test points are in tutorials/gallery/<name>.py
(``scripts``).
"""

from __future__ import annotations

from .common import DeepXDE, scripts


# =====================================================================================
# ode_system: y1' = y2, y2' = -y1 on [0, 10], y1(0) = 0, y2(0) = 1; y = (sin t, cos t)
# =====================================================================================
def ode_system_deepxde(dde):
    def ode_system(x, y):
        y1, y2 = y[:, 0:1], y[:, 1:]
        return [dde.grad.jacobian(y, x, i=0) - y2, dde.grad.jacobian(y, x, i=1) + y1]

    geom = dde.geometry.TimeDomain(0, 10)
    ic1 = dde.icbc.IC(geom, lambda x: 0, lambda _, on_initial: on_initial, component=0)
    ic2 = dde.icbc.IC(geom, lambda x: 1, lambda _, on_initial: on_initial, component=1)
    data = dde.data.PDE(geom, ode_system, [ic1, ic2], 35, 2, solution=scripts.ode_system.exact, num_test=100)
    net = dde.nn.FNN([1] + [50] * 3 + [2], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000)


# =====================================================================================
# ode_2nd: y'' - 10 y' + 9 y = 5 t on [0, 0.25], y(0) = -1, y'(0) = 2
# =====================================================================================
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
    data = dde.data.TimePDE(geom, ode, [ic1, ic2], 16, 2, solution=scripts.ode_2nd.exact, num_test=500)
    net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000, loss_weights=[0.01, 1, 1])


# =====================================================================================
# Lotka_Volterra: predator-prey, scaled time [0, 1]; reference by solve_ivp
# =====================================================================================
UB, RB = scripts.lotka_volterra.UB, scripts.lotka_volterra.RB


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


# =====================================================================================
# Euler_beam: u'''' = -1 on [0, 1], u(0) = u'(0) = 0, u''(1) = u'''(1) = 0 (symgrad.pinn.Beam)
# =====================================================================================
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
    data = dde.data.PDE(
        geom, pde, bcs, num_domain=10, num_boundary=2, solution=scripts.euler_beam.exact, num_test=100
    )
    net = dde.nn.FNN([1] + [20] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)
