"""elliptic_inverse_field: learn the field q(x) of -u'' + q = 0 on [-1, 1] (u = sin(pi x) at the
ends) from u observed at 100 points; exact u = sin(pi x), q = -pi^2 sin(pi x).

DeepXDE's examples/pinn_inverse/elliptic_inverse_field.py written with symgrad.pinn: the example's
network (DeepXDE's PFNN [1, [20, 20], [20, 20], [20, 20], 2], tanh, Glorot uniform: a separate
[1, 20, 20, 20, 1] network per output, here ``net_u`` and ``net_q``), its 200 points inside, the 2
ends and the observation points as anchors (the equation at all of them), its loss weights (1 on the
equation, 100 on the boundary, 1000 on the observations), trained by ``solve``.
Departures from the example: the error reported is that of u and q stacked (q, pi^2 times larger,
dominates), each field's also printed; scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/elliptic_inverse_field.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, dirichlet, grad, observations, predict, solve

OBSERVED_X = np.linspace(-1, 1, 100).reshape(100, 1)  # where u is observed, (n, 1)


def exact(X):
    """(u, q) at the (n, 1) points X, (n, 2)."""
    return np.hstack([np.sin(np.pi * X), -(np.pi**2) * np.sin(np.pi * X)])


def test_points():
    """500 points on [-1, 1], (n, 1)."""
    return np.linspace(-1, 1, 500)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    (u, q) as a function of x, and the unknowns' values (None: the unknown is the field q, an output)."""
    line = Interval(-1, 1)
    net_u = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed)
    net_q = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed + 1000)
    params = [*net_u.trainable_params(), *net_q.trainable_params()]
    walls = dirichlet(net_u, line, lambda x: ops.sin(np.pi * x))
    data = observations(net_u, OBSERVED_X.T, np.sin(np.pi * OBSERVED_X[:, 0]), ("x",))
    pde = ResidualLoss(lambda x: -grad(grad(net_u))(x) + net_q(x), ("x",), params, name="pde")
    inside = line.interior(200, "halton", seed)
    terms = [
        (pde, np.hstack([inside, line.boundary(2), OBSERVED_X.T])),
        (walls.loss(params, weight=100.0), line.boundary(2)),
        (data.loss(params, weight=1000.0), data.sample()),
    ]
    return terms, params, lambda x: (net_u(x), net_q(x)), None


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did and the relative L2 errors on the test points."""
    terms, params, u, _ = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(u, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    for k, field in enumerate(("u", "q")):
        part = np.linalg.norm(predicted[:, k] - expected[:, k]) / np.linalg.norm(expected[:, k])
        print(f"{field}: relative L2 error {part:.3e}")
    print(f"relative L2 error on {len(X)} test points: {error:.3e}")
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
