"""Calls of a ``cupy`` kernel that repeat their shapes replay a CUDA graph
(``lowering/cupy/graphs.py``): each call's results are its own inputs' (never the recorded
ones, never overwritten by the next call), every shape has its graph, and a program that moves
host data, or a graph that differs from a plain run, is never replayed.

Run through the CuPy test double here (its ``record`` runs the program again for each launch),
and through real CuPy and CUDA graphs where a GPU is (bench/gpu_check.sh).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from lowering.cupy import functions as cuda
from lowering.cupy import graphs
from lowering.cupy.runtime import CupyRuntime
from symgrad.models import PointMLP, burgers_terms
from tests import cupy_double

cupy_or_double = cupy_double.cupy_or_double  # the fixture: the double here, real CuPy on a GPU


def _burgers(widths):
    net = PointMLP(widths, seed=0)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    outputs = [terms["u"], terms["uxx"], terms["r"], terms["r"] ** 2, *grads]
    reduce = [None] * 3 + ["mean"] * (1 + len(grads))
    return outputs, [x, t, *net.params], [p.asnumpy() for p in net.params], reduce


def _host(values) -> list[np.ndarray]:
    import cupy

    return [cupy.asnumpy(v) for v in values]


def _called_wide_kernel(rng, calls: int):
    """A loss-gradient kernel of a wide network (the array program), called ``calls`` times on 200
    new points, each result checked against the NumPy backend."""
    import cupy

    outputs, inputs, weights, reduce = _burgers([2, 64, 64, 1])
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    plain = symgrad.kernel(outputs, inputs, reduce=reduce)
    for _ in range(calls):
        arrays = [rng.uniform(-1, 1, 200), rng.uniform(0, 1, 200), *weights]
        _close(_host(kernel(*[cupy.asarray(a) for a in arrays])), plain(*arrays))
    return kernel


def _close(got, want) -> None:
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13 * (np.max(np.abs(w)) + 1e-300))


@pytest.mark.parametrize("widths", [[2, 8, 8, 1], [2, 64, 64, 1]], ids=["fused", "arrays"])
def test_repeated_calls_replay_one_graph_that_reads_each_calls_inputs(
    cupy_or_double, monkeypatch, rng, widths
):
    import cupy

    monkeypatch.setattr(graphs, "faster", lambda graph, plain: True)  # kept however fast it is here
    outputs, inputs, weights, reduce = _burgers(widths)
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    function = kernel._fn
    assert isinstance(function, cuda.ArrayCudaFunction) == (widths[1] == 64)
    plain = symgrad.kernel(outputs, inputs, reduce=reduce)
    kept = []
    for _ in range(5):
        arrays = [rng.uniform(-1, 1, 300), rng.uniform(0, 1, 300)]
        arrays += [w * rng.uniform(0.5, 1.5) for w in weights]  # the weights change too
        got = kernel(*[cupy.asarray(a) for a in arrays])
        want = plain(*arrays)
        _close(_host(got), want)
        kept.append((got, want))
    assert function.graphs.refused is None and len(function.graphs.graphs) == 1
    for got, want in kept:  # no call's results were overwritten by a later replay
        _close(_host(got), want)


def test_each_shape_has_its_graph_and_big_batches_run_plain(cupy_or_double, monkeypatch, rng):
    import cupy

    monkeypatch.setattr(graphs, "GRAPH_POINTS", 400)
    monkeypatch.setattr(graphs, "faster", lambda graph, plain: True)
    outputs, inputs, weights, reduce = _burgers([2, 64, 64, 1])
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    plain = symgrad.kernel(outputs, inputs, reduce=reduce)
    for n in [100, 300, 500, 100, 300, 500, 300, 100]:
        arrays = [rng.uniform(-1, 1, n), rng.uniform(0, 1, n), *weights]
        _close(_host(kernel(*[cupy.asarray(a) for a in arrays])), plain(*arrays))
    recorded = kernel._fn.graphs.graphs
    assert sorted(key[1] for key in recorded) == [(100,), (300,)]


def test_a_program_that_moves_host_data_is_never_recorded(cupy_or_double, rng):
    import cupy

    runtime = CupyRuntime(cupy)
    assert graphs.replayable("t1 = rt.matmul(x, W, 1, 2, False, False)\nt2 = np.tanh(t1)", runtime)
    assert not graphs.replayable("t1 = rt.heaviside(x, 0.5)", runtime)  # its h0 comes from the host
    assert not graphs.replayable("t1 = rt.bessel_i(x, 3)", runtime)  # a host sync a term
    assert not graphs.replayable("t1 = rt.gelu(x)", runtime)  # through erf, SciPy's on the host
    assert not graphs.replayable("t1 = rt.no_such_helper(x)", runtime)
    assert not graphs.replayable("t1 = np.asarray(2.0)", runtime)
    outputs, inputs, _weights, reduce = _burgers([2, 64, 64, 1])
    kernel = symgrad.kernel(outputs, inputs, backend="cupy", reduce=reduce)
    assert kernel._fn.graphs.replay == graphs.replayable(kernel.source, kernel._fn.graphs.runtime) is True
    cache = graphs.GraphCache(cupy, CupyRuntime(cupy), replay=False)
    x = cupy.asarray(rng.normal(size=(10,)))
    for _ in range(3):
        np.testing.assert_array_equal(
            cupy.asnumpy(cache(lambda a: (a + 1,), [x], (10,))[0]), cupy.asnumpy(x) + 1
        )
    assert not cache.graphs and cache.refused is None


def test_a_recording_refuses_host_values_and_leaves_the_kernel_plain(cupy_or_double, rng):
    import cupy

    runtime = CupyRuntime(cupy)
    runtime.recording = True
    with pytest.raises(RuntimeError, match="host value"):
        runtime.asarray(1.5)
    assert float(runtime.scalar(3.0, "float64")) == 3.0  # constants are filled on the GPU
    runtime.recording = False

    cache = graphs.GraphCache(cupy, runtime, replay=True)
    x = cupy.asarray(rng.normal(size=(10,)))
    calls = [cache(lambda a: (a * runtime.asarray(2.0),), [x], (10,))[0] for _ in range(3)]
    assert cache.refused is not None and "host value" in cache.refused and not cache.graphs
    for got in calls:
        np.testing.assert_array_equal(cupy.asnumpy(got), 2 * cupy.asnumpy(x))


def test_a_graph_that_differs_from_a_plain_run_is_refused(cupy_or_double, monkeypatch, rng):

    real_record = graphs.record

    def wrong(cupy, fn, values, runtime):
        recorded = real_record(cupy, fn, values, runtime)
        launch = recorded.launch

        def zeroed() -> None:
            launch()
            recorded.outputs[0][...] = 0

        recorded.launch = zeroed
        return recorded

    monkeypatch.setattr(graphs, "record", wrong)
    kernel = _called_wide_kernel(rng, 3)
    assert "differs" in kernel._fn.graphs.refused and not kernel._fn.graphs.graphs


def test_a_graph_slower_than_the_plain_call_is_not_kept(cupy_or_double, monkeypatch, rng):

    timed = []
    monkeypatch.setattr(graphs, "faster", lambda graph, plain: timed.append((graph, plain)) or False)
    cache = _called_wide_kernel(rng, 4)._fn.graphs
    assert len(timed) == 1 and all(seconds > 0 for seconds in timed[0])  # timed once, not again
    assert (
        not cache.graphs and cache.refused is None and "replayed in" in cache.plain[next(iter(cache.plain))]
    )


def test_constants_are_new_arrays_for_the_caller(cupy_or_double):
    import cupy

    runtime = CupyRuntime(cupy)
    first = runtime.scalar(-0.0, "float64")
    first[...] = 7.0  # the caller owns what it was given
    again = runtime.scalar(-0.0, "float64")
    assert float(again) == 0.0 and np.signbit(cupy.asnumpy(again))
    assert not np.signbit(cupy.asnumpy(runtime.scalar(0.0, "float64")))


def _operand(rng, shape, order: str, dtype):
    """A random operand of ``shape``: C-contiguous, F-contiguous (a transposed view), a broadcast
    view, or a strided slice."""
    import cupy

    if order == "F" and len(shape) == 2:
        return cupy.asarray(rng.normal(size=shape[::-1]).astype(dtype)).T
    if order == "broadcast":
        return cupy.broadcast_to(cupy.asarray(rng.normal(size=shape[-1:]).astype(dtype)), shape)
    if order == "strided":
        return cupy.asarray(rng.normal(size=(*shape[:-1], 2 * shape[-1])).astype(dtype))[..., ::2]
    return cupy.asarray(rng.normal(size=shape).astype(dtype))


def test_recorded_products_equal_numpys_for_every_layout(cupy_or_double, rng):
    """The direct cuBLAS call (the double: cuBLAS's column-major reading of the same memory) for
    row and column vectors, transposed and broadcast operands, empty and one-wide shapes."""
    import cupy

    from lowering.cupy import gemm

    cases = 0
    for dtype, tolerance in ((np.float64, 1e-12), (np.float32, 1e-5)):
        for m, k, n in [(5, 3, 4), (1, 7, 1), (6, 1, 2), (0, 3, 2), (4, 0, 3), (33, 17, 9)]:
            for a_order in ("C", "F", "broadcast", "strided"):
                for b_order in ("C", "F", "strided"):
                    a, b = _operand(rng, (m, k), a_order, dtype), _operand(rng, (k, n), b_order, dtype)
                    for x, y in ((a, b), (a[0] if m else a, b), (a, b[:, 0] if n else b)):
                        want = cupy.asnumpy(x).astype(np.float64) @ cupy.asnumpy(y).astype(np.float64)
                        got = cupy.asnumpy(gemm.product(cupy, x, y))
                        assert got.shape == want.shape and got.dtype == dtype
                        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * (k + 1))
                        cases += 1
    assert cases == 2 * 6 * 4 * 3 * 3
    with pytest.raises(NotImplementedError, match="shapes"):
        gemm.product(cupy, cupy.ones((2, 3, 4)), cupy.ones((4, 2)))
    with pytest.raises(NotImplementedError, match="int64"):
        gemm.product(cupy, cupy.ones((2, 3), dtype=np.int64), cupy.ones((3, 2), dtype=np.int64))


def test_graphs_hold_at_most_their_share_of_gpu_memory_until_freed(cupy_or_double, monkeypatch, rng):
    """One graph may hold GRAPH_MEMORY of the GPU, all together GRAPHS_MEMORY; a freed kernel's
    graphs give their share back."""
    import gc

    import cupy

    monkeypatch.setattr(graphs, "faster", lambda graph, plain: True)
    total = cupy.cuda.Device().mem_info[1]
    share = total // 20  # under one graph's 1/16
    real_record = graphs.record

    def weighed(*args):
        recorded = real_record(*args)
        recorded.nbytes = share
        return recorded

    monkeypatch.setattr(graphs, "record", weighed)
    gc.collect()
    monkeypatch.setattr(graphs, "GRAPHS_MEMORY", (graphs._held[0] + 3.5 * share) / total)
    kernels = [_called_wide_kernel(rng, 2) for _ in range(4)]
    assert [len(k._fn.graphs.graphs) for k in kernels] == [1, 1, 1, 0]
    assert "would hold" in next(iter(kernels[3]._fn.graphs.plain.values()))
    del kernels[0]
    gc.collect()
    assert len(_called_wide_kernel(rng, 2)._fn.graphs.graphs) == 1  # its share was given back
    monkeypatch.setattr(graphs, "GRAPH_MEMORY", 1 / 40)  # now one graph's share is too much
    assert not _called_wide_kernel(rng, 2)._fn.graphs.graphs
