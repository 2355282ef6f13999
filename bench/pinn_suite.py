"""The PINN suite (issue 29): seven problems, symgrad against DeepXDE float32 and float64 at equal wall time.

Each problem runs three times with the same network, points and wall-time cap: DeepXDE 1.15
(PyTorch backend) as shipped (float32) and in float64, Adam (lr 1e-3, at most ``--adam`` steps)
then L-BFGS; then symgrad in float64 on its C kernels, given the wall time DeepXDE float32 took,
with the method the table names. Errors are relative L2 against an exact solution or a reference
checked elsewhere (Burgers: Cole-Hopf quadrature; Allen-Cahn: ETDRK4, tests/pinn/test_research.py).

- burgers: Raissi's setup, [2, 20, 20, 20, 1] tanh, 2540 + 80 + 160 points (DeepXDE's example);
  symgrad: the conditions built into u (``hard_constraint``), so 2540 interior points only, and
  Levenberg-Marquardt in 15 s stages; after each, the 2540 points are redrawn by RAD (``resample``:
  where the residual is large, from 100,000 Sobol' candidates) and the weights with the smallest
  residual over the candidates are kept. (On 2540 fixed Sobol' points Levenberg-Marquardt reached
  9.1e-3, its training loss 1e-9: the points do not resolve the shock; with DeepXDE's soft terms
  symgrad's Adam then L-BFGS reached 1.4e-2 in 117 s, DeepXDE float32 6.5e-3.)
  "burgers 16k": the same with 16000 interior points for both (Levenberg-Marquardt's setting in
  bench/pinn_levenberg_marquardt.py; 2540 points do not resolve the shock well enough for it).
- helmholtz, inverse heat, kovasznay: as in bench/pinn_problems.py (symgrad: Adam then L-BFGS).
- allen-cahn: u_t = 1e-4 u_xx - 5u^3 + 5u, periodic in x (both get the same periodic input
  features cos(pi x), sin(pi x), t), the initial condition a term weighted 100;
  [2, 20, 20, 20, 20, 1] tanh, 6000 + 512 Sobol' points; symgrad: Levenberg-Marquardt.
- poisson 3-D: -lap u = 3 pi^2 sin(pi x) sin(pi y) sin(pi z) on [0, 1]^3, u = 0 on the boundary;
  [3, 32, 32, 32, 1] tanh, 4000 + 1200 points; symgrad: u = 0 on the faces built in, 4000 Sobol'
  interior points, Levenberg-Marquardt. (With the soft boundary term, Adam then L-BFGS reached
  3.7e-3 in 151 s, DeepXDE float32 3.4e-2.)
- neumann: -lap u = (pi^2 - 1) sin(pi x) e^y on [0, 1]^2, u = 0 at x = 0 and 1, du/dn given at
  y = 0 and 1 (u = sin(pi x) e^y); [2, 32, 32, 32, 1] tanh, 2000 + 200 + 200 points; symgrad:
  Adam then L-BFGS.

    python bench/pinn_suite.py [--seconds 120] [--problems burgers neumann ...]
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np
import pinn_problems as two_d  # helmholtz, inverse heat, kovasznay: builders and runners

from symgrad import ops
from symgrad.pinn import (
    MLP,
    AllenCahn,
    Box,
    Burgers,
    PeriodicEmbedding,
    Rectangle,
    ResidualLoss,
    dirichlet,
    hard_constraint,
    laplacian,
    levenberg_marquardt,
    neumann,
    predict,
    resample,
)

BURGERS, ALLEN_CAHN = Burgers(), AllenCahn()
CUBE = Box((0, 0, 0), (1, 1, 1))
SQUARE = Rectangle((0, 0), (1, 1))


def _relative(predicted, exact) -> float:
    return float(np.linalg.norm(np.ravel(predicted) - np.ravel(exact)) / np.linalg.norm(exact))


def poisson3d_exact(x, y, z):
    return np.sin(np.pi * x) * np.sin(np.pi * y) * np.sin(np.pi * z)


def neumann_exact(x, y):
    return np.sin(np.pi * x) * np.exp(y)


def _cube_grid(n: int = 30):
    return np.meshgrid(*(np.linspace(0, 1, n),) * 3, indexing="ij")


# ----- symgrad -----
def symgrad_burgers(points: int = 2540):
    """u = -sin(pi x) + t (1 - x^2) net(x, t) meets the initial and boundary conditions exactly
    (hard_constraint), so the equation is the only term, on DeepXDE's count of interior points (Sobol')."""
    net = MLP([2, 20, 20, 20, 1], seed=0)
    u = hard_constraint(net, lambda x, t: -ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))
    terms = [
        (
            ResidualLoss(BURGERS.pde(u), BURGERS.inputs, net, name="pde"),
            BURGERS.geometry.interior(points, "sobol"),
        )
    ]

    def errors():
        x, t = BURGERS.grid()
        return {"u": BURGERS.relative_l2(-np.sin(np.pi * x) + t * (1 - x * x) * predict(net, (x, t)))}

    return net.trainable_params(), terms, errors


def symgrad_burgers_resampled(points: int = 2540):
    """symgrad_burgers, plus the candidates its equation's points are redrawn from (100,000 Sobol')."""
    return (*symgrad_burgers(points), BURGERS.geometry.interior(100_000, "sobol", seed=1))


def symgrad_allen_cahn():
    net = MLP([2, 20, 20, 20, 20, 1], embedding=PeriodicEmbedding([2.0, None]), seed=0)
    start = ALLEN_CAHN.conditions(net)[0]
    terms = [
        (
            ResidualLoss(ALLEN_CAHN.pde(net), ALLEN_CAHN.inputs, net, name="pde"),
            ALLEN_CAHN.geometry.interior(6000, "sobol"),
        ),
        (
            ResidualLoss(start.residual, ALLEN_CAHN.inputs, net, weight=100.0, name="initial"),
            start.sample(512, "sobol", 1),
        ),
    ]
    return (
        net.trainable_params(),
        terms,
        lambda: {"u": ALLEN_CAHN.relative_l2(predict(net, ALLEN_CAHN.grid()))},
    )


def symgrad_poisson3d():
    """u = x(1-x) y(1-y) z(1-z) net(x, y, z) is 0 on the cube's faces (hard_constraint), so the
    equation is the only term, on 4000 Sobol' interior points."""
    net = MLP([3, 32, 32, 32, 1], seed=0)

    def bubble(x, y, z):
        return x * (1 - x) * y * (1 - y) * z * (1 - z)

    u = hard_constraint(net, lambda x, y, z: 0.0 * x, bubble)

    def pde(x, y, z):
        source = 3 * math.pi**2 * ops.sin(math.pi * x) * ops.sin(math.pi * y) * ops.sin(math.pi * z)
        return -laplacian(u, (0, 1, 2))(x, y, z) - source

    terms = [(ResidualLoss(pde, ("x", "y", "z"), net, name="pde"), CUBE.interior(4000, "sobol"))]
    grid = _cube_grid()
    return (
        net.trainable_params(),
        terms,
        lambda: {"u": _relative(bubble(*grid) * predict(net, grid), poisson3d_exact(*grid))},
    )


