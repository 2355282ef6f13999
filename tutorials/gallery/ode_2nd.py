"""ode_2nd: y'' - 10 y' + 9 y = 5 t on [0, 0.25], y(0) = -1, y'(0) = 2;
exact y = 50/81 + 5 t / 9 - 2 e^t + 31/81 e^(9 t).

DeepXDE's examples/pinn_forward/ode_2nd.py written with symgrad.pinn: the example's network
([1, 50, 50, 50, 1], tanh, Glorot uniform), its 16 points inside and the 2 ends, its loss weights
(0.01 on the equation, 1 on each initial condition; y'(0) = 2 is ``initial(..., derivative=1)``),
trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/ode_2nd.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, predict, solve


def exact(t):
    """y at the (n, 1) times t, (n, 1)."""
    return 50 / 81 + t * 5 / 9 - 2 * np.exp(t) + (31 / 81) * np.exp(9 * t)


def test_points():
    """The example's test set: 500 times on [0, 0.25], (n, 1)."""
    return np.linspace(0, 0.25, 500)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of t, and the unknowns' values (None: a forward problem)."""
    time = TimeDomain(0, 0.25)
    net = MLP([1, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    y_t = grad(net)

    def ode(t):
        return grad(y_t)(t) - 10 * y_t(t) + 9 * net(t) - 5 * t

    value = initial(net, time, -1.0, name="y(0)")
    slope = initial(net, time, 2.0, derivative=1, name="y'(0)")
    inside = time.interior(16, "halton", seed)
    terms = [
        (ResidualLoss(ode, ("t",), net, weight=0.01, name="ode"), np.hstack([inside, time.boundary(2)])),
        (value.loss(net), value.sample(1)),
        (slope.loss(net), slope.sample(1)),
    ]
    return terms, net, net, None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 error on the test points."""
    terms, params, u, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = predict(u, X.T).reshape(-1, 1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    print(f"relative L2 error on {len(X)} test points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
