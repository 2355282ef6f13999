"""Lorenz_inverse: learn C1, C2, C3 of the Lorenz system y1' = C1 (y2 - y1), y2' = y1 (C2 - y3) - y2,
y3' = y1 y2 - C3 y3 on [0, 3], y(0) = (-8, 7, 27), from 25 observations of the trajectory;
true C = (10, 15, 8/3), each starting at 1; reference trajectory by ``solve_ivp`` (DOP853, rtol 1e-11).

DeepXDE's examples/pinn_inverse/Lorenz_inverse.py written with symgrad.pinn: the example's network
([1, 40, 40, 40, 3], tanh, Glorot uniform), the unknowns as Parameters trained with the weights,
its 400 points inside, the 2 ends and the observation times as anchors (the equations at all of
them), one term per initial value and one for the observations, trained by ``solve``.
Departures from the example: DeepXDE reads its 25 observations from examples/dataset/Lorenz.npz (a
trajectory with the same C at an ODE solver's step times); here they are 25 equally spaced times
of the same trajectory by solve_ivp; the error reported is the trajectory's; scrambled Halton points
(DeepXDE: Hammersley).

    python tutorials/gallery/lorenz_inverse.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.integrate import solve_ivp

from symgrad import Parameter, Tensor
from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, observations, predict, solve

TRUTH = {"C1": 10.0, "C2": 15.0, "C3": 8.0 / 3.0}
START = (-8.0, 7.0, 27.0)
OBSERVED_T = np.linspace(0, 3, 25)[:, None]  # 25 observation times on [0, 3], (n, 1)


def rates(t, y, c1=TRUTH["C1"], c2=TRUTH["C2"], c3=TRUTH["C3"]):
    """The right-hand side, for solve_ivp."""
    return [c1 * (y[1] - y[0]), y[0] * (c2 - y[2]) - y[1], y[0] * y[1] - c3 * y[2]]


def exact(X):
    """(y1, y2, y3) at the (n, 1) times X by solve_ivp, (n, 3)."""
    t = np.ravel(X)
    order = np.argsort(t)
    sol = solve_ivp(rates, (0, 3), START, t_eval=t[order], method="DOP853", rtol=1e-11, atol=1e-11)
    out = np.empty((t.size, 3))
    out[order] = sol.y.T
    return out


def test_points():
    """300 times on [0, 3], (n, 1)."""
    return np.linspace(0, 3, 300)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights and unknowns
    to train, the trajectory as a function of t, and a function giving the unknowns' values."""
    time = TimeDomain(0, 3)
    net = MLP([1, 40, 40, 40, 3], "tanh", "glorot_uniform", seed=seed)
    C1, C2, C3 = (Parameter(Tensor(np.array(1.0)), name=name) for name in ("C1", "C2", "C3"))
    params = [*net.trainable_params(), C1, C2, C3]
    y1, y2, y3 = net.output(0), net.output(1), net.output(2)

    def lorenz(t):
        a, b, c = net(t)
        return grad(y1)(t) - C1 * (b - a), grad(y2)(t) - a * (C2 - c) + b, grad(y3)(t) - a * b + C3 * c

    starts = [initial(y, time, v, name=f"y{k + 1}(0)") for k, (y, v) in enumerate(zip((y1, y2, y3), START))]
    data = observations(net, OBSERVED_T.T, exact(OBSERVED_T).T, ("t",))
    inside = time.interior(400, "halton", seed)
    terms = [
        (
            ResidualLoss(lorenz, ("t",), params, name="ode"),
            np.hstack([inside, time.boundary(2), OBSERVED_T.T]),
        )
    ]
    terms += [(s.loss(params), s.sample(1)) for s in starts]
    terms.append((data.loss(params), data.sample()))

    def unknowns():
        return {p.name: float(np.asarray(p.asnumpy())) for p in (C1, C2, C3)}

    return terms, params, net, unknowns


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did, the relative L2 error on the test points
    and the unknowns against their true values."""
    terms, params, u, unknowns = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(u, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    print(f"relative L2 error on {len(X)} test points: {error:.3e}")
    for name, value in unknowns().items():
        truth = TRUTH[name]
        print(
            f"{name} = {value:.6g} (true {truth:.6g}, relative error {abs(value - truth) / abs(truth):.2e})"
        )
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