def symgrad_neumann():
    net = MLP([2, 32, 32, 32, 1], seed=0)

    def pde(x, y):
        return -laplacian(net, (0, 1))(x, y) - (math.pi**2 - 1) * ops.sin(math.pi * x) * ops.exp(y)

    sides = dirichlet(
        net, SQUARE, value=0.0, on=lambda x, y: np.isclose(x, 0) | np.isclose(x, 1), name="sides"
    )
    # du/dn on y = 0 is -u_y = -sin(pi x); on y = 1 it is u_y = e sin(pi x): both are n_y * sin(pi x) e^y
    flux = neumann(
        net, SQUARE, value=lambda x, y: (2 * y - 1) * ops.sin(math.pi * x) * ops.exp(y),
        on=lambda x, y: np.isclose(y, 0) | np.isclose(y, 1), name="flux",
    )  # fmt: skip
    terms = [
        (ResidualLoss(pde, ("x", "y"), net, name="pde"), SQUARE.interior(2000, seed=1)),
        (sides.loss(net), sides.sample(200, seed=2)),
        (flux.loss(net), flux.sample(200, seed=3)),
    ]
    grid = two_d._grid((0, 0), (1, 1))
    return net.trainable_params(), terms, lambda: {"u": _relative(predict(net, grid), neumann_exact(*grid))}


