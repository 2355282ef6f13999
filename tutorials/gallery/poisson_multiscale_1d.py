"""Poisson_multiscale_1d: u'' = -(2 pi)^2 sin(2 pi x) - 0.1 (50 pi)^2 sin(50 pi x) on [0, 1], u as
exact at both ends; exact u = sin(2 pi x) + 0.1 sin(50 pi x): a slow mode and a fast one 25x
higher in frequency.

DeepXDE's examples/pinn_forward/Poisson_multiscale_1d.py written with symgrad.pinn: the example's
multi-scale Fourier feature network (``MultiScaleFourierMLP``, DeepXDE's MsFFN: [1, 100, 100, 100,
1], tanh, Glorot uniform, sigmas 1 and 10), its 1280 points inside and the 2 ends, trained by
``solve``. Departures from the example: scrambled Halton points, with new points between the ends
where ``solve`` draws them (DeepXDE: uniform random points, redrawn at every Adam step); the
Fourier matrices are drawn from symgrad's generator (random in both).

    python tutorials/gallery/poisson_multiscale_1d.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import Interval, MultiScaleFourierMLP, ResidualLoss, dirichlet, grad, predict, solve

A, B = 2, 50


def exact(X):
    """u at the (n, 1) points x, (n, 1)."""
    return np.sin(np.pi * A * X) + 0.1 * np.sin(np.pi * B * X)


def test_points():
    """10,000 evenly spaced points of [0, 1], (n, 1)."""
    return np.linspace(0, 1, 10000)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights to train,
    the solution as a function of x, and the unknowns' values (None: a forward problem)."""
    line = Interval(0, 1)
    net = MultiScaleFourierMLP([1, 100, 100, 100, 1], sigmas=[1, 10], init="glorot_uniform", seed=seed)

    def pde(x):
        source = (np.pi * A) ** 2 * ops.sin(np.pi * A * x) + 0.1 * (np.pi * B) ** 2 * ops.sin(np.pi * B * x)
        return grad(grad(net))(x) + source

    ends = line.boundary(2)
    walls = dirichlet(net, line, lambda x: ops.sin(np.pi * A * x) + 0.1 * ops.sin(np.pi * B * x))
    terms = [
        (ResidualLoss(pde, ("x",), net, name="pde"), np.hstack([line.interior(1280, "halton", seed), ends])),
        (walls.loss(net), ends),
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
