"""reaction_inverse: learn the rate k_f and the diffusivity D of the reaction-diffusion system
(C_A)_t = 1e-3 D (C_A)_xx - k_f C_A C_B^2, (C_B)_t = 1e-3 D (C_B)_xx - 2 k_f C_A C_B^2 on [0, 1] x [0, 10]
(C_A = C_B = 1 - x at x = 0 and 1, e^(-20 x) at t = 0) from C_A and C_B observed on a 201 x 201
grid; true k_f = 0.1, D = 2, starting at 0.05 and 1. Reference: finite differences on 801 nodes in x
integrated by ``scipy.integrate.solve_ivp`` (BDF, rtol 1e-9): 1e-5 from the same on 1,601 nodes;
the example's stored reaction.npz is 5e-4-6e-4 from it at k_f = 0.1, D = 2.

DeepXDE's examples/pinn_inverse/reaction_inverse.py written with symgrad.pinn: the example's network
([2, 20, 20, 20, 2], tanh, Glorot uniform), k_f and D as Parameters trained with the weights, its
2000 points inside, 100 on the walls, 100 at t = 0 and the 40,401 observation points as anchors (the
equations at all of them, each condition at its own), trained by ``solve``.
Departures from the example: scrambled Halton points (DeepXDE: Hammersley); the observations are the
reference's (DeepXDE reads examples/dataset/reaction.npz), on that file's grid.

    python tutorials/gallery/reaction_inverse.py [seconds]   # default 60
"""

from __future__ import annotations

import sys
from functools import cache

import numpy as np
from scipy.integrate import solve_ivp
from scipy.sparse import bmat, diags

from symgrad import Parameter, Tensor, ops
from symgrad.pinn import (
    MLP,
    Interval,
    ResidualLoss,
    SpaceTime,
    dirichlet,
    grad,
    initial,
    observations,
    predict,
    solve,
)

TRUTH = {"k_f": 0.1, "D": 2.0}
TIMES, PLACES = np.linspace(0, 10, 201), np.linspace(0, 1, 201)


@cache
def reference(nodes: int = 800) -> np.ndarray:
    """(C_A, C_B) at the true k_f and D on the grid ``PLACES`` x ``TIMES``, (2, 201, 201) (x, t)."""
    k_f, D = TRUTH["k_f"], TRUTH["D"]
    inner = np.linspace(0, 1, nodes + 1)[1:-1]
    h, m = 1 / nodes, nodes - 1
    laplacian = 1e-3 * D * diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(m, m)) / h**2
    walls = np.zeros(m)
    walls[0] = 1e-3 * D / h**2  # C = 1 at x = 0, 0 at x = 1

    def rates(t, c):
        a, b = c[:m], c[m:]
        reaction = k_f * a * b**2
        return np.concatenate([laplacian @ a + walls - reaction, laplacian @ b + walls - 2 * reaction])

    def jacobian(t, c):
        a, b = c[:m], c[m:]
        by_a, by_b = diags(k_f * b**2), diags(2 * k_f * a * b)
        return bmat([[laplacian - by_a, -by_b], [-2 * by_a, laplacian - 2 * by_b]], format="csc")

    start = np.concatenate([np.exp(-20 * inner)] * 2)
    sol = solve_ivp(rates, (0, 10), start, "BDF", TIMES, rtol=1e-9, atol=1e-12, jac=jacobian)
    ones, zeros = np.ones((1, TIMES.size)), np.zeros((1, TIMES.size))
    fields = [np.vstack([ones, sol.y[k * m : (k + 1) * m], zeros]) for k in range(2)]
    return np.stack([field[:: nodes // (PLACES.size - 1)] for field in fields])


def test_points():
    """The observations' grid: 201 x 201 points of [0, 1] x [0, 10], (n, 2)."""
    x, t = np.meshgrid(PLACES, TIMES, indexing="ij")
    return np.stack([x.ravel(), t.ravel()], axis=1)


def exact(X):
    """(C_A, C_B) at the (n, 2) points (x, t) of the grid ``test_points()``, (n, 2)."""
    j = np.rint(X[:, 0] * (PLACES.size - 1)).astype(int)
    k = np.rint(X[:, 1] / 10 * (TIMES.size - 1)).astype(int)
    if not (np.allclose(PLACES[j], X[:, 0], atol=1e-12) and np.allclose(TIMES[k], X[:, 1], atol=1e-12)):
        raise ValueError("reaction_inverse.exact: points must lie on the reference's grid")
    return reference()[:, j, k].T


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs), the weights and unknowns
    to train, the solution as a function of (x, t), and a function giving the unknowns' values."""
    domain = SpaceTime(Interval(0, 1), 0, 10)
    net = MLP([2, 20, 20, 20, 2], "tanh", "glorot_uniform", seed=seed)
    k_f = Parameter(Tensor(np.array(0.05)), name="k_f")
    D = Parameter(Tensor(np.array(1.0)), name="D")
    params = [*net.trainable_params(), k_f, D]
    c_a, c_b = net.output(0), net.output(1)

    def reaction(x, t):
        a, b = c_a(x, t), c_b(x, t)
        return (
            grad(c_a, 1)(x, t) - 1e-3 * D * grad(grad(c_a, 0), 0)(x, t) + k_f * a * b**2,
            grad(c_b, 1)(x, t) - 1e-3 * D * grad(grad(c_b, 0), 0)(x, t) + 2 * k_f * a * b**2,
        )

    def solution(x, t):
        return c_a(x, t), c_b(x, t)

    observed = test_points()
    walls, start = domain.boundary(100, "halton", seed), domain.initial(100, "halton", seed)
    inside = domain.interior(2000, "halton", seed)
    data = observations(solution, observed.T, exact(observed).T, ("x", "t"), name="C_A, C_B seen")
    terms = [
        (
            ResidualLoss(reaction, ("x", "t"), params, name="pde"),
            np.hstack([inside, walls, start, observed.T]),
        ),
        *(
            (dirichlet(c, domain, lambda x, t: 1 - x, name=f"{label} walls").loss(params), walls)
            for c, label in ((c_a, "C_A"), (c_b, "C_B"))
        ),
        *(
            (initial(c, domain, lambda x, t: ops.exp(-20 * x), name=f"{label}(x, 0)").loss(params), start)
            for c, label in ((c_a, "C_A"), (c_b, "C_B"))
        ),
        (data.loss(params), data.sample()),
    ]

    def unknowns():
        return {"k_f": float(np.asarray(k_f.asnumpy())), "D": float(np.asarray(D.asnumpy()))}

    return terms, params, solution, unknowns


def main(seconds=60.0):
    """Solve within ``seconds``; print what ``solve`` did, the relative L2 error on the test points
    and the unknowns against their true values."""
    terms, params, solution, unknowns = build(seed=0)
    print(solve(terms, params, seconds=seconds))
    X = test_points()
    predicted, expected = np.stack(predict(solution, X.T), axis=1), exact(X)
    error = np.linalg.norm(predicted - expected) / np.linalg.norm(expected)
    print(f"relative L2 error on {len(X)} test points: {error:.3e} (C_A and C_B together)")
    for name, value in unknowns().items():
        truth = TRUTH[name]
        print(
            f"{name} = {value:.6g} (true {truth:.6g}, relative error {abs(value - truth) / abs(truth):.2e})"
        )
    return error


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
