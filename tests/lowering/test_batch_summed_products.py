"""Batch sums of per-point matrix products (a layer's tangents' weight gradient in a forward
Laplacian is (H, d) @ (d, H) at every point): every inner size, transpose and backend against
NumPy's einsum, and no H x H matrix per point in the C program."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lowering
import symgrad
from lowering import batch_sums
from symgrad import ops
from symgrad.pinn import MLP, ResidualLoss, laplacian

BACKENDS = ["numpy"] + (["c"] if "c" in lowering.available_backends() else [])


def operand(rows: int, columns: int, transposed: bool) -> tuple[int, int]:
    """The stored shape of an operand whose op(.) is rows x columns."""
    return (columns, rows) if transposed else (rows, columns)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(1, 9),
    k=st.sampled_from([2, 3, batch_sums.SPLIT_INNER, batch_sums.SPLIT_INNER + 1]),
    q=st.integers(1, 11),
    ta=st.booleans(),
    tb=st.booleans(),
    points=st.sampled_from([1, 13, 40]),
    tiled=st.booleans(),
    shared=st.sampled_from(["neither", "a", "b"]),
    seed=st.integers(0, 2**16),
)
def test_batch_sum_of_per_point_products_equals_einsum(backend, m, k, q, ta, tb, points, tiled, shared, seed):
    """sum over points of op(a) @ op(b) - 2 tanh(op(a) @ op(b)) and of op(a) @ op(b), a and b per
    point or one of them a Parameter every point shares; ``tiled`` adds a 64 x 64 shared layer so
    that the C program runs in tiles."""
    rng = np.random.default_rng(seed)
    shapes = {"a": operand(m, k, ta), "b": operand(k, q, tb)}
    # the kernel's arguments, their values, and each value at every point
    args: list = []
    given: list = []
    at_points: list = []
    for name, shape in shapes.items():
        if name == shared:
            args.append(symgrad.Parameter(symgrad.Tensor(rng.normal(size=shape)), name=name))
            given.append(args[-1].asnumpy())
        else:
            args.append(symgrad.placeholder(name, shape))
            given.append(rng.normal(size=(points, *shape)))
        at_points.append(np.broadcast_to(given[-1], (points, *shape)))
    product = ops.MatMul(transpose_a=ta, transpose_b=tb)(*args)
    outputs = [product - 2.0 * ops.tanh(product), product]
    if tiled:
        x = symgrad.placeholder("x", (64,))
        w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(64, 64))), name="w")
        outputs.append(ops.matmul(x, w))
        args += [x, w]
        given += [rng.normal(size=(points, 64)), w.asnumpy()]
    got = symgrad.kernel(outputs, args, backend=backend, reduce=["sum", "sum"] + [None] * tiled)(*given)
    pa = np.swapaxes(at_points[0], 1, 2) if ta else at_points[0]
    pb = np.swapaxes(at_points[1], 1, 2) if tb else at_points[1]
    each = np.einsum("pml,plq->pmq", pa, pb)
    np.testing.assert_allclose(got[0], (each - 2 * np.tanh(each)).sum(0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1], each.sum(0), rtol=1e-12, atol=1e-12)


def test_a_product_of_small_inner_size_is_summed_as_outer_products():
    a, b = symgrad.placeholder("a", (5, 3)), symgrad.placeholder("b", (3, 4))
    summed = batch_sums.plan(ops.matmul(a, b)._node)
    assert isinstance(summed, batch_sums.SignedSum) and len(summed.terms) == 3
    assert all(isinstance(term, batch_sums.OuterSum) for _, term in summed.terms)


@pytest.mark.skipif("c" not in BACKENDS, reason="no C compiler here (gcc, clang or $CC)")
def test_a_wide_laplacian_loss_gradient_holds_no_layer_sized_matrix_per_point():
    """The loss gradient of a Laplacian residual on [2, 80, 80, 1]: its program multiplies no two
    per-point matrices (each product would be 80 x 80 a point), and equals NumPy's."""
    net = MLP([2, 80, 80, 1], "sin", seed=3)

    def residual(x, y):
        return -laplacian(net, (0, 1))(x, y) - net(x, y)

    c, numpy = (ResidualLoss(residual, ("x", "y"), net, backend=b) for b in ("c", "numpy"))
    assert c.kernel._fn.point.tiled
    assert "lanes_matmul_pp(" not in c.kernel.source
    points = np.random.default_rng(0).uniform(-1, 1, (2, 37))
    (loss_c, grads_c), (loss_n, grads_n) = c(points), numpy(points)
    np.testing.assert_allclose(loss_c, loss_n, rtol=1e-12)
    for got, want in zip(grads_c, grads_n):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)
