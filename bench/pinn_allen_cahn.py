"""Allen-Cahn (Raissi's; jaxpi's hard benchmark) to 1e-3 on a CPU: Levenberg-Marquardt.

u_t - 1e-4 u_xx + 5 u^3 - 5 u = 0 on [-1, 1] x [0, 1], periodic in x, u(x, 0) = x^2 cos(pi x).
Network: [2, 20, 20, 20, 20, 1] tanh, float64, with the periodic embedding of x (cos pi x,
sin pi x), so periodicity holds exactly; the initial condition is a soft term (weight 100, 512
Sobol' points); 6000 Sobol' collocation points; C kernels. The error is the relative L2 norm on
the reference grid (512 x 201) against the ETDRK4 solution (symgrad.pinn.AllenCahn), printed
about every 30 s. ``--lbfgs`` runs L-BFGS from the same start for the same time after it.

    python bench/pinn_allen_cahn.py [--seconds 600] [--lbfgs]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from symgrad.pinn import MLP, AllenCahn, PeriodicEmbedding, ResidualLoss, lbfgs, levenberg_marquardt, predict

PROBLEM = AllenCahn()


def run(optimizer: str, seconds: float) -> float:
    net = MLP([2, 20, 20, 20, 20, 1], embedding=PeriodicEmbedding([2.0, None]), seed=0)
    equation = ResidualLoss(PROBLEM.pde(net), PROBLEM.inputs, net, name="pde")
    start = PROBLEM.conditions(net)[0]
    initial = ResidualLoss(start.residual, PROBLEM.inputs, net, weight=100.0, name="initial")
    terms = [(equation, PROBLEM.geometry.interior(6000, "sobol")), (initial, start.sample(512, "sobol", 1))]
    for term, _ in terms:
        term.wait_until_compiled()
    x, t = PROBLEM.grid()
    points = np.stack([x.ravel(), t.ravel()])

    def error() -> float:
        return PROBLEM.relative_l2(np.reshape(predict(net, points), x.shape))

    started, last = time.perf_counter(), [-1e9]

    def note(iteration: int, loss: float) -> None:
        elapsed = time.perf_counter() - started
        if elapsed - last[0] >= 30:
            last[0] = elapsed
            print(
                f"  {optimizer:20s} {elapsed:6.1f} s  iteration {iteration:6d}  loss {loss:.3e}  error {error():.3e}",
                flush=True,
            )

    if optimizer == "levenberg_marquardt":
        levenberg_marquardt(terms, net, 10**6, max_seconds=seconds, progress=False, callback=note)
    else:
        lbfgs(terms, net, 10**7, max_seconds=seconds, progress=False, callback=note)
    final = error()
    print(f"  end: {time.perf_counter() - started:.0f} s, relative L2 error {final:.3e}")
    return final


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="wall time for each optimizer")
    parser.add_argument("--lbfgs", action="store_true", help="also run L-BFGS for the same time")
    args = parser.parse_args()
    print("levenberg_marquardt:")
    run("levenberg_marquardt", args.seconds)
    if args.lbfgs:
        print("lbfgs:")
        run("lbfgs", args.seconds)


if __name__ == "__main__":
    main()
