"""The gallery's time-dependent problems for DeepXDE: heat, diffusion, diffusion-reaction, wave,
Klein-Gordon, Burgers, Beltrami, Black-Scholes, Allen-Cahn.

The symgrad side, the exact solutions and the test points are in tutorials/gallery/<name>.py
(``scripts``).
"""

from __future__ import annotations

import numpy as np

from .common import DeepXDE, component, scripts

# =====================================================================================
# Time-dependent problems on an interval
# =====================================================================================
HEAT_A = scripts.heat.A


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


# diffusion_1d: u_t = u_xx - e^-t (sin(pi x) - pi^2 sin(pi x)) on [-1, 1] x [0, 1]; u = e^-t sin(pi x)
def _diffusion_pde_deepxde(dde, C=1.0):
    sin, exp = dde.backend.sin, dde.backend.exp

    def pde(x, y):
        dy_t, dy_xx = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.hessian(y, x, i=0, j=0)
        return (
            dy_t - C * dy_xx + exp(-x[:, 1:]) * (sin(np.pi * x[:, 0:1]) - np.pi**2 * sin(np.pi * x[:, 0:1]))
        )

    return pde


def diffusion_1d_deepxde(dde):
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, scripts.diffusion_1d.exact, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, scripts.diffusion_1d.exact, lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(
        geomtime, _diffusion_pde_deepxde(dde), [bc, ic], num_domain=40, num_boundary=20, num_initial=10,
        solution=scripts.diffusion_1d.exact, num_test=10000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=10000)


def diffusion_1d_exact_bc_deepxde(dde):
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    data = dde.data.TimePDE(
        geomtime,
        _diffusion_pde_deepxde(dde),
        [],
        num_domain=40,
        solution=scripts.diffusion_1d_exact_bc.exact,
        num_test=10000,
    )
    net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(
        lambda x, y: x[:, 1:2] * (1 - x[:, 0:1] ** 2) * y + dde.backend.sin(np.pi * x[:, 0:1])
    )
    return DeepXDE(dde.Model(data, net), iterations=10000)


# diffusion_reaction: u_t = u_xx + e^-t sum_k (k^2 - 1)/k sin(k x), k = 2, 3, 4, 8, on [-pi, pi] x [0, 1]
MODES = scripts.diffusion_reaction.MODES


def diffusion_reaction_deepxde(dde):
    sin, exp = dde.backend.sin, dde.backend.exp

    def pde(x, y):
        dy_t, dy_xx = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.hessian(y, x, i=0, j=0)
        source = 3 * sin(2 * x[:, 0:1]) / 2 + 8 * sin(3 * x[:, 0:1]) / 3 + 15 * sin(4 * x[:, 0:1]) / 4
        return dy_t - dy_xx - exp(-x[:, 1:]) * (source + 63 * sin(8 * x[:, 0:1]) / 8)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-np.pi, np.pi), dde.geometry.TimeDomain(0, 1))
    data = dde.data.TimePDE(
        geomtime, pde, [], num_domain=320, solution=scripts.diffusion_reaction.exact, num_test=80000
    )
    net = dde.nn.FNN([2] + [30] * 6 + [1], "tanh", "Glorot uniform")
    net.apply_output_transform(
        lambda x, y: x[:, 1:2] * (np.pi**2 - x[:, 0:1] ** 2) * y + sum(sin(k * x[:, 0:1]) / k for k in MODES)
    )
    return DeepXDE(dde.Model(data, net), iterations=20000)


# wave_1d: u_tt = C^2 u_xx on [0, 1] x [0, 1], u = sin(pi x) cos(C pi t) + sin(A pi x) cos(A C pi t)
WAVE_A, WAVE_C, SCALE = scripts.wave_1d.A, scripts.wave_1d.C, scripts.wave_1d.SCALE


