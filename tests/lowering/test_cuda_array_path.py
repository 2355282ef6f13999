"""The ``cupy`` backend's choice for wide layers: the printed array program over CuPy (each product
one cuBLAS product over the batch), in chunks of GPU memory, equal to the fused per-point kernel.

Run through the CuPy test double here (NumPy arrays; the fused source compiled by g++), and
through real CuPy where a GPU is (bench/gpu_check.sh).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from lowering.cupy import functions as cuda
from symgrad.models import PointMLP, burgers_terms
from tests import cupy_double
from tests.cupy_double import Device

cupy_or_double = cupy_double.cupy_or_double  # the fixture: the double here, real CuPy on a GPU


def _burgers(widths, dtype=np.float64):
    net = PointMLP(widths, seed=0, dtype=dtype)
    x, t = symgrad.placeholder("x", dtype=dtype), symgrad.placeholder("t", dtype=dtype)
    terms = burgers_terms(net, x, t)
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    outputs = [terms["u"], terms["ux"], terms["uxx"], terms["r"], terms["r"] ** 2, *grads]
    reduce = [None] * 4 + ["mean"] * (1 + len(grads))
    return outputs, [x, t, *net.params], [p.asnumpy() for p in net.params], reduce


def _run(kernel, arrays):
    import cupy

    return [cupy.asnumpy(v) for v in kernel(*[cupy.asarray(a) for a in arrays])]


@pytest.mark.parametrize("widths", [[2, 64, 64, 1], [2, 80, 80, 80, 1]])
def test_wide_layers_run_as_arrays_and_equal_the_fused_kernel(cupy_or_double, monkeypatch, rng, widths):
    outputs, inputs, weights, reduce = _burgers(widths)
    points = [rng.uniform(-1, 1, 200), rng.uniform(0, 1, 200)]
    wide = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    assert isinstance(wide._fn, cuda.ArrayCudaFunction) and "__global__" not in wide.source
    monkeypatch.setattr(cuda, "ARRAY_ELEMENTS", 10**9)  # the same graph as one fused kernel
    fused = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    assert isinstance(fused._fn, cuda.FusedCudaFunction) and "__global__" in fused.source
    reference = symgrad.kernel(outputs, inputs, reduce=reduce)(*points, *weights)
    for got_wide, got_fused, want in zip(
        _run(wide, [*points, *weights]), _run(fused, [*points, *weights]), reference
    ):
        assert got_wide.shape == got_fused.shape == want.shape and got_wide.dtype == want.dtype
        scale = np.max(np.abs(want)) + 1e-300
        assert np.max(np.abs(got_wide - got_fused)) <= 1e-13 * scale
        assert np.max(np.abs(got_wide - want)) <= 1e-13 * scale


def test_narrow_layers_and_batched_matrices_stay_one_fused_kernel(cupy_or_double):
    outputs, inputs, _weights, reduce = _burgers([2, 16, 16, 1])
    narrow = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    assert isinstance(narrow._fn, cuda.FusedCudaFunction) and "__global__" in narrow.source
    v, m = symgrad.placeholder("v", (80,)), symgrad.placeholder("m", (80, 80))  # m varies by point
    product = symgrad.kernel([symgrad.ops.matmul(v, m)], [v, m], backend="cupy")
    assert isinstance(product._fn, cuda.FusedCudaFunction)


@pytest.mark.parametrize("points", [50, 150])
def test_a_narrow_network_on_many_points_runs_as_arrays(cupy_or_double, monkeypatch, rng, points):
    monkeypatch.setattr(cuda, "ARRAY_POINTS", 100)
    outputs, inputs, weights, reduce = _burgers([2, 16, 16, 1])
    arrays = [rng.uniform(-1, 1, points), rng.uniform(0, 1, points), *weights]
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    used = []
    program = kernel._fn.arrays.function
    kernel._fn.arrays.function = lambda *a: used.append(a[-1]) or program(*a)
    got = _run(kernel, arrays)
    assert used == ([(points,)] if points >= 100 else [])
    for g, want in zip(got, symgrad.kernel(outputs, inputs, reduce=reduce)(*arrays)):
        assert g.shape == want.shape
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-13 * np.max(np.abs(want)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_batches_past_the_gpu_memory_run_in_chunks(cupy_or_double, monkeypatch, rng, dtype):
    outputs, inputs, weights, reduce = _burgers([2, 64, 64, 1], dtype)
    points = [rng.uniform(-1, 1, 301).astype(dtype), rng.uniform(0, 1, 301).astype(dtype)]
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    reference = symgrad.kernel(outputs, inputs, reduce=reduce)(*points, *weights)
    if cupy_or_double.cuda.Device is Device:  # the double: room for 70 points, so five chunks
        monkeypatch.setattr(Device, "free", 4 * kernel._fn.point_bytes * 70)
    calls = []
    program = kernel._fn.function
    kernel._fn.function = lambda *a: calls.append(a[-1]) or program(*a)
    got = _run(kernel, [*points, *weights])
    if cupy_or_double.cuda.Device is Device:
        assert calls == [(70,)] * 4 + [(21,)]
    tolerance = 1e-12 if dtype == np.float64 else 2e-5
    for g, want in zip(got, reference):
        assert g.shape == want.shape and g.dtype == want.dtype
        np.testing.assert_allclose(g, want, rtol=tolerance, atol=tolerance * np.max(np.abs(want)))


def test_a_big_batch_handed_to_the_array_program_uses_its_own_constants(cupy_or_double, monkeypatch, rng):
    """The fused kernel's program has no constants; the array program it hands a big batch to reads
    its array constants from its own list (it once read the fused program's empty one)."""
    monkeypatch.setattr(cuda, "ARRAY_POINTS", 10)
    v = symgrad.placeholder("v", (3,))
    scale = np.array([1.0, 2.0, 3.0])
    kernel = symgrad.kernel([symgrad.ops.sin(v) * symgrad.Tensor(scale)], [v], backend="cupy")
    assert isinstance(kernel._fn, cuda.FusedCudaFunction) and len(kernel._fn.arrays.consts) == 1
    for points in (5, 20):  # the fused kernel, then the array program
        x = rng.normal(size=(points, 3))
        (got,) = _run(kernel, [x])
        np.testing.assert_allclose(got, np.sin(x) * scale, rtol=1e-13, atol=1e-15)


def test_the_shared_printer_keeps_no_program_state(cupy_or_double):
    """The backend's one CupyPrinter prints every CuPy program (on any thread that builds a kernel):
    a program's runs and consumers live on a copy, so the shared printer is left as it was."""
    from lowering.backends import BACKENDS

    printer = BACKENDS["cupy"].printer
    before = dict(vars(printer))
    outputs, inputs, _weights, reduce = _burgers([2, 64, 64, 1])
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    assert "rt.fused(" in kernel.source and vars(printer) == before


def test_polygamma_in_a_wide_network_runs_on_the_array_path(cupy_or_double, rng):
    """polygamma has no CUDA spelling to fuse, so the array program calls ``rt.polygamma``: on CuPy
    by cupyx.scipy.special (SciPy's would turn CuPy arrays into NumPy ones, which CuPy refuses)."""
    net = PointMLP([2, 64, 64, 1], seed=0)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    u = net(x, t)
    outputs = [symgrad.ops.polygamma(0, 2.0 + u * u), symgrad.ops.polygamma(2, 1.5 + symgrad.ops.tanh(u))]
    inputs = [x, t, *net.params]
    kernel = symgrad.kernel(outputs, inputs, backend="cupy")
    assert isinstance(kernel._fn, cuda.ArrayCudaFunction) and "rt.polygamma" in kernel.source
    arrays = [rng.uniform(-1, 1, 40), rng.uniform(0, 1, 40), *[p.asnumpy() for p in net.params]]
    for got, want in zip(_run(kernel, arrays), symgrad.kernel(outputs, inputs)(*arrays)):
        np.testing.assert_allclose(got, want, rtol=1e-11)