def run_levenberg_marquardt(build, adam: int, seconds: float) -> tuple[float, dict]:
    """symgrad with Levenberg-Marquardt for the whole budget (``adam`` unused: no first phase)."""
    started = time.perf_counter()
    params, terms, errors = build()
    for term, _ in terms:
        term.wait_until_compiled()
    left = seconds - (time.perf_counter() - started)
    if left > 0:
        levenberg_marquardt(terms, params, 10**6, max_seconds=left, progress=False)
    return time.perf_counter() - started, errors()


def run_levenberg_marquardt_resampled(
    build, adam: int, seconds: float, stage: float = 15.0
) -> tuple[float, dict]:
    """Levenberg-Marquardt in stages of ``stage`` seconds (``adam`` unused). After each stage the
    first term's points are redrawn, as many as before, from the builder's candidates by RAD
    (``resample``, k = c = 1), and the weights whose mean squared residual over all candidates is
    the smallest so far are kept (no exact solution is used); the best are restored at the end."""
    started = time.perf_counter()
    params, terms, errors, candidates = build()
    (loss, points), *rest = terms
    loss.wait_until_compiled()
    best_score, best_weights, stage_number = np.inf, None, 0
    while (left := seconds - (time.perf_counter() - started)) > 1:
        levenberg_marquardt(
            [(loss, points), *rest], params, 10**6, max_seconds=min(stage, left), progress=False
        )
        residuals = np.ravel(loss.residuals(*candidates))
        score = float(np.mean(residuals**2))
        if score < best_score:
            best_score, best_weights = score, [p.asnumpy() for p in params]
        stage_number += 1
        points = resample(candidates, lambda *_, r=residuals: r, points.shape[1], seed=stage_number)
    for p, w in zip(params, best_weights or []):
        p.set_data(w)
    return time.perf_counter() - started, errors()


