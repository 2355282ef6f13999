"""brinkman_forchheimer: the effective viscosity v_e and permeability K of a Brinkman-Forchheimer
flow in a channel, -v_e / e u'' + v u / K = g on [0, 1], u(0) = u(1) = 0, from u observed at 5
points (g = 1, v = 1e-3, e = 0.4; true v_e = K = 1e-3, both starting at 0.1); exact
u = g K / v (1 - cosh(r (x - 1/2)) / cosh(r / 2)), r = sqrt(v e / (v_e K)) = 20.

DeepXDE's examples/pinn_inverse/brinkman_forchheimer.py written with symgrad.pinn: the example's
network ([1, 20, 20, 20, 1], tanh, Glorot uniform) inside its output transform (u = x (1 - x) net,
so the walls hold exactly), v_e and K as Parameters trained with the weights, its 100 evenly
spaced points inside and its 5 observations, trained by ``solve``.

    python tutorials/gallery/brinkman_forchheimer.py [seconds]   # default 60
"""

from __future__ import annotations

import sys

import numpy as np

from symgrad import Parameter, Tensor
from symgrad.pinn import MLP, ResidualLoss, grad, hard_constraint, observations, predict, solve

G, NU, POROSITY = 1.0, 1e-3, 0.4
TRUTH = {"v_e": 1e-3, "K": 1e-3}
OBSERVED_X = np.linspace(1 / 6, 1, 5, endpoint=False)[None, :]  # the example's gen_traindata(5), (1, 5)


def exact(X):
    """u at the (n, 1) points x, (n, 1)."""
    r = np.sqrt(NU * POROSITY / (TRUTH["v_e"] * TRUTH["K"]))
    return G * TRUTH["K"] / NU * (1 - np.cosh(r * (X - 0.5)) / np.cosh(r / 2))


def test_points():
    """500 evenly spaced points of [0, 1], (n, 1)."""
    return np.linspace(0, 1, 500)[:, None]


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights and unknowns
    to train, the solution as a function of x, and a function giving the unknowns' values."""
    net = MLP([1, 20, 20, 20, 1], "tanh", "glorot_uniform", seed=seed)
    v_e, K = Parameter(Tensor(np.array(0.1)), name="v_e"), Parameter(Tensor(np.array(0.1)), name="K")
    params = [*net.trainable_params(), v_e, K]
    u = hard_constraint(net, 0.0, lambda x: x * (1 - x))  # the example's output transform

    def pde(x):
        return -v_e / POROSITY * grad(grad(u))(x) + NU * u(x) / K - G

    inside = (np.arange(1, 101) / 101)[None, :]  # DeepXDE's 100 "uniform" points, ends left out
    data = observations(u, OBSERVED_X, exact(OBSERVED_X.T)[:, 0], ("x",))
    terms = [(ResidualLoss(pde, ("x",), params, name="pde"), inside), (data.loss(params), data.sample())]

    def unknowns():
        return {"v_e": float(np.asarray(v_e.asnumpy())), "K": float(np.asarray(K.asnumpy()))}

    return terms, params, u, unknowns


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did, the relative L2 error on the test points
    and the unknowns against their true values."""
    terms, params, u, unknowns = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = predict(u, X.T).reshape(-1, 1), exact(X)
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
