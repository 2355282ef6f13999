"""The PINN methods of issue 29, each against the plain setting at equal wall time.

``--problem helmholtz``: 2-D Helmholtz with k = 4 pi (bench/pinn_problems.py's: u = sin(kx) sin(ky),
[2, 50, 50, 50, 1] sin network, 4096 interior and 800 boundary points, Adam at most ``--adam``
steps then L-BFGS). Variants: the plain MLP with the boundary term weighted 100 by hand (the
suite's setting); the weights balanced by gradient norms instead (``train(balance_every=100)``,
boundary weight 1, L-BFGS on the balanced sum: ``weighted_terms``); the modified MLP (``ModifiedMLP``), by hand and balanced; random weight
factorization (``MLP(factorization=(1.0, 0.1))``).

``--problem burgers``: Burgers (Raissi's setup) with the conditions built in, 2540 Sobol' points,
[2, 20, 20, 20, 1] tanh, Adam only (lr 1e-3): the plain residual against ``CausalLoss`` (16 time
slabs, tol 1 and 10).

Prints the relative L2 error of each, ``--seconds`` a run.

    python bench/pinn_methods.py [--problem helmholtz|burgers] [--seconds 120] [--adam 5000] [--only text]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from pinn_problems import K, _grid, _relative, helmholtz_exact

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Adam,
    Burgers,
    CausalLoss,
    ModifiedMLP,
    Rectangle,
    ResidualLoss,
    dirichlet,
    hard_constraint,
    laplacian,
    lbfgs,
    predict,
    train,
    weighted_terms,
)

SQUARE = Rectangle((0, 0), (1, 1))
VARIANTS = {
    "MLP, boundary weight 100": (lambda: MLP([2, 50, 50, 50, 1], "sin", seed=0), 100.0, None),
    "MLP, balanced": (lambda: MLP([2, 50, 50, 50, 1], "sin", seed=0), 1.0, 100),
    "ModifiedMLP, boundary weight 100": (lambda: ModifiedMLP([2, 50, 50, 50, 1], "sin", seed=0), 100.0, None),
    "ModifiedMLP, balanced": (lambda: ModifiedMLP([2, 50, 50, 50, 1], "sin", seed=0), 1.0, 100),
    "MLP factorized (1, 0.1), weight 100": (
        lambda: MLP([2, 50, 50, 50, 1], "sin", seed=0, factorization=(1.0, 0.1)),
        100.0,
        None,
    ),
}


def run(make, boundary_weight: float, balance_every: int | None, adam: int, seconds: float):
    started = time.perf_counter()
    net = make()

    def pde(x, y):
        return -laplacian(net, (0, 1))(x, y) - K**2 * net(x, y) - K**2 * ops.sin(K * x) * ops.sin(K * y)

    walls = dirichlet(net, SQUARE, value=0.0)
    terms = [
        (ResidualLoss(pde, ("x", "y"), net, name="pde"), SQUARE.interior(4096, seed=1)),
        (walls.loss(net, weight=boundary_weight), walls.sample(800, seed=2)),
    ]
    for term, _ in terms:
        term.wait_until_compiled()
    params = net.trainable_params()
    history = train(
        terms, Adam(params, lr=1e-3), adam, max_seconds=seconds, progress=False, balance_every=balance_every
    )
    left = seconds - (time.perf_counter() - started)
    if history.weights:  # L-BFGS goes on with the balanced sum
        terms = weighted_terms(terms, history.weights[-1][1])
    if left > 0:
        lbfgs(terms, params, max_iterations=10**6, max_seconds=left, ftol=0, gtol=0, progress=False)
    X, Y = _grid((0, 0), (1, 1))
    error = _relative(predict(net, (X, Y)), helmholtz_exact(X, Y))
    weights = history.weights[-1][1] if history.weights else None
    return time.perf_counter() - started, len(history), error, weights


BURGERS = Burgers()
CAUSAL = {"plain residual": None, "CausalLoss, 16 slabs, tol 1": 1.0, "CausalLoss, 16 slabs, tol 10": 10.0}


def run_burgers(tol: float | None, seconds: float) -> tuple[float, int, float]:
    started = time.perf_counter()
    net = MLP([2, 20, 20, 20, 1], seed=0)
    u = hard_constraint(net, lambda x, t: -ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))
    loss = ResidualLoss(BURGERS.pde(u), BURGERS.inputs, net, name="pde")
    loss.wait_until_compiled()
    term = loss if tol is None else CausalLoss(loss, slabs=16, tol=tol)
    history = train([(term, BURGERS.geometry.interior(2540, "sobol"))], Adam(net.trainable_params(), lr=1e-3),
                    10**7, max_seconds=seconds, progress=False)  # fmt: skip
    x, t = BURGERS.grid()
    error = BURGERS.relative_l2(-np.sin(np.pi * x) + t * (1 - x * x) * predict(net, (x, t)))
    return time.perf_counter() - started, len(history), error


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problem", choices=("helmholtz", "burgers"), default="helmholtz")
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--adam", type=int, default=5000)
    parser.add_argument("--only", default="", help="run the variants whose names contain this text")
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    if args.problem == "burgers":
        print(f"{machine}; Burgers, Adam only, {args.seconds:.0f} s each")
        print(f"{'variant':38s} {'wall s':>7s} {'Adam steps':>10s} {'relative L2':>12s}")
        for name, tol in CAUSAL.items():
            if args.only not in name:
                continue
            seconds, steps, error = run_burgers(tol, args.seconds)
            print(f"{name:38s} {seconds:7.1f} {steps:10d} {error:12.2e}", flush=True)
        return
    print(f"{machine}; Helmholtz k = 4 pi, {args.seconds:.0f} s each")
    print(f"{'variant':38s} {'wall s':>7s} {'Adam steps':>10s} {'relative L2':>12s}  last balanced weights")
    for name, (make, weight, every) in VARIANTS.items():
        if args.only not in name:
            continue
        seconds, steps, error, weights = run(make, weight, every, args.adam, args.seconds)
        shown = "" if weights is None else ", ".join(f"{w:.3g}" for w in weights)
        print(f"{name:38s} {seconds:7.1f} {steps:10d} {error:12.2e}  {shown}", flush=True)


if __name__ == "__main__":
    main()
