"""Burgers (Raissi's setup) to 1e-4: Levenberg-Marquardt against L-BFGS at equal wall time.

The same network ([2, 20, 20, 20, 1] tanh, float64, C kernels), the same hard constraints as
tutorial 10 (u = -sin(pi x) + t (1 - x^2) net(x, t)), the same Sobol' points, the same start; each
optimizer gets ``--seconds`` of wall time. The error is the relative L2 norm on the standard
256 x 100 grid against the Cole-Hopf solution, printed as the run goes (every ~20 s).

    python bench/pinn_levenberg_marquardt.py [--seconds 300] [--points 16000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import symgrad
from symgrad import ops
from symgrad.models import PointMLP
from symgrad.pinn import Burgers, ResidualLoss, hard_constraint, lbfgs, levenberg_marquardt

PROBLEM = Burgers()


def run(optimizer: str, seconds: float, points: int) -> list[tuple[float, int, float, float]]:
    """(seconds, iteration, loss, error) about every 20 s of ``optimizer``'s run."""
    net = PointMLP([2, 20, 20, 20, 1], seed=0)
    u = hard_constraint(net, lambda x, t: -ops.sin(np.pi * x), lambda x, t: t * (1 - x * x))
    equation = ResidualLoss(PROBLEM.pde(u), PROBLEM.inputs, net.params)
    where = PROBLEM.geometry.interior(points, "sobol")
    equation.wait_until_compiled()
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    field = symgrad.kernel(u(x, t), [x, t, *net.params])

    def error() -> float:
        return PROBLEM.relative_l2(field(*PROBLEM.grid(), *(p.asnumpy() for p in net.params))[0])

    marks: list[tuple[float, int, float, float]] = []
    started = time.perf_counter()

    def note(iteration: int, loss: float) -> None:
        elapsed = time.perf_counter() - started
        if not marks or elapsed - marks[-1][0] >= 20:
            marks.append((elapsed, iteration, loss, error()))
            print(
                f"  {optimizer:20s} {elapsed:6.1f} s  iteration {iteration:5d}  loss {loss:.3e}  error {marks[-1][3]:.3e}",
                flush=True,
            )

    if optimizer == "levenberg_marquardt":
        levenberg_marquardt(
            [(equation, where)], net.params, 10**6, max_seconds=seconds, progress=False, callback=note
        )
        loss = float(equation(where)[0])
    else:
        result = lbfgs(
            [(equation, where)], net.params, 10**6, max_seconds=seconds, progress=False, callback=note
        )
        loss = result.history[-1]
    marks.append((time.perf_counter() - started, -1, loss, error()))
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="wall time for each optimizer")
    parser.add_argument("--points", type=int, default=16000, help="Sobol' collocation points")
    args = parser.parse_args()
    final = {}
    for optimizer in ("levenberg_marquardt", "lbfgs"):
        print(f"{optimizer}, {args.points} points, {args.seconds:g} s:")
        marks = run(optimizer, args.seconds, args.points)
        final[optimizer] = marks[-1]
        reached = next((m[0] for m in marks if m[3] <= 1e-4), None)
        print(
            f"  end: {marks[-1][0]:.1f} s, error {marks[-1][3]:.3e}; 1e-4 "
            + (f"reached by {reached:.0f} s" if reached else "not reached")
        )
    lm, lb = final["levenberg_marquardt"][3], final["lbfgs"][3]
    print(
        f"\nerror at equal time: Levenberg-Marquardt {lm:.3e}, L-BFGS {lb:.3e} ({lb / lm:.1f}x lower with LM)"
    )


if __name__ == "__main__":
    main()
