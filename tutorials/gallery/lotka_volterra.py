"""Lotka_Volterra: predator-prey populations r, p (scaled by UB = 200) on the scaled time [0, 1]:
r' = RB/UB (2 UB r - 0.04 UB r UB p), p' = RB/UB (0.02 UB r UB p - 1.06 UB p), RB = 20,
r(0) = 100/UB, p(0) = 15/UB; reference by ``scipy.integrate.solve_ivp`` (rtol 1e-11).

DeepXDE's examples/pinn_forward/Lotka_Volterra.py written with symgrad.pinn: the example's network
([1, 64 x 6, 2], tanh, Glorot normal) inside its transforms (the network sees sin t; the outputs
are y * tanh(t) + the initial values, so the initial conditions hold exactly), its 3000 points
inside and the 2 ends, trained by ``solve``.
The equations are given as the example gives them to solve_ivp (its ``func(t, r)``, ``rates``
here) through ``ode_residual``: both populations' rates vanish with them and start above 0, so
the exact r and p stay positive and their residuals are fitted divided by r and p (the equations
of log r and log p; ``solve`` says so). The example's absolute residuals reward r, p near 0, where
a network that loses the trajectory falls (150 s, seeds 0 and 1: 0.87 and 0.87; divided 0.12 and
0.57; DeepXDE 0.60 and 0.87).
Departures from the example: the PyTorch version of its input transform (sin t; the TensorFlow
version adds sin 2t .. sin 6t); DeepXDE has no exact solution here (the reference is solve_ivp's);
scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/lotka_volterra.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.integrate import solve_ivp

from symgrad import ops
from symgrad.pinn import MLP, ResidualLoss, TimeDomain, ode_residual, predict, solve

UB, RB = 200, 20


def rates(t, r):
    """The right-hand side (the example's func), for solve_ivp and for the residual: r a tuple (x, y)."""
    x, y = r
    return (
        RB / UB * (2.0 * UB * x - 0.04 * UB * x * UB * y),
        RB / UB * (0.02 * UB * x * UB * y - 1.06 * UB * y),
    )


def exact(X):
    """(r, p) at the (n, 1) times X by solve_ivp, (n, 2)."""
    t = np.ravel(X)
    order = np.argsort(t)
    sol = solve_ivp(rates, (0, 1), (100 / UB, 15 / UB), t_eval=t[order], rtol=1e-11, atol=1e-12)
    out = np.empty((t.size, 2))
    out[order] = sol.y.T
    return out


def test_points():
    """100 times on [0, 1], (n, 1)."""
    return np.linspace(0, 1, 100)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of t, and the unknowns' values (None: a forward problem)."""
    time = TimeDomain(0, 1.0)
    net = MLP([1, 64, 64, 64, 64, 64, 64, 2], "tanh", "glorot_normal", seed=seed)

    def u(t):  # the example's transforms: sin t in, r(0) and p(0) built into the outputs
        r, p = net(ops.sin(t))
        return r * ops.tanh(t) + 100 / UB, p * ops.tanh(t) + 15 / UB

    ode = ode_residual(u, rates, y0=(100 / UB, 15 / UB))  # r' - rates(t, (r, p))[0], ...
    inside = time.interior(3000, "halton", seed)
    terms = [(ResidualLoss(ode, ("t",), net, name="ode"), np.hstack([inside, time.boundary(2)]))]
    return terms, net, u, None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 error on the test points."""
    terms, params, u, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(u, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    print(f"relative L2 error on {len(X)} test points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
