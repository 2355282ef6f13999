"""The gallery's time-dependent problems: heat, diffusion, diffusion-reaction, wave, Klein-Gordon, Burgers."""

from __future__ import annotations

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Burgers,
    Interval,
    ResidualLoss,
    SpaceTime,
    SpatioTemporalFourierMLP,
    dirichlet,
    grad,
    hard_constraint,
    initial,
)

from .common import DeepXDE, Symgrad, _space_time_points, halton

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


def wave_1d_symgrad(seed):
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net = SpatioTemporalFourierMLP(  # the example's network (DeepXDE's STMsFFN)
        [2, 100, 100, 100, 1], space_sigmas=[1], time_sigmas=[1, 10], init="glorot_uniform", seed=seed
    )

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