def wave_1d_deepxde(dde):
    def pde(x, y):
        return dde.grad.hessian(y, x, i=1, j=1) - WAVE_C**2 * dde.grad.hessian(y, x, i=0, j=0)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(0, 1), dde.geometry.TimeDomain(0, 1))
    bc = dde.icbc.DirichletBC(geomtime, scripts.wave_1d.exact, lambda _, on_boundary: on_boundary)
    ic_1 = dde.icbc.IC(geomtime, scripts.wave_1d.exact, lambda _, on_initial: on_initial)
    ic_2 = dde.icbc.OperatorBC(
        geomtime, lambda x, y, _: dde.grad.jacobian(y, x, i=0, j=1), lambda x, _: dde.utils.isclose(x[1], 0)
    )
    data = dde.data.TimePDE(
        geomtime, pde, [bc, ic_1, ic_2], num_domain=360, num_boundary=360, num_initial=360,
        solution=scripts.wave_1d.exact, num_test=10000,
    )  # fmt: skip
    # the example's STMsFFN([2] + [100] * 3 + [1], "tanh", "Glorot uniform", sigmas_x=[1], sigmas_t=[1, 10])
    # is in DeepXDE's TensorFlow 1 and Paddle backends only: the PyTorch backend runs an FNN of its sizes
    net = dde.nn.FNN([2] + [100] * 3 + [1], "tanh", "Glorot uniform")
    net.apply_feature_transform(lambda x: (x - 0.5) * SCALE)
    model = dde.Model(data, net)
    model.compile("adam", lr=0.001)  # the example's get_initial_loss
    losshistory, _ = model.train(0, verbose=0)
    return DeepXDE(
        model, iterations=10000, decay=("inverse time", 2000, 0.9), loss_weights=5 / losshistory.loss_train[0],
        # with DeepXDE's default Hammersley points this redraws the same domain and initial points
        # each step; only the boundary points' times are shuffled (908 of the 1080 stay)
        callbacks=[dde.callbacks.PDEPointResampler(period=1)],
    )  # fmt: skip


# Klein_Gordon: u_tt - u_xx + u^2 = -x cos t + x^2 cos^2 t on [-1, 1] x [0, 10]; u = x cos t
def klein_gordon_deepxde(dde):
    cos = dde.backend.cos

    def pde(x, y):
        dy_tt, dy_xx = dde.grad.hessian(y, x, i=1, j=1), dde.grad.hessian(y, x, i=0, j=0)
        x, t = x[:, 0:1], x[:, 1:2]
        return dy_tt - dy_xx + y**2 + x * cos(t) - (x**2) * (cos(t) ** 2)

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 10))
    bc = dde.icbc.DirichletBC(geomtime, scripts.klein_gordon.exact, lambda _, on_boundary: on_boundary)
    ic_1 = dde.icbc.IC(geomtime, scripts.klein_gordon.exact, lambda _, on_initial: on_initial)
    ic_2 = dde.icbc.OperatorBC(
        geomtime, lambda x, y, _: dde.grad.jacobian(y, x, i=0, j=1), lambda _, on_initial: on_initial
    )
    data = dde.data.TimePDE(
        geomtime, pde, [bc, ic_1, ic_2], num_domain=30000, num_boundary=1500, num_initial=1500,
        solution=scripts.klein_gordon.exact, num_test=6000,
    )  # fmt: skip
    net = dde.nn.FNN([2] + [40] * 2 + [1], "tanh", "Glorot uniform")
    return DeepXDE(dde.Model(data, net), iterations=20000, lbfgs=True, decay=("inverse time", 3000, 0.9))


# =====================================================================================
# Burgers: u_t + u u_x = (0.01 / pi) u_xx on [-1, 1] x [0, 0.99] (symgrad.pinn.Burgers: Cole-Hopf)
# =====================================================================================
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


