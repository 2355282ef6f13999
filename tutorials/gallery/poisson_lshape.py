"""Poisson_Lshape: -lap u = 1 on the L-shaped polygon [-1, 1]^2 less (0, 1]^2, u = 0 on its boundary.

DeepXDE's examples/pinn_forward/Poisson_Lshape.py written with symgrad.pinn: the example's network
([2, 50, 50, 50, 50, 1], tanh, Glorot uniform), its 1200 points inside and 120 on the boundary
(the equation is evaluated at all of them, the condition on the boundary ones), trained by ``solve``.
Departures from the example: DeepXDE has no exact solution (it plots against a stored FEM field);
the reference here is a 5-point finite-difference solve on a 513 x 513 grid with Richardson
extrapolation from 257 x 257 (about 1e-4 relative L2 from the exact field, by the two grids'
difference), on the 65 x 65 grid's nodes in the L-shape; scrambled Halton points (DeepXDE:
Hammersley).

    python tutorials/gallery/poisson_lshape.py [seconds]   # default 60
"""

from __future__ import annotations

import functools
import sys

import numpy as np
import scipy.sparse as sparse
import scipy.sparse.linalg as sparse_linalg

from symgrad.pinn import MLP, Polygon, ResidualLoss, dirichlet, laplacian, predict, solve

LSHAPE = [[0, 0], [1, 0], [1, -1], [-1, -1], [-1, 1], [0, 1]]


def finite_differences(cells):
    """The 5-point finite-difference solution on the (cells + 1)^2 grid of [-1, 1]^2 (zero outside)."""
    h = 2.0 / cells
    g = np.linspace(-1, 1, cells + 1)
    X, Y = np.meshgrid(g, g, indexing="ij")
    eps = 1e-12
    inside = (np.abs(X) < 1 - eps) & (np.abs(Y) < 1 - eps) & ~((X > -eps) & (Y > -eps))
    index = -np.ones(X.shape, int)
    index[inside] = np.arange(inside.sum())
    rows_i, cols_j = np.nonzero(inside)
    rows, cols, vals = [index[rows_i, cols_j]], [index[rows_i, cols_j]], [np.full(len(rows_i), 4.0)]
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        k = index[rows_i + di, cols_j + dj]
        ok = k >= 0
        rows.append(index[rows_i, cols_j][ok])
        cols.append(k[ok])
        vals.append(-np.ones(ok.sum()))
    A = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))))
    u = np.zeros(X.shape)
    u[inside] = sparse_linalg.spsolve(A, np.full(len(rows_i), h * h))
    return u


@functools.lru_cache(maxsize=1)
def reference():
    """Test points (the 65 x 65 grid's nodes in the L-shape, boundary included), (n, 2), and the
    reference there, (n, 1): h = 1/256 finite differences, Richardson-extrapolated with h = 1/128."""
    fine, coarse = finite_differences(512)[::8, ::8], finite_differences(256)[::4, ::4]
    g = np.linspace(-1, 1, 65)
    X, Y = np.meshgrid(g, g, indexing="ij")
    keep = ~((X > 1e-12) & (Y > 1e-12))
    return np.stack([X[keep], Y[keep]], 1), (fine + (fine - coarse) / 3)[keep][:, None]


def test_points():
    """The reference's points, (n, 2)."""
    return reference()[0]


def exact(X):
    """The reference at the test points X, (n, 1) (known there only)."""
    points, values = reference()
    if X.shape != points.shape or not np.array_equal(X, points):
        raise ValueError("the L-shape's reference is known only at its test points")
    return values


def build(seed=0):
    """(terms, params, u, unknowns): the loss terms ((loss, points) pairs; the equation's with its
    domain, where ``solve`` draws new points by residual), the weights to train,
    the solution as a function of (x, y), and the unknowns' values (None: a forward problem)."""
    shape = Polygon(LSHAPE)
    net = MLP([2, 50, 50, 50, 50, 1], "tanh", "glorot_uniform", seed=seed)
    walls = shape.boundary(120, "halton", seed)
    pde = ResidualLoss(lambda x, y: -laplacian(net, (0, 1))(x, y) - 1, ("x", "y"), net, name="pde")
    terms = [
        (pde, np.hstack([shape.interior(1200, "halton", seed), walls]), shape),
        (dirichlet(net, shape, 0.0).loss(net), walls),
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
