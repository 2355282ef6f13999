"""What the training loops add to the loss-and-gradient kernels: one Adam ``train`` step and one
``lbfgs`` evaluation against the bare kernel calls on the same points (target: at most 1.1x).

Problems (C kernels, float64, weights as given):
- helmholtz: [2, 50, 50, 50, 1], 4096 interior + 800 boundary points (two terms);
- burgers: [2, 20, 20, 20, 1], 2540 interior + 80 boundary + 160 initial points (three terms);
- kovasznay: [2, 50, 50, 50, 3], a system (three residual components) + 400 boundary points.

``setulb ms`` is SciPy's compiled L-BFGS-B step per evaluation (the optimizer's own arithmetic,
about 4 history_size x weights multiply-adds and more); ``symgrad/bare`` is lbfgs without it.

Each row is timed with symgrad's one-pool rule (BLAS held to one thread during training) and,
with ``--clash``, without it, in alternating rounds (the machine is shared: best of each).

    python bench/pinn_overhead.py [--rounds 3] [--clash] [--history 50]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import time

from symgrad import ops
from symgrad.pinn import MLP, Adam, Kovasznay, Rectangle, ResidualLoss, laplacian, lbfgs, train

# the modules (symgrad.pinn's attributes of these names are the functions)
training_module = importlib.import_module("symgrad.pinn.training")
lbfgs_module = importlib.import_module("symgrad.pinn.lbfgs")


def helmholtz():
    net = MLP([2, 50, 50, 50, 1], seed=0)
    k = 4 * math.pi

    def pde(x, y):
        return -laplacian(net, (0, 1))(x, y) - k**2 * net(x, y) - ops.sin(k * x) * ops.sin(k * y)

    square = Rectangle((0, 0), (1, 1))
    return net, [
        (ResidualLoss(pde, ("x", "y"), net, name="pde"), square.interior(4096, seed=1)),
        (
            ResidualLoss(lambda x, y: net(x, y), ("x", "y"), net, name="boundary"),
            square.boundary(800, seed=2),
        ),
    ]


def burgers():
    from symgrad.pinn import Burgers

    problem = Burgers()
    net = MLP([2, 20, 20, 20, 1], seed=0)
    conditions = problem.conditions(net)
    counts = {"initial": 160, "boundary": 80}
    return net, [
        (
            ResidualLoss(problem.pde(net), problem.inputs, net, name="pde"),
            problem.geometry.interior(2540, seed=1),
        ),
        *(
            (ResidualLoss(c.residual, problem.inputs, net, name=c.name), c.sample(counts[c.name]))
            for c in conditions
        ),
    ]


def kovasznay():
    problem = Kovasznay()
    net = MLP([2, 50, 50, 50, 3], seed=0)
    walls = problem.conditions(net)[0]
    return net, [
        (
            ResidualLoss(problem.pde(net), problem.inputs, net, name="pde"),
            problem.geometry.interior(2601, seed=1),
        ),
        (walls.loss(net), walls.sample(400, seed=2)),
    ]


@contextlib.contextmanager
def without_one_pool(active: bool):
    """Training as it ran before the one-pool rule (BLAS threads free), for the comparison."""
    if not active:
        yield
        return
    saved = training_module.one_pool, lbfgs_module.one_pool
    training_module.one_pool = lbfgs_module.one_pool = contextlib.nullcontext
    try:
        yield
    finally:
        training_module.one_pool, lbfgs_module.one_pool = saved


def bare(terms, calls: int) -> float:
    """Seconds per evaluation of every term's kernel, called directly with the weights' arrays."""
    args = [(term.kernel, points, [p.asnumpy() for p in term.read]) for term, points in terms]
    start = time.perf_counter()
    for _ in range(calls):
        for kernel, points, weights in args:
            kernel(*points, *weights)
    return (time.perf_counter() - start) / calls


def per_train_step(net, terms, steps: int) -> float:
    history = train(terms, Adam(net, lr=1e-4), steps, progress=False)
    return history.seconds / len(history)


class TimedSetulb:
    """SciPy's compiled L-BFGS-B step (``setulb``), timed: the optimizer's own arithmetic."""

    def __init__(self, module):
        self.module, self.seconds = module, 0.0

    def __getattr__(self, name):
        return getattr(self.module, name)

    def setulb(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.module.setulb(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def per_lbfgs_evaluation(net, terms, iterations: int, history: int = 50) -> tuple[float, float]:
    """Seconds per evaluation of ``lbfgs``, and of them in SciPy's L-BFGS-B step."""
    driver = importlib.import_module("scipy.optimize._lbfgsb_py")
    timed = driver._lbfgsb = TimedSetulb(driver._lbfgsb)
    try:
        result = lbfgs(terms, net, max_iterations=iterations, history_size=history, progress=False)
    finally:
        driver._lbfgsb = timed.module
    return result.seconds / len(result.history), timed.seconds / len(result.history)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--clash", action="store_true", help="also time without the one-pool rule")
    parser.add_argument("--history", type=int, default=50, help="lbfgs's history_size (its default: 50)")
    args = parser.parse_args()
    problems = {"helmholtz": helmholtz, "burgers": burgers, "kovasznay": kovasznay}
    variants = [False, True] if args.clash else [False]
    print(
        f"{'problem':<10} {'BLAS':<10} {'bare ms':>8} {'train ms':>9} {'lbfgs ms':>9} {'setulb ms':>10} "
        f"{'train/bare':>11} {'lbfgs/bare':>11} {'symgrad/bare':>13}"
    )
    for name, build in problems.items():
        net, terms = build()
        for term, _ in terms:
            assert term.wait_until_compiled() == "c", "the C backend is needed for this benchmark"
        theta = [p.asnumpy() for p in net.trainable_params()]
        best: dict[bool, list[float]] = {v: [math.inf] * 4 for v in variants}
        for _ in range(args.rounds):
            for clash in variants:
                with without_one_pool(clash):
                    for p, value in zip(net.trainable_params(), theta):
                        p.set_data(value)
                    times = [
                        bare(terms, args.calls),
                        per_train_step(net, terms, args.calls),
                        *per_lbfgs_evaluation(net, terms, args.calls, args.history),
                    ]
                best[clash] = [min(a, b) for a, b in zip(best[clash], times)]
        for clash in variants:
            b, t, lb, step = best[clash]
            label = "free" if clash else "one pool"
            print(
                f"{name:<10} {label:<10} {b * 1e3:8.2f} {t * 1e3:9.2f} {lb * 1e3:9.2f} {step * 1e3:10.2f} "
                f"{t / b:11.2f} {lb / b:11.2f} {(lb - step) / b:13.2f}"
            )


if __name__ == "__main__":
    main()
