"""wave_1d: u_tt = C^2 u_xx on [0, 1] x [0, 1], C = 10, u = exact on the walls and at t = 0,
u_t(x, 0) = 0; exact u = sin(pi x) cos(C pi t) + sin(A pi x) cos(A C pi t), A = 2.

DeepXDE's examples/pinn_forward/wave_1d.py written with symgrad.pinn: the example's network, a
spatio-temporal multi-scale Fourier feature network (DeepXDE's STMsFFN, here
``SpatioTemporalFourierMLP``: [2, 100, 100, 100, 1], tanh, Glorot uniform, sigmas 1 in x and 1, 10
in t) after the example's input scaling ((x - 0.5) 2 sqrt 3), its 360 points inside, 360 on the
walls and 360 at t = 0 (the equation at all of them, each condition at its own), trained by
``solve``. The equation's term carries its domain, so ``solve`` draws new points there once the
residual between the points is far above that at them: the example resamples its points at every
step, and 360 points do not pin down 5 and 10 periods in t (without the domain: error 0.86-0.89
at 150 s).
Departures from the example: the loss weights are 1 (the example's are 5 / each term's initial
loss; ``solve`` balances terms itself where their gradients differ), new points drawn by residual
when ``solve`` finds the points no longer represent the domain (the example: the same number
redrawn at every step), scrambled Halton points (DeepXDE: Hammersley). (DeepXDE 1.15's PyTorch backend has no
STMsFFN: the gallery bench runs DeepXDE with an FNN of the same sizes.)

    python tutorials/gallery/wave_1d.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    Interval,
    ResidualLoss,
    SpaceTime,
    SpatioTemporalFourierMLP,
    dirichlet,
    grad,
    initial,
    predict,
    solve,
)

A, C = 2, 10
SCALE = 2 * np.sqrt(3)


def exact(X):
    """u at the (n, 2) points (x, t), (n, 1)."""
    x, t = X[:, 0:1], X[:, 1:2]
    return np.sin(np.pi * x) * np.cos(C * np.pi * t) + np.sin(A * np.pi * x) * np.cos(A * C * np.pi * t)


def test_points():
    """A 100 x 100 grid of [0, 1] x [0, 1], (n, 2)."""
    x, t = np.meshgrid(np.linspace(0, 1, 100), np.linspace(0, 1, 100), indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, t), and the unknowns' values (None: a forward problem)."""
    domain = SpaceTime(Interval(0, 1), 0, 1)
    net = SpatioTemporalFourierMLP(  # the example's network (DeepXDE's STMsFFN)
        [2, 100, 100, 100, 1], space_sigmas=[1], time_sigmas=[1, 10], init="glorot_uniform", seed=seed
    )

    def u(x, t):  # the example's input scaling
        return net((x - 0.5) * SCALE, (t - 0.5) * SCALE)

    def solution(x, t):
        return ops.sin(np.pi * x) * ops.cos(C * np.pi * t) + ops.sin(A * np.pi * x) * ops.cos(
            A * C * np.pi * t
        )

    def pde(x, t):
        return grad(grad(u, 1), 1)(x, t) - C**2 * grad(grad(u, 0), 0)(x, t)

    inside = domain.interior(360, "halton", seed)
    walls = domain.boundary(360, "halton", seed)
    start = domain.initial(360, "halton", seed)
    terms = [
        (ResidualLoss(pde, ("x", "t"), net, name="pde"), np.hstack([inside, walls, start]), domain),
        (dirichlet(u, domain, solution).loss(net), walls),
        (initial(u, domain, solution).loss(net), start),
        (initial(u, domain, 0.0, derivative=1, name="u_t(x, 0)").loss(net), start),
    ]
    return terms, net, u, None


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
