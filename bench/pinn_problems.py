"""PINNs beyond the built-in shape, against DeepXDE (PyTorch backend) in the same run, at equal wall time.

Three problems a PINN user brings (issue 27), each written with symgrad's public API only
(``MLP``, conditions, ``ResidualLoss``, ``train``, ``lbfgs``, ``predict``) and with DeepXDE's:

- helmholtz: -u_xx - u_yy - k^2 u = k^2 sin(kx) sin(ky), k = 4 pi, on [0, 1]^2, u = 0 on the
  boundary (DeepXDE's example: sin activation, the boundary term weighted 100);
  [2, 50, 50, 50, 1], 4096 interior + 800 boundary points.
- inverse heat: u_t = D u_xx on [0, 1]^2, D unknown (0.5 at first, 0.1 true), learnt with the
  weights from 200 observations of u = exp(-D pi^2 t) sin(pi x) and u = 0 at x = 0, 1;
  [2, 20, 20, 20, 1], 2000 interior + 100 boundary points, the data term weighted 10.
- kovasznay: the steady Navier-Stokes flow at Re = 20 (u, v, p from one [2, 50, 50, 50, 3]
  network), 2601 interior points, u and v on the boundary and p at the outflow, 400 points each.

Each run: Adam (lr 1e-3) for at most ``--adam`` steps, then L-BFGS until ``--seconds`` of wall
time in all (DeepXDE is stopped by a callback, checked every 50 L-BFGS iterations, or ends where
its L-BFGS converges). DeepXDE runs as shipped (float32) and in float64; symgrad, in float64 on its
C kernels, gets the wall time DeepXDE float32 took (the issue's target: in that time or less, an
error 10x lower than DeepXDE float32's and lower than DeepXDE float64's). Errors: relative L2 on a
100 x 100 grid (inverse heat: also |D - 0.1|).

    python bench/pinn_problems.py [--seconds 120] [--adam 5000] [--problems helmholtz kovasznay]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import time

import numpy as np

from symgrad import Parameter, Tensor, ops
from symgrad.autodiff.api import grad
from symgrad.pinn import (
    MLP,
    Adam,
    Heat,
    Kovasznay,
    Rectangle,
    ResidualLoss,
    dirichlet,
    laplacian,
    lbfgs,
    observations,
    predict,
    train,
)

K = 4 * math.pi
HEAT = Heat(alpha=0.1)
FLOW = Kovasznay()
rng = np.random.default_rng(0)
OBSERVED = rng.uniform([[0.0], [0.0]], [[1.0], [1.0]], (2, 200))


def _grid(low, high, n: int = 100):
    return tuple(np.meshgrid(np.linspace(low[0], high[0], n), np.linspace(low[1], high[1], n), indexing="ij"))


def _relative(predicted, exact) -> float:
    return float(np.linalg.norm(predicted - exact) / np.linalg.norm(exact))


def helmholtz_exact(x, y):
    return np.sin(K * x) * np.sin(K * y)


# ----- symgrad -----
def symgrad_helmholtz():
    net = MLP([2, 50, 50, 50, 1], activation="sin", seed=0)
    square = Rectangle((0, 0), (1, 1))

    def pde(x, y):
        return -laplacian(net, (0, 1))(x, y) - K**2 * net(x, y) - K**2 * ops.sin(K * x) * ops.sin(K * y)

    walls = dirichlet(net, square, value=0.0)
    terms = [(ResidualLoss(pde, ("x", "y"), net, name="pde"), square.interior(4096, seed=1))]
    terms.append((walls.loss(net, weight=100.0), walls.sample(800, seed=2)))

    def errors():
        X, Y = _grid((0, 0), (1, 1))
        return {"u": _relative(predict(net, (X, Y)), helmholtz_exact(X, Y))}

    return net.trainable_params(), terms, errors


def symgrad_inverse_heat():
    net = MLP([2, 20, 20, 20, 1], seed=0)
    D = Parameter(Tensor(np.array(0.5)), name="D")
    unknowns = [*net.trainable_params(), D]

    def heat(x, t):
        return grad(net, 1)(x, t) - D * grad(grad(net, 0), 0)(x, t)

    data = observations(net, OBSERVED, HEAT.exact(*OBSERVED), ("x", "t"))
    walls = dirichlet(net, HEAT.geometry, value=0.0, name="walls")
    terms = [
        (ResidualLoss(heat, ("x", "t"), unknowns, name="pde"), HEAT.geometry.interior(2000, seed=1)),
        (walls.loss(unknowns), walls.sample(100, seed=2)),
        (data.loss(unknowns, weight=10.0), data.sample()),
    ]

    def errors():
        X, T = _grid((0, 0), (1, 1))
        return {
            "u": _relative(predict(net, (X, T)), HEAT.exact(X, T)),
            "|D-0.1|": abs(float(D.asnumpy()) - 0.1),
        }

    return unknowns, terms, errors


def symgrad_kovasznay():
    net = MLP([2, 50, 50, 50, 3], seed=0)
    terms = [
        (ResidualLoss(FLOW.pde(net), FLOW.inputs, net, name="pde"), FLOW.geometry.interior(2601, seed=1))
    ]
    terms += [(c.loss(net), c.sample(400, seed=2 + i)) for i, c in enumerate(FLOW.conditions(net))]

    def errors():
        X, Y = _grid(FLOW.geometry.lows, FLOW.geometry.highs)
        exact = FLOW.exact(X, Y)
        return {f: _relative(p, e) for f, p, e in zip(FLOW.fields, predict(net, (X, Y)), exact)}

    return net.trainable_params(), terms, errors


def run_symgrad(build, adam: int, seconds: float) -> tuple[float, dict]:
    started = time.perf_counter()
    params, terms, errors = build()
    for term, _ in terms:
        term.wait_until_compiled()
    train(terms, Adam(params, lr=1e-3), adam, max_seconds=seconds, progress=False)
    left = seconds - (time.perf_counter() - started)
    if left > 0:
        lbfgs(terms, params, max_iterations=10**6, max_seconds=left, ftol=0, gtol=0, progress=False)
    return time.perf_counter() - started, errors()


# ----- DeepXDE -----
def _dde(float64: bool):
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    import deepxde as dde

    dde.config.set_default_float("float64" if float64 else "float32")
    dde.config.set_random_seed(0)
    return dde


def deepxde_helmholtz(dde):
    def pde(x, y):
        lap = dde.grad.hessian(y, x, i=0, j=0) + dde.grad.hessian(y, x, i=1, j=1)
        f = K**2 * dde.backend.sin(K * x[:, 0:1]) * dde.backend.sin(K * x[:, 1:2])
        return -lap - K**2 * y - f

    square = dde.geometry.Rectangle([0, 0], [1, 1])
    bc = dde.icbc.DirichletBC(square, lambda x: 0, lambda _, on_boundary: on_boundary)
    data = dde.data.PDE(square, pde, [bc], num_domain=4096, num_boundary=800)
    model = dde.Model(data, dde.nn.FNN([2, 50, 50, 50, 1], "sin", "Glorot normal"))

    def errors():
        X, Y = _grid((0, 0), (1, 1))
        predicted = model.predict(np.stack([X.ravel(), Y.ravel()], 1)).reshape(X.shape)
        return {"u": _relative(predicted, helmholtz_exact(X, Y))}

    return model, [], [1, 100], errors


def deepxde_inverse_heat(dde):
    D = dde.Variable(0.5)

    def pde(x, y):
        return dde.grad.jacobian(y, x, i=0, j=1) - D * dde.grad.hessian(y, x, i=0, j=0)

    domain = dde.geometry.GeometryXTime(dde.geometry.Interval(0, 1), dde.geometry.TimeDomain(0, 1))
    walls = dde.icbc.DirichletBC(domain, lambda x: 0, lambda _, on_boundary: on_boundary)
    seen = dde.icbc.PointSetBC(OBSERVED.T, HEAT.exact(*OBSERVED)[:, None])
    data = dde.data.TimePDE(domain, pde, [walls, seen], num_domain=2000, num_boundary=100, anchors=OBSERVED.T)
    model = dde.Model(data, dde.nn.FNN([2, 20, 20, 20, 1], "tanh", "Glorot normal"))

    def errors():
        X, T = _grid((0, 0), (1, 1))
        predicted = model.predict(np.stack([X.ravel(), T.ravel()], 1)).reshape(X.shape)
        return {"u": _relative(predicted, HEAT.exact(X, T)), "|D-0.1|": abs(float(D.detach().cpu()) - 0.1)}

    return model, [D], [1, 1, 10], errors


def deepxde_kovasznay(dde):
    nu = FLOW.nu

    def pde(x, out):
        u, v = out[:, 0:1], out[:, 1:2]
        j, h = dde.grad.jacobian, dde.grad.hessian
        u_x, u_y, v_x, v_y = (
            j(out, x, i=0, j=0),
            j(out, x, i=0, j=1),
            j(out, x, i=1, j=0),
            j(out, x, i=1, j=1),
        )
        p_x, p_y = j(out, x, i=2, j=0), j(out, x, i=2, j=1)
        lap_u = h(out, x, component=0, i=0, j=0) + h(out, x, component=0, i=1, j=1)
        lap_v = h(out, x, component=1, i=0, j=0) + h(out, x, component=1, i=1, j=1)
        return [u * u_x + v * u_y + p_x - nu * lap_u, u * v_x + v * v_y + p_y - nu * lap_v, u_x + v_y]

    low, high = FLOW.geometry.lows, FLOW.geometry.highs
    box = dde.geometry.Rectangle(list(low), list(high))

    def field(k):
        return lambda x: FLOW.exact(x[:, 0:1], x[:, 1:2])[k]

    outflow = lambda x, on_boundary: on_boundary and np.isclose(x[0], high[0])  # noqa: E731
    bcs = [dde.icbc.DirichletBC(box, field(k), lambda _, on: on, component=k) for k in (0, 1)]
    bcs.append(dde.icbc.DirichletBC(box, field(2), outflow, component=2))
    data = dde.data.PDE(box, pde, bcs, num_domain=2601, num_boundary=400)
    model = dde.Model(data, dde.nn.FNN([2, 50, 50, 50, 3], "tanh", "Glorot normal"))

    def errors():
        X, Y = _grid(low, high)
        predicted = model.predict(np.stack([X.ravel(), Y.ravel()], 1))
        exact = FLOW.exact(X, Y)
        return {f: _relative(predicted[:, k].reshape(X.shape), exact[k]) for k, f in enumerate(FLOW.fields)}

    return model, [], None, errors


def run_deepxde(build, adam: int, seconds: float, float64: bool = False) -> tuple[float, dict]:
    dde = _dde(float64)
    started = time.perf_counter()

    class WallClock(dde.callbacks.Callback):
        def on_batch_end(self):
            if time.perf_counter() - started > seconds:
                self.model.stop_training = True

    model, variables, weights, errors = build(dde)
    model.compile("adam", lr=1e-3, external_trainable_variables=variables or None, loss_weights=weights)
    model.train(iterations=adam, display_every=adam, verbose=0, callbacks=[WallClock()])
    if time.perf_counter() - started < seconds:
        dde.optimizers.config.set_LBFGS_options(maxiter=10**6)
        dde.optimizers.config.LBFGS_options.update(iter_per_step=50, fun_per_step=63)  # check the clock often
        model.compile("L-BFGS", external_trainable_variables=variables or None, loss_weights=weights)
        model.train(verbose=0, callbacks=[WallClock()])
    return time.perf_counter() - started, errors()


LBFGS = "Adam, then L-BFGS"
# name: (symgrad builder, its method, DeepXDE builder)
PROBLEMS = {
    "helmholtz": (symgrad_helmholtz, LBFGS, deepxde_helmholtz),
    "inverse heat": (symgrad_inverse_heat, LBFGS, deepxde_inverse_heat),
    "kovasznay": (symgrad_kovasznay, LBFGS, deepxde_kovasznay),
}


def compare_with_deepxde(problems: dict, runners: dict, description: str) -> None:
    """The command line of this script and of pinn_suite.py: each problem by DeepXDE float32 and
    float64 under ``--seconds``, then by symgrad (``runners[method]``) in DeepXDE float32's time."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=120.0, help="DeepXDE's wall-time cap a run")
    parser.add_argument("--adam", type=int, default=5000, help="Adam steps before L-BFGS (at most)")
    parser.add_argument("--problems", nargs="+", default=list(problems), choices=list(problems))
    args = parser.parse_args()
    has_deepxde = bool(importlib.util.find_spec("deepxde") and importlib.util.find_spec("torch"))
    if not has_deepxde:
        print("DeepXDE with PyTorch is not installed (pip install deepxde torch): symgrad rows only")
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; DeepXDE capped at {args.seconds:.0f} s"
    )
    print(f"{'problem':13s} {'run':44s} {'wall s':>7s}  relative L2 (|D-0.1| for D)  f32/symgrad")
    for name in args.problems:
        ours, method, theirs = problems[name]
        rows, budget = [], args.seconds
        if has_deepxde:
            rows.append(("DeepXDE float32 (as shipped)", run_deepxde(theirs, args.adam, args.seconds)))
            rows.append(("DeepXDE float64", run_deepxde(theirs, args.adam, args.seconds, float64=True)))
            budget = rows[0][1][0]
        rows.append((f"symgrad float64, {method}", runners[method](ours, args.adam, budget)))
        first = next(iter(rows[0][1][1].values()))
        for label, (seconds, errors) in rows:
            shown = ", ".join(f"{k} {v:.2e}" for k, v in errors.items())
            ratio = first / next(iter(errors.values()))
            print(f"{name:13s} {label:44s} {seconds:7.1f}  {shown:28s} {ratio:8.1f}x", flush=True)


def main() -> None:
    compare_with_deepxde(PROBLEMS, {LBFGS: run_symgrad}, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
