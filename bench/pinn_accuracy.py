"""Time to accuracy on viscous Burgers: symgrad against DeepXDE (PyTorch backend) in the same run.

Same problem (nu = 0.01/pi, x in [-1, 1], t in [0, 0.99]), same network ([2, 20, 20, 20, 1] tanh),
same point counts (2540 interior, 80 boundary, 160 initial), Adam (lr 1e-3) then L-BFGS; the
error is the relative L2 norm on the standard 256 x 100 grid against the exact Cole-Hopf
solution (symgrad.pinn.Burgers). Rows:

- DeepXDE as shipped (float32) and with float64;
- symgrad with the same recipe (three soft loss terms), float64, C kernels;
- symgrad's own recipe (tutorials/10_pinn_burgers.py: hard constraints, Sobol' points,
  residual-based refinement, L-BFGS), with the L-BFGS cap, and again with half of each DeepXDE
  row's wall time as its only limit (the issue's target: the same or better error in at most
  half DeepXDE's time).

    python bench/pinn_accuracy.py [--adam 15000] [--lbfgs 5000] [--quick]

Prints wall time and error per row and the ratios to DeepXDE's float32 row.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time

import numpy as np

from symgrad import ops
from symgrad.models import PointMLP
from symgrad.pinn import Adam, Burgers, ResidualLoss, hard_constraint, lbfgs, refine, train

PROBLEM = Burgers()
LAYERS = [2, 20, 20, 20, 1]
COUNTS = {"interior": 2540, "boundary": 80, "initial": 160}


def symgrad_same_recipe(adam: int, iterations: int) -> tuple[float, float]:
    """Three soft terms (equation, initial, boundary) as DeepXDE's example has them."""
    started = time.perf_counter()
    net = PointMLP(LAYERS, seed=0)
    geometry = PROBLEM.geometry
    terms = [
        (ResidualLoss(PROBLEM.pde(net), PROBLEM.inputs, net.params), geometry.interior(COUNTS["interior"])),
        *(
            (ResidualLoss(c.residual, PROBLEM.inputs, net.params), c.sample(COUNTS[c.name], "uniform", 1))
            for c in PROBLEM.conditions(net)
        ),
    ]
    for term, _ in terms:  # the same kernels from the first step: runs are reproducible
        term.wait_until_compiled()
    train(terms, Adam(net.params, lr=1e-3), adam, progress=False)
    lbfgs(terms, net.params, max_iterations=iterations, progress=False)
    return time.perf_counter() - started, PROBLEM.relative_l2(_predict(net))


def symgrad_own_recipe(adam: int, iterations: int, seconds: float | None = None) -> tuple[float, float]:
    """The tutorial's recipe: conditions built into u, Sobol' points, refinement, L-BFGS
    (stopped after ``seconds`` of wall time in all when given)."""
    started = time.perf_counter()
    net = PointMLP(LAYERS, seed=0)
    u = hard_constraint(net, lambda x, t: -ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))
    equation = ResidualLoss(PROBLEM.pde(u), PROBLEM.inputs, net.params)
    points = PROBLEM.geometry.interior(COUNTS["interior"], "sobol")
    equation.wait_until_compiled()
    train([(equation, points)], Adam(net.params, lr=1e-3), min(adam, 2000), progress=False)
    points = refine(points, PROBLEM.geometry.interior(20000, seed=1), equation.residuals, 240)
    left = None if seconds is None else seconds - (time.perf_counter() - started)
    lbfgs([(equation, points)], net.params, max_iterations=iterations, max_seconds=left, progress=False)
    return time.perf_counter() - started, PROBLEM.relative_l2(_predict(net, u))


def _predict(net: PointMLP, u=None) -> np.ndarray:
    import symgrad

    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    field = symgrad.kernel((u or net)(x, t), [x, t, *net.params])
    return field(*PROBLEM.grid(), *(p.asnumpy() for p in net.params))[0]


def deepxde_run(adam: int, iterations: int, float64: bool) -> tuple[float, float]:
    """DeepXDE's Burgers example (PyTorch backend), with L-BFGS capped at ``iterations``."""
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    import deepxde as dde

    dde.config.set_default_float("float64" if float64 else "float32")
    dde.config.set_random_seed(0)
    started = time.perf_counter()

    def pde(x, y):
        dy_x = dde.grad.jacobian(y, x, i=0, j=0)
        dy_t = dde.grad.jacobian(y, x, i=0, j=1)
        dy_xx = dde.grad.hessian(y, x, i=0, j=0)
        return dy_t + y * dy_x - PROBLEM.nu * dy_xx

    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 0.99))
    bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, lambda x: -np.sin(np.pi * x[:, 0:1]), lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(geomtime, pde, [bc, ic], num_domain=2540, num_boundary=80, num_initial=160)
    model = dde.Model(data, dde.nn.FNN(LAYERS, "tanh", "Glorot normal"))
    model.compile("adam", lr=1e-3)
    model.train(iterations=adam, display_every=max(adam, 1), verbose=0)
    dde.optimizers.config.set_LBFGS_options(maxiter=iterations)
    model.compile("L-BFGS")
    model.train(display_every=max(iterations, 1), verbose=0)
    X, T = PROBLEM.grid()
    predicted = model.predict(np.stack([X.ravel(), T.ravel()], axis=1)).reshape(X.shape)
    return time.perf_counter() - started, PROBLEM.relative_l2(predicted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adam", type=int, default=15000, help="Adam steps (DeepXDE's example: 15000)")
    parser.add_argument("--lbfgs", type=int, default=5000, help="L-BFGS iteration cap for every row")
    parser.add_argument("--quick", action="store_true", help="200 Adam steps, 200 L-BFGS iterations")
    args = parser.parse_args()
    adam, iterations = (200, 200) if args.quick else (args.adam, args.lbfgs)
    rows: list[tuple[str, float, float]] = []
    if importlib.util.find_spec("deepxde") and importlib.util.find_spec("torch"):
        rows.append(("DeepXDE float32 (as shipped)", *deepxde_run(adam, iterations, float64=False)))
        rows.append(("DeepXDE float64", *deepxde_run(adam, iterations, float64=True)))
    else:
        print("DeepXDE with PyTorch is not installed (pip install deepxde torch): symgrad rows only")
    rows.append(("symgrad, same recipe (float64, C)", *symgrad_same_recipe(adam, iterations)))
    rows.append(("symgrad, own recipe (tutorial 10)", *symgrad_own_recipe(adam, iterations)))
    for name, seconds, _ in [r for r in rows if r[0].startswith("DeepXDE")]:
        # the same recipe with half of that DeepXDE run's wall time as its only limit
        label = f"symgrad, own recipe, half {name.split(' (')[0]}'s time"
        rows.append((label, *symgrad_own_recipe(adam, 10**6, 0.5 * seconds)))
    base = rows[0]
    print(f"Adam {adam} steps, L-BFGS at most {iterations} iterations")
    print(f"{'run':48s} {'wall s':>9s} {'rel. L2':>10s} {'time ratio':>11s} {'error ratio':>12s}")
    for name, seconds, error in rows:
        print(f"{name:48s} {seconds:9.1f} {error:10.2e} {seconds / base[1]:11.2f} {error / base[2]:12.2f}")


if __name__ == "__main__":
    main()