# =====================================================================================
# Beltrami_flow: unsteady 3-D Navier-Stokes at Re = 1, exact velocity on the faces and at t = 0
# =====================================================================================
def beltrami_flow_deepxde(dde):
    flow = scripts.beltrami_flow

    def pde(x, u):
        speeds = [u[:, k : k + 1] for k in range(3)]
        momentum = [
            dde.grad.jacobian(u, x, i=i, j=3)
            + sum(s * dde.grad.jacobian(u, x, i=i, j=k) for k, s in enumerate(speeds))
            + dde.grad.jacobian(u, x, i=3, j=i)
            - sum(dde.grad.hessian(u, x, component=i, i=k, j=k) for k in range(3)) / flow.RE
            for i in range(3)
        ]
        return [*momentum, sum(dde.grad.jacobian(u, x, i=k, j=k) for k in range(3))]

    domain = dde.geometry.GeometryXTime(
        dde.geometry.Cuboid(xmin=[-1, -1, -1], xmax=[1, 1, 1]), dde.geometry.TimeDomain(0, 1)
    )
    walls = [
        dde.icbc.DirichletBC(domain, component(flow.exact, k), lambda _, on: on, component=k)
        for k in range(3)
    ]
    starts = [dde.icbc.IC(domain, component(flow.exact, k), lambda _, on: on, component=k) for k in range(3)]
    data = dde.data.TimePDE(
        domain, pde, [*walls, *starts], num_domain=50000, num_boundary=5000, num_initial=5000, num_test=10000
    )
    net = dde.nn.FNN([4] + 4 * [50] + [4], "tanh", "Glorot normal")
    weights = [1, 1, 1, 1, 100, 100, 100, 100, 100, 100]
    return DeepXDE(dde.Model(data, net), iterations=30000, lbfgs=True, loss_weights=weights)


# =====================================================================================
# black_scholes_call: V_tau = sigma^2 S^2 V_SS / 2 + r S V_S - r V, the payoff at tau = 0; exact
# =====================================================================================
def black_scholes_call_deepxde(dde):
    bs = scripts.black_scholes_call

    def pde(x, y):
        S = x[:, 0:1]
        dV_tau, dV_S = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.jacobian(y, x, i=0, j=0)
        dV_SS = dde.grad.hessian(y, x, i=0, j=0)
        return dV_tau - (0.5 * bs.SIGMA**2 * S**2 * dV_SS + bs.RATE * S * dV_S - bs.RATE * y)

    domain = dde.geometry.GeometryXTime(dde.geometry.Interval(0, bs.S_MAX), dde.geometry.TimeDomain(0, 1))
    payoff = dde.icbc.IC(
        domain, lambda x: np.maximum(x[:, 0:1] - bs.K, 0.0), lambda _, on_initial: on_initial
    )
    lower = dde.icbc.DirichletBC(
        domain, lambda x: np.zeros((len(x), 1)), lambda x, on: on and np.isclose(x[0], 0.0)
    )
    upper = dde.icbc.DirichletBC(
        domain,
        lambda x: x[:, 0:1] - bs.K * np.exp(-bs.RATE * x[:, 1:2]),
        lambda x, on: on and np.isclose(x[0], bs.S_MAX),
    )
    data = dde.data.TimePDE(
        domain, pde, [payoff, lower, upper], num_domain=2047, num_boundary=63, num_initial=127,
        num_test=2047, train_distribution="Sobol",
    )  # fmt: skip
    net = dde.nn.FNN([2] + [28] * 4 + [1], "tanh", "Glorot normal")
    return DeepXDE(dde.Model(data, net), iterations=20000, lbfgs=True)


# =====================================================================================
# Allen_Cahn: u_t = d u_xx + 5 (u - u^3), u(x, 0) = x^2 cos(pi x), u(+-1, t) = -1 built into u
# =====================================================================================
def allen_cahn_deepxde(dde):
    cos = dde.backend.cos

    def pde(x, y):
        dy_t, dy_xx = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.hessian(y, x, i=0, j=0)
        return dy_t - scripts.allen_cahn.D * dy_xx - 5 * (y - y**3)

    def output_transform(x, y):
        return x[:, 0:1] ** 2 * cos(np.pi * x[:, 0:1]) + x[:, 1:2] * (1 - x[:, 0:1] ** 2) * y

    domain = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    data = dde.data.TimePDE(domain, pde, [], num_domain=8000, num_boundary=400, num_initial=800)
    net = dde.nn.FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")
    net.apply_output_transform(output_transform)
    return DeepXDE(dde.Model(data, net), iterations=40000, lbfgs=True)
