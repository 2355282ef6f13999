"""The ``cupy`` backend's own glue code, run without a GPU through a CuPy test double, and on a
real GPU where CuPy sees one.

With the double the fused CUDA source is compiled as C++ on the host (``tests/cupy_double.py``),
so the argument packing, strides, dtypes and the batch sums CuPy finishes are checked against the
NumPy backend. The ``gpu`` cases run the same checks through real CuPy (bench/gpu_check.sh).
"""

from __future__ import annotations

import numpy as np

import symgrad
from symgrad import ops
from symgrad.models import PointMLP, burgers_terms
from tests import cupy_double

cupy_or_double = cupy_double.cupy_or_double  # the fixture: the double here, real CuPy on a GPU


def _same(outputs, inputs, arrays, reduce=None, rtol=1e-12):
    import cupy

    reference = symgrad.kernel(outputs, inputs, reduce=reduce)(*arrays)
    fused = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    got = [cupy.asnumpy(g) for g in fused(*[cupy.asarray(a) for a in arrays])]
    assert fused.backend == "cupy" and "__global__" in fused.source
    for g, r in zip(got, reference):
        assert g.shape == r.shape and g.dtype == r.dtype
        np.testing.assert_allclose(g, r, rtol=rtol, atol=1e-13)
    return fused


def test_pinn_residual_and_loss_gradient(cupy_or_double, rng):
    net = PointMLP([2, 8, 8, 1], seed=0)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    weights = [p.asnumpy() for p in net.params]
    points = [rng.uniform(-1, 1, 300), rng.uniform(0, 1, 300)]
    _same([terms[k] for k in ("u", "ut", "ux", "uxx", "r")], [x, t, *net.params], [*points, *weights])
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    _same(
        [terms["r"] ** 2, *grads],
        [x, t, *net.params],
        [*points, *weights],
        reduce=["mean"] * (1 + len(grads)),
    )


def test_structural_ops_bools_and_broadcast_inputs(cupy_or_double, rng):
    v = symgrad.placeholder("v", (3,))
    w = symgrad.placeholder("w", (3, 2))
    odd = ops.stack([v[::-1], ops.relu(v) * 2.0, ops.broadcast_to(v[0], (3,))]).sum(0)
    product = ops.matmul(ops.tanh(v), w)
    arrays = [rng.normal(size=(4, 5, 3)), rng.normal(size=(3, 2))]  # batch axes on v only; w shared
    fused = _same([odd, product, v > 0, ops.sign(v)], [v, w], arrays)
    if hasattr(fused._fn._kernel, "launches"):  # the double counts its launches
        assert fused._fn._kernel.launches == 1


def test_float32_graphs_compute_in_float(cupy_or_double, rng):
    x = symgrad.placeholder("x", (2,), dtype=symgrad.float32)
    out = ops.grad(lambda x: (ops.sin(x) * x).sum())(x)
    points = rng.normal(size=(50, 2)).astype(np.float32)
    fused = _same([out], [x], [points], rtol=1e-5)
    assert "computes in float" in fused.source


def test_special_functions_of_symgrads_own_compile_for_the_device(cupy_or_double, rng):
    """polygamma is a C function of symgrad's own: the CUDA source carries it as a device function."""
    x = symgrad.placeholder("x")
    points = np.concatenate([rng.uniform(-5.5, 9, 200), [0.0, -2.0, 0.5]])
    _same([ops.polygamma(0, x), ops.polygamma(3, x), ops.lgamma(x)], [x], [points], rtol=1e-11)
