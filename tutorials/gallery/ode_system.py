"""ode_system: y1' = y2, y2' = -y1 on [0, 10], y1(0) = 0, y2(0) = 1; exact y = (sin t, cos t).

DeepXDE's examples/pinn_forward/ode_system.py written with symgrad.pinn: the example's network
([1, 50, 50, 50, 2], tanh, Glorot uniform), its 35 points inside and the 2 ends (the equations
are evaluated at all of them), one term per initial value, trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/ode_system.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, predict, solve


def exact(X):
    """(y1, y2) at the (n, 1) times X, (n, 2)."""
    return np.hstack((np.sin(X), np.cos(X)))


def test_points():
    """The example's test set: 100 times on [0, 10], (n, 1)."""
    return np.linspace(0, 10, 100)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of t, and the unknowns' values (None: a forward problem)."""
    time = TimeDomain(0, 10)
    net = MLP([1, 50, 50, 50, 2], "tanh", "glorot_uniform", seed=seed)
    y1, y2 = net.output(0), net.output(1)

    def ode(t):
        return grad(y1)(t) - y2(t), grad(y2)(t) + y1(t)

    start1, start2 = initial(y1, time, 0.0, name="y1(0)"), initial(y2, time, 1.0, name="y2(0)")
    inside = time.interior(35, "halton", seed)
    terms = [
        (ResidualLoss(ode, ("t",), net, name="ode"), np.hstack([inside, time.boundary(2)])),
        (start1.loss(net), start1.sample(1)),
        (start2.loss(net), start2.sample(1)),
    ]
    return terms, net, net, None


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