# ----- DeepXDE -----
def deepxde_burgers(dde, points: int = 2540):
    nu = BURGERS.nu

    def pde(x, y):
        return (
            dde.grad.jacobian(y, x, i=0, j=1)
            + y * dde.grad.jacobian(y, x, i=0, j=0)
            - nu * dde.grad.hessian(y, x, i=0, j=0)
        )

    domain = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    walls = dde.icbc.DirichletBC(domain, lambda x: 0, lambda _, on_boundary: on_boundary)
    start = dde.icbc.IC(domain, lambda x: -np.sin(np.pi * x[:, 0:1]), lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(domain, pde, [walls, start], num_domain=points, num_boundary=80, num_initial=160)
    model = dde.Model(data, dde.nn.FNN([2, 20, 20, 20, 1], "tanh", "Glorot normal"))

    def errors():
        X, T = BURGERS.grid()
        return {"u": BURGERS.relative_l2(model.predict(np.stack([X.ravel(), T.ravel()], 1)).reshape(X.shape))}

    return model, [], None, errors


def deepxde_allen_cahn(dde):
    import torch

    def pde(x, y):
        u_t, u_xx = dde.grad.jacobian(y, x, i=0, j=1), dde.grad.hessian(y, x, i=0, j=0)
        return u_t - ALLEN_CAHN.epsilon * u_xx + 5 * y**3 - 5 * y

    domain = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    start = dde.icbc.IC(domain, lambda x: x[:, 0:1] ** 2 * np.cos(np.pi * x[:, 0:1]), lambda _, on: on)
    data = dde.data.TimePDE(
        domain, pde, [start], num_domain=6000, num_initial=512, train_distribution="Sobol"
    )
    net = dde.nn.FNN([3, 20, 20, 20, 20, 1], "tanh", "Glorot normal")
    net.apply_feature_transform(
        lambda x: torch.cat([torch.cos(np.pi * x[:, 0:1]), torch.sin(np.pi * x[:, 0:1]), x[:, 1:2]], 1)
    )
    model = dde.Model(data, net)

    def errors():
        X, T = ALLEN_CAHN.grid()
        return {
            "u": ALLEN_CAHN.relative_l2(model.predict(np.stack([X.ravel(), T.ravel()], 1)).reshape(X.shape))
        }

    return model, [], [1, 100], errors


def deepxde_poisson3d(dde):
    def pde(x, y):
        lap = sum(dde.grad.hessian(y, x, i=k, j=k) for k in range(3))
        sin = dde.backend.sin
        return -lap - 3 * np.pi**2 * sin(np.pi * x[:, 0:1]) * sin(np.pi * x[:, 1:2]) * sin(np.pi * x[:, 2:3])

    cube = dde.geometry.Cuboid([0, 0, 0], [1, 1, 1])
    walls = dde.icbc.DirichletBC(cube, lambda x: 0, lambda _, on_boundary: on_boundary)
    data = dde.data.PDE(cube, pde, [walls], num_domain=4000, num_boundary=1200)
    model = dde.Model(data, dde.nn.FNN([3, 32, 32, 32, 1], "tanh", "Glorot normal"))

    def errors():
        grid = _cube_grid()
        predicted = model.predict(np.stack([g.ravel() for g in grid], 1))
        return {"u": _relative(predicted, poisson3d_exact(*grid))}

    return model, [], None, errors


def deepxde_neumann(dde):
    def pde(x, y):
        lap = dde.grad.hessian(y, x, i=0, j=0) + dde.grad.hessian(y, x, i=1, j=1)
        return -lap - (np.pi**2 - 1) * dde.backend.sin(np.pi * x[:, 0:1]) * dde.backend.exp(x[:, 1:2])

    square = dde.geometry.Rectangle([0, 0], [1, 1])
    sides = dde.icbc.DirichletBC(
        square, lambda x: 0, lambda x, on: on and (np.isclose(x[0], 0) or np.isclose(x[0], 1))
    )
    flux = dde.icbc.NeumannBC(
        square,
        lambda x: (2 * x[:, 1:2] - 1) * np.sin(np.pi * x[:, 0:1]) * np.exp(x[:, 1:2]),
        lambda x, on: on and (np.isclose(x[1], 0) or np.isclose(x[1], 1)),
    )
    data = dde.data.PDE(square, pde, [sides, flux], num_domain=2000, num_boundary=400)
    model = dde.Model(data, dde.nn.FNN([2, 32, 32, 32, 1], "tanh", "Glorot normal"))

    def errors():
        X, Y = two_d._grid((0, 0), (1, 1))
        return {"u": _relative(model.predict(np.stack([X.ravel(), Y.ravel()], 1)), neumann_exact(X, Y))}

    return model, [], None, errors


LBFGS = two_d.LBFGS
LM = "Levenberg-Marquardt"
LM_BUILT_IN = "Levenberg-Marquardt, conditions built in"
LM_RESAMPLED = "LM, conditions built in, RAD-resampled points"
# name: (symgrad builder, its method, DeepXDE builder)
PROBLEMS = {
    "burgers": (symgrad_burgers_resampled, LM_RESAMPLED, deepxde_burgers),
    "burgers 16k": (
        functools.partial(symgrad_burgers, 16000),
        LM_BUILT_IN,
        functools.partial(deepxde_burgers, points=16000),
    ),
    "helmholtz": (two_d.symgrad_helmholtz, LBFGS, two_d.deepxde_helmholtz),
    "allen-cahn": (symgrad_allen_cahn, LM, deepxde_allen_cahn),
    "kovasznay": (two_d.symgrad_kovasznay, LBFGS, two_d.deepxde_kovasznay),
    "inverse heat": (two_d.symgrad_inverse_heat, LBFGS, two_d.deepxde_inverse_heat),
    "poisson 3-D": (symgrad_poisson3d, LM_BUILT_IN, deepxde_poisson3d),
    "neumann": (symgrad_neumann, LBFGS, deepxde_neumann),
}
RUNNERS = {
    LBFGS: two_d.run_symgrad,
    LM: run_levenberg_marquardt,
    LM_BUILT_IN: run_levenberg_marquardt,
    LM_RESAMPLED: run_levenberg_marquardt_resampled,
}


def main() -> None:
    two_d.compare_with_deepxde(PROBLEMS, RUNNERS, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
