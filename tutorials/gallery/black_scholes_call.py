"""black_scholes_call: a European call's price V(S, tau) by the Black-Scholes equation in time to
maturity, V_tau = sigma^2 S^2 V_SS / 2 + r S V_S - r V on S in [0, 150], tau in [0, 1], with
V(S, 0) = max(S - K, 0), V(0, tau) = 0, V(150, tau) = 150 - K e^(-r tau); K = 50, r = 0.05,
sigma = 0.2. Exact: the Black-Scholes formula.

DeepXDE's examples/pinn_forward/black_scholes_call.py written with symgrad.pinn: the example's
network ([2, 28 x 4, 1], tanh, Glorot normal) on the unscaled price and time as the example has
them, its 2047 points inside, 63 on the two price ends and 127 at tau = 0 (the equation at all of
them, each condition at its own), trained by ``solve`` (which trains the first layer on the price
centred and scaled to [-1, 1], the same function: raw, it saturates the layer's units).
Departure from the example: scrambled Halton points (DeepXDE: Sobol).

    python tutorials/gallery/black_scholes_call.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.stats import norm

from symgrad import ops
from symgrad.pinn import MLP, Interval, ResidualLoss, SpaceTime, dirichlet, grad, initial, predict, solve

K, RATE, SIGMA, S_MAX = 50.0, 0.05, 0.2, 150.0


def exact(X):
    """V at the (n, 2) points (S, tau) by the Black-Scholes formula (tau = 0: the payoff), (n, 1)."""
    S, tau = np.maximum(X[:, 0:1], 1e-10), np.maximum(X[:, 1:2], 1e-8)
    d1 = (np.log(S / K) + (RATE + SIGMA**2 / 2) * tau) / (SIGMA * np.sqrt(tau))
    d2 = d1 - SIGMA * np.sqrt(tau)
    return S * norm.cdf(d1) - K * np.exp(-RATE * tau) * norm.cdf(d2)


def test_points():
    """The example's 256 x 201 grid of [0, 150] x [0, 1], (n, 2)."""
    S, tau = np.meshgrid(np.linspace(0, S_MAX, 256), np.linspace(0, 1, 201), indexing="ij")
    return np.stack([S.ravel(), tau.ravel()], axis=1)


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (S, tau), and the unknowns' values (None: a forward problem)."""
    prices = Interval(0, S_MAX)
    domain = SpaceTime(prices, 0, 1)
    at_zero, at_top = prices.face(0, "low"), prices.face(0, "high")
    net = MLP([2, 28, 28, 28, 28, 1], "tanh", "glorot_normal", seed=seed)
    inside = domain.interior(2047, "halton", seed)
    ends = domain.boundary(63, "halton", seed)
    start = domain.initial(127, "halton", seed)

    def black_scholes(S, tau):
        V_S = grad(net, 0)
        return grad(net, 1)(S, tau) - (
            SIGMA**2 / 2 * S**2 * grad(V_S, 0)(S, tau) + RATE * S * V_S(S, tau) - RATE * net(S, tau)
        )

    lower = dirichlet(net, domain, 0.0, on=at_zero, name="V(0, tau)")
    upper = dirichlet(
        net,
        domain,
        lambda S, tau: S - K * ops.exp(-RATE * tau),
        on=at_top,
        name="V(150, tau)",
    )
    payoff = initial(net, domain, lambda S, tau: ops.maximum(S - K, 0.0), name="payoff")
    terms = [
        (
            ResidualLoss(black_scholes, ("S", "tau"), net, name="pde"),
            np.hstack([inside, ends, start]),
            domain,
        ),
        (lower.loss(net), ends[:, at_zero(*ends)]),
        (upper.loss(net), ends[:, at_top(*ends)]),
        (payoff.loss(net), start),
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
