"""Euler_beam: u'''' = -1 on [0, 1], u(0) = u'(0) = 0, u''(1) = u'''(1) = 0 (a cantilever beam);
exact u = -x^4/24 + x^3/6 - x^2/4 (``symgrad.pinn.Beam``).

DeepXDE's examples/pinn_forward/Euler_beam.py written with symgrad.pinn: the example's network
([1, 20, 20, 20, 1], tanh, Glorot uniform), its 10 points inside and the 2 ends, one term per
boundary condition (``Beam.conditions``), trained by ``solve``.
Departure from the example: scrambled Halton points (DeepXDE: Hammersley).

    python tutorials/gallery/euler_beam.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad.pinn import MLP, Beam, ResidualLoss, predict, solve

BEAM = Beam()


def exact(X):
    """u at the (n, 1) points X, (n, 1)."""
    return BEAM.exact(X)


def test_points():
    """The example's test set: 100 points on [0, 1], (n, 1)."""
    return np.linspace(0, 1, 100)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of x, and the unknowns' values (None: a forward problem)."""
    line = BEAM.geometry
    net = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed)
    inside = line.interior(10, "halton", seed)
    terms = [
        (ResidualLoss(BEAM.pde(net), BEAM.inputs, net, name="pde"), np.hstack([inside, line.boundary(2)]))
    ]
    # Beam's conditions carry no input names (Condition.loss refuses them): wrap their residuals
    terms += [
        (ResidualLoss(c.residual, BEAM.inputs, net, name=c.name), c.sample(1)) for c in BEAM.conditions(net)
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
