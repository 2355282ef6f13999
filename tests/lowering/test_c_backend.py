"""The compiled C backend against the NumPy reference: every op shape, reductions, dtypes, caching."""

from __future__ import annotations

import concurrent.futures
import re
import subprocess

import numpy as np
import pytest

import lowering
import lowering.c
import lowering.c.walk
import symgrad
from lowering.c import build as c_backend
from symgrad import ops
from symgrad.errors import UnboundError
from symgrad.models import PointMLP, burgers_terms

pytestmark = pytest.mark.skipif(
    "c" not in lowering.available_backends(), reason="no C compiler here (gcc, clang or $CC)"
)


def both(outputs, args, values, reduce=None, chunk=None):
    """Results of the NumPy and C kernels for the same graph and data."""
    results = []
    for backend in ("numpy", "c"):
        kernel = symgrad.kernel(outputs, args, backend=backend, reduce=reduce)
        if chunk:
            kernel.chunk = chunk
        results.append(kernel(*values))
    return results


def assert_same(outputs, args, values, rtol=1e-13, **kwargs):
    reference, got = both(outputs, args, values, **kwargs)
    for r, g in zip(reference, got):
        assert g.shape == r.shape and g.dtype == r.dtype
        np.testing.assert_allclose(g, r, rtol=rtol, atol=rtol)


MATMULS = [  # (shape of a, shape of b, transpose_a, transpose_b)
    ((3,), (3,), False, False), ((3,), (3, 2), False, False), ((4, 3), (3,), False, False),
    ((4, 3), (3, 2), False, False), ((3, 4), (3, 2), True, False), ((4, 3), (2, 3), False, True),
    ((3, 4), (2, 3), True, True),
    # register blocks (4 x 8) with leftover rows, leftover columns, both, and a transposed a
    ((9, 7), (7, 16), False, False), ((8, 5), (5, 17), False, False), ((10, 7), (7, 13), False, False),
    ((7, 10), (7, 13), True, False),
]  # fmt: skip


@pytest.mark.parametrize(("shape_a", "shape_b", "ta", "tb"), MATMULS)
def test_matmul_in_every_rank_and_transpose(shape_a, shape_b, ta, tb, rng):
    a, b = symgrad.placeholder("a", shape_a), symgrad.placeholder("b", shape_b)
    product = ops.MatMul(transpose_a=ta, transpose_b=tb)(a, b)
    outputs = [product, ops.tanh(product) * 2.0]
    assert_same(outputs, [a, b], [rng.normal(size=(5,) + shape_a), rng.normal(size=shape_b)])
    assert_same(outputs, [a, b], [rng.normal(size=shape_a), rng.normal(size=(5,) + shape_b)])


@pytest.mark.parametrize(("shape_a", "shape_b", "ta", "tb"), MATMULS)
@pytest.mark.parametrize("shared", ["a", "b"])
def test_blocked_products_with_a_shared_operand(shape_a, shape_b, ta, tb, shared, rng):
    """Points run in blocks of lanes; a Parameter operand is one scalar per term of every
    point's sum. 13 points: one whole block of 8 and a part block whose last point repeats."""
    weight = symgrad.Parameter(
        symgrad.Tensor(rng.normal(size=shape_a if shared == "a" else shape_b)), name="w"
    )
    x = symgrad.placeholder("x", shape_b if shared == "a" else shape_a)
    a, b = (weight, x) if shared == "a" else (x, weight)
    product = ops.MatMul(transpose_a=ta, transpose_b=tb)(a, b)
    weight_only = ops.tanh(weight) * weight  # the same for every point: computed once per thread
    outputs = [product, ops.sin(product) + ops.ReduceSum()(weight_only), weight_only, product]
    values = [rng.normal(size=(13,) + x.shape), weight.asnumpy()]
    kernel = symgrad.kernel(outputs, [x, weight], backend="c")
    assert kernel._fn.point.lanes == 8
    assert_same(outputs, [x, weight], values, reduce=[None, None, None, "sum"])


def test_block_products_of_one_element_constants(rng):
    """A one-element constant is a literal in C, passed to the block functions as an array."""
    x = symgrad.placeholder("x", (1,))
    w, v = symgrad.Tensor(np.array([[2.5]])), symgrad.Tensor(np.array([[-1.5]]))
    y = ops.matmul(x, w) + ops.matmul(v, x)
    gradient = ops.grad(lambda x: (ops.matmul(x, w) ** 2).sum())(x)
    kernel = symgrad.kernel([y, gradient], [x], backend="c", reduce=[None, "sum"])
    assert "(const double[]){2.5}" in kernel.source
    assert_same([y, gradient], [x], [rng.normal(size=(13, 1))], reduce=[None, "sum"])


def test_batch_sums_of_differences_of_outer_products(rng):
    """g1 - g2 and -g1 of two weight gradients are signed sums of outer products over the batch."""
    x = symgrad.placeholder("x", (3,))
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(3, 20))), name="w")  # 16 + 4 columns
    g1 = ops.grad(lambda x, w: ops.tanh(ops.matmul(x, w)).sum(), 1)(x, w)
    g2 = ops.grad(lambda x, w: ops.sin(ops.matmul(x, w)).sum(), 1)(x, w)
    kernel = symgrad.kernel([g1 - g2, -g1], [x, w], backend="c", reduce=["sum", "mean"])
    assert "nb, -1); }" in kernel.source
    assert_same([g1 - g2, -g1], [x, w], [rng.normal(size=(13, 3)), w.asnumpy()], reduce=["sum", "mean"])


# (rows, columns) of a weight gradient: both column runs of the outer-sum tiles (4 vectors over 2
# rows, 1 vector over 8 rows), rows left over after each, and columns fewer than a vector
OUTER_SUM_SHAPES = [(9, 31), (2, 20), (20, 1), (5, 12), (3, 4), (17, 3)]


@pytest.mark.parametrize(("rows", "columns"), OUTER_SUM_SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])  # vectors of 4 and of 8 values
def test_batch_summed_outer_products_of_every_tile_shape(rows, columns, dtype, rng):
    """13 points: one whole block of 8, a part block; the sums are the weight gradient's."""
    x = symgrad.placeholder("x", (rows,), dtype=dtype)
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(rows, columns)).astype(dtype)), name="w")
    gradient = ops.grad(lambda x, w: ops.tanh(ops.matmul(x, w)).sum(), 1)(x, w)
    points = rng.normal(size=(13, rows)).astype(dtype)
    (got,) = symgrad.kernel([gradient], [x, w], backend="c", reduce="sum")(points, w.asnumpy())
    assert got.dtype == dtype
    wide = points.astype(np.float64)
    derivative = 1 - np.tanh(wide @ w.asnumpy().astype(np.float64)) ** 2
    tolerance = 1e-13 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(got, wide.T @ derivative, rtol=tolerance, atol=tolerance)


def test_repeated_calls_reuse_their_layout_and_see_new_values(rng):
    """A call signature's layout is worked out once; each call still reads the values it is
    given, and returns arrays that later calls do not overwrite."""
    x, t = symgrad.placeholder("x", (2,)), symgrad.placeholder("t")
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(2, 5))), name="w")
    b = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(5,))), name="b")
    u = lambda x, t, w, b: ops.tanh(ops.matmul(x, w) + b * t).sum()  # noqa: E731
    outputs = [u(x, t, w, b), *ops.grad(u, (2, 3))(x, t, w, b), u(x, t, w, b)]
    reduce = ["mean", "sum", "sum", None]
    kernel = symgrad.kernel(outputs, [x, t, w, b], backend="c", reduce=reduce)
    reference = symgrad.kernel(outputs, [x, t, w, b], reduce=reduce)
    points, times = rng.normal(size=(21, 2)), rng.normal(size=21)
    first_weights = [rng.normal(size=(2, 5)), rng.normal(size=5)]
    first = kernel(points, times, *first_weights)
    kept = [a.copy() for a in first]
    calls = [
        (points, times, rng.normal(size=(2, 5)), rng.normal(size=5)),  # new weights, same signature
        (points, times, *first_weights),
        (points[::2], times[::2], *first_weights),  # strided views
        (points.astype(np.float32), np.float32(0.5), *first_weights),  # a shared time, float32 points
    ]
    for values in calls:
        for got, want in zip(kernel(*values), reference(*values)):
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    for before, now in zip(kept, first):
        assert np.array_equal(before, now)
    assert len(kernel._fn._plans) == 3


def _tanh_inputs(rng) -> np.ndarray:
    specials = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-310, -1e-310, 5e-324, 19.0, 20.0, 21.0, -710.0]
    tiny = np.ldexp(rng.uniform(-1, 1, 3000), -rng.integers(0, 60, 3000))
    return np.concatenate([rng.uniform(-1, 1, 3000), rng.uniform(-25, 25, 3000), tiny, specials])


def _assert_tanh(got: np.ndarray, x: np.ndarray) -> None:
    reference = np.tanh(x)
    finite = np.isfinite(x)
    assert np.all(np.abs(got - reference)[finite] <= 4 * np.spacing(np.abs(reference[finite])))
    assert np.array_equal(np.signbit(got), np.signbit(reference))  # -0.0 stays -0.0
    assert np.array_equal(got[~finite], reference[~finite], equal_nan=True)  # NaN passes, +-inf give +-1


def test_tanh_is_symgrads_own_function_within_4_ulp_of_numpy(rng):
    """C's tanh is sg_tanh (no call inside the loops, so they vectorize), on blocks of points and
    in a point-by-point program (an array too large for blocks); CUDA keeps its own tanh."""
    x = symgrad.placeholder("x")
    values = _tanh_inputs(rng)
    blocked = symgrad.kernel([ops.tanh(x)], [x], backend="c")
    assert "sg_tanh(" in blocked.source and blocked._fn.point.lanes == 8
    _assert_tanh(blocked(values)[0], values)

    wide = symgrad.placeholder("wide", (70_000,))
    per_point = symgrad.kernel([ops.tanh(wide)], [wide], backend="c")
    assert per_point._fn.point.lanes == 1
    padded = np.resize(values, 70_000)
    _assert_tanh(per_point(padded[None, :])[0][0], padded)

    cuda = lowering.c.print_point_program(blocked._outputs, blocked._args, target="cuda").source
    assert "sg_tanh" not in cuda and "tanh(" in cuda


def test_float32_programs_use_the_float_tanh_within_3_ulp(rng):
    """A float program calls sg_tanh's float twin (twice as many values per vector), not the
    double one with conversions: its own roundings show, and it stays within 3 ulp."""
    x = symgrad.placeholder("x", dtype=np.float32)
    specials = np.float32([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 9.0, 9.02, 10.0, 11.0, -90.0])
    tiny = np.ldexp(rng.uniform(-1, 1, 3000), -rng.integers(0, 40, 3000)).astype(np.float32)
    uniform = np.concatenate([rng.uniform(-1, 1, 20_000), rng.uniform(-12, 12, 20_000)]).astype(np.float32)
    values = np.concatenate([uniform, tiny, specials])
    got = symgrad.kernel([ops.tanh(x)], [x], backend="c")(values)[0]
    assert got.dtype == np.float32
    exact = np.tanh(values.astype(np.float64))
    finite = np.isfinite(values)
    ulps = np.abs(got - exact)[finite] / np.spacing(np.abs(exact[finite]).astype(np.float32))
    assert ulps.max() <= 3
    assert np.mean(got[finite] != exact[finite].astype(np.float32)) > 0.01  # not double rounded to float
    assert np.array_equal(np.signbit(got), np.signbit(exact))
    assert np.array_equal(got[~finite], exact[~finite].astype(np.float32), equal_nan=True)


def test_arguments_shared_over_many_points_get_their_own_program(rng):
    """Placeholders are compiled per point; given once for many points, they get a variant
    that shares them (compiled once), and over few points they are broadcast instead."""
    x, w = symgrad.placeholder("x", (3,)), symgrad.placeholder("w", (3, 4))
    outputs = [ops.tanh(ops.matmul(x, w)), ops.grad(lambda x, w: ops.tanh(ops.matmul(x, w)).sum(), 1)(x, w)]
    kernel = symgrad.kernel(outputs, [x, w], backend="c", reduce=[None, "mean"])
    reference = symgrad.kernel(outputs, [x, w], reduce=[None, "mean"])
    few, many, weights = (
        rng.normal(size=(20, 3)),
        rng.normal(size=(c_backend._FEW_POINTS + 3, 3)),
        rng.normal(size=(3, 4)),
    )
    for points in (few, many, many):
        for got, want in zip(kernel(points, weights), reference(points, weights)):
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert sorted(shared for _, shared in kernel._fn._compiled) == [frozenset(), frozenset({1})]


def test_structural_ops_broadcasting_and_constants(rng):
    x = symgrad.placeholder("x", (3, 4))
    col = symgrad.placeholder("col", (3, 1))
    table = symgrad.Tensor(rng.normal(size=(4,)))

    def f(x, col):
        y = ops.sin(x * col + table)  # broadcasting in both directions, an array constant
        picked = ops.stack(
            [y[0, ::-1], y[:, 1].sum() + y[2, :2].sum() * symgrad.Tensor(np.ones(4)), ops.relu(y[1])]
        )
        moved = ops.Transpose()(ops.Reshape()(picked, (4, 3)), (1, 0))
        return ops.ReduceSum(keep_dims=True)(moved * moved, 0) + ops.broadcast_to(col[0], (1, 4))

    grads = ops.grad(lambda x, col: f(x, col).sum(), (0, 1))(x, col)
    assert_same([f(x, col), *grads], [x, col], [rng.normal(size=(7, 3, 4)), rng.normal(size=(7, 3, 1))])


def test_outer_and_inner_broadcasts_and_leading_reductions_read_without_tables(rng):
    x = symgrad.placeholder("x", (3, 4, 5))
    inner, outer = symgrad.placeholder("inner", (4, 5)), symgrad.placeholder("outer", (3, 1, 1))

    def f(x, inner, outer):
        y = ops.sin(x * inner + outer) * outer + ops.exp(inner)
        return ops.ReduceSum()(y, (0,)), ops.ReduceSum()(y * y, (0, 1)), ops.ReduceSum()(y, (1, 2))

    outputs = [*f(x, inner, outer), *ops.grad(lambda *a: f(*a)[1].sum(), (0, 1, 2))(x, inner, outer)]
    source = lowering.c.print_point_program(
        [o._node for o in outputs[:2]], [x._node, inner._node, outer._node]
    ).source
    assert "STATIC int" not in source  # no index tables for these reads and sums
    values = [rng.normal(size=(6, 3, 4, 5)), rng.normal(size=(6, 4, 5)), rng.normal(size=(6, 3, 1, 1))]
    assert_same(outputs, [x, inner, outer], values)


@pytest.mark.parametrize("lanes", [True, False])
def test_elementwise_chains_are_one_loop_with_local_intermediates(lanes, monkeypatch, rng):
    """Consecutive elementwise nodes of one size are printed as one loop, and a value read only
    inside it is a local there. Element 0 of a vector computed in the same loop (y[0]), a
    per-point scalar, a shared vector and an output in mid-chain are still read right."""
    if not lanes:
        monkeypatch.setattr(lowering.c.walk, "_LANES", ())  # point by point
    v, s, w = symgrad.placeholder("v", (5,)), symgrad.placeholder("s"), symgrad.placeholder("w", (5,))
    y = ops.tanh(v * w + s)
    mid = 1 - y * y
    z = ops.exp(mid * y[0]) - ops.Reshape()(y, (5, 1)).reshape((5,)) * 2.0
    outputs, args = [mid, z, *ops.grad(lambda v: (z * mid).sum())(v)], [v, s, w]
    source = lowering.c.print_point_program(
        [o._node for o in outputs[:2]], [a._node for a in args], shared=frozenset({2})
    ).source
    # arrays for y (read as y[0]) and the two outputs; v * w, + s, y * y, exp(...) are locals
    assert len(re.findall(r"double t\d+\[", source)) == 3
    assert any("sg_tanh(" in line and "exp(" in line for line in source.splitlines())  # one loop
    values = [rng.normal(size=(21, 5)), rng.normal(size=21)]
    assert_same(outputs, args, [*values, rng.normal(size=5)])  # w shared by every point
    assert_same(outputs, args, [*values, rng.normal(size=(21, 5))])


def test_comparisons_signs_and_heaviside_keep_their_dtypes(rng):
    x = symgrad.placeholder("x", (4,))
    outputs = [x > 0.1, ops.sign(x), ops.maximum(x, 0.0) + ops.minimum(x, -0.5), ops.abs(x)]
    values = [np.array([[-1.0, 0.0, 0.1, 2.0], [3.0, -0.0, 0.5, -2.0]])]
    reference, got = both(outputs, [x], values)
    for r, g in zip(reference, got):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g, r)


def test_float32_graphs_compute_in_float32(rng):
    x = symgrad.placeholder("x", (3,), dtype=np.float32)
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(3, 3)).astype(np.float32)), name="w")
    f = lambda x: ops.tanh(ops.matmul(x, w)).sum()  # noqa: E731
    kernel = symgrad.kernel([f(x), ops.grad(f)(x)], [x, w], backend="c")
    assert "computes in float" in kernel.source
    points = rng.normal(size=(6, 3)).astype(np.float32)
    value, grad = kernel(points, w.asnumpy())
    ref_value, ref_grad = symgrad.kernel([f(x), ops.grad(f)(x)], [x, w])(points, w.asnumpy())
    assert value.dtype == grad.dtype == np.float32
    np.testing.assert_allclose(value, ref_value, rtol=1e-5)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-5, atol=1e-6)


def test_batch_sums_and_means_over_chunks_equal_numpy(rng):
    """Loss gradients: per-point outer products summed in the loop, chunk by chunk."""
    x = symgrad.placeholder("x", (2,))
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(2, 3))), name="w")
    b = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(3,))), name="b")
    loss = lambda x: (ops.tanh(ops.matmul(x, w) + b) ** 2).sum()  # noqa: E731
    grads = ops.grad(loss, grad_position=None, weights=[w, b])(x)
    outputs = [loss(x), *grads, loss(x)]
    values = [rng.normal(size=(1001, 2)), w.asnumpy(), b.asnumpy()]
    reduce = ["mean", "sum", "sum", None]
    assert_same(outputs, [x, w, b], values, reduce=reduce, chunk=100, rtol=1e-12)


def test_burgers_residual_and_loss_gradient_equal_numpy(rng):
    net = PointMLP([2, 8, 8, 1], seed=3)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    weights = [p.asnumpy() for p in net.params]
    points = [rng.uniform(-1, 1, 500), rng.uniform(0, 1, 500)]
    residual = [terms[k] for k in ("u", "ut", "ux", "uxx", "r")]
    assert_same(residual, [x, t, *net.params], [*points, *weights], rtol=1e-12)
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    reduce = ["mean"] * (1 + len(grads))
    assert_same(
        [terms["r"] ** 2, *grads], [x, t, *net.params], [*points, *weights], reduce=reduce, rtol=1e-12
    )


def test_large_per_point_arrays_live_in_heap_scratch_with_the_same_results(monkeypatch, rng):
    """Past _STACK_BYTES a point's arrays are carved from one malloc per thread (a d = 10^4
    Laplacian's arrays overflowed thread stacks); the threshold is lowered to run it here."""
    monkeypatch.setattr(lowering.c.walk, "_STACK_BYTES", 256)
    net = PointMLP([2, 8, 8, 1], seed=3)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    weights = [p.asnumpy() for p in net.params]
    points = [rng.uniform(-1, 1, 3001), rng.uniform(0, 1, 3001)]  # enough work for every thread
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    outputs, args = [terms["r"], terms["r"] ** 2, *grads], [x, t, *net.params]
    kernel = symgrad.kernel(outputs, args, backend="c", reduce=[None] + ["mean"] * (1 + len(grads)))
    assert "scratch + " in kernel.source and kernel._program.source.count("malloc(") == 1
    assert "kept_scratch((size_t)threads" in kernel._program.source  # kept from call to call
    reference = symgrad.kernel(outputs, args, backend="numpy", reduce=[None] + ["mean"] * (1 + len(grads)))

    def check(points) -> None:
        for got, want in zip(kernel(*points, *weights), reference(*points, *weights)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    # the kept scratch holds the last call's values: sizes that shrink (one thread) and grow again,
    # and calls from several threads at once, each with its own buffer, give the same results
    smaller = [rng.uniform(-1, 1, 7), rng.uniform(0, 1, 7)]
    for each in (points, smaller, points, smaller):
        check(each)
    sets = [[rng.uniform(-1, 1, n), rng.uniform(0, 1, n)] for n in (20000, 7, 15000, 40) * 2]
    wanted = [reference(*each, *weights) for each in sets]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:  # the calls only: they overlap in C
        got = list(pool.map(lambda each: [kernel(*each, *weights) for _ in range(10)], sets))
    for calls, want in zip(got, wanted):
        for call in calls:
            for value, expected in zip(call, want):
                np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)


def test_kernels_compile_once_and_are_found_on_disk(monkeypatch, tmp_path, rng):
    monkeypatch.setenv("SYMGRAD_CACHE", str(tmp_path))
    monkeypatch.setattr(c_backend, "_loaded", {})
    monkeypatch.setattr(c_backend, "_vector_math", None)
    calls = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    x = symgrad.placeholder("x")
    out = ops.exp(x) * ops.cos(x)
    first = symgrad.kernel(out, [x], backend="c")
    compiles = len(calls)
    assert compiles >= 1 and list(tmp_path.glob("c/kernel_*.so"))
    symgrad.kernel(out, [x], backend="c")
    monkeypatch.setattr(c_backend, "_loaded", {})  # a new process: found on disk, not compiled
    again = symgrad.kernel(out, [x], backend="c")
    assert len(calls) == compiles
    points = rng.normal(size=10)
    np.testing.assert_allclose(again(points)[0], first(points)[0])


def test_missing_compiler_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("SYMGRAD_CACHE", str(tmp_path))  # nothing cached: a compiler is needed
    monkeypatch.setattr(c_backend, "find_compiler", lambda: None)
    x = symgrad.placeholder("x")
    with pytest.raises(lowering.BackendError, match="backend 'c' is not installed.*C compiler"):
        lowering.compile_kernel([ops.sin(x)], [x], backend="c")


def test_unbound_variables_are_named(rng):
    x, y = symgrad.placeholder("x"), symgrad.placeholder("y")
    with pytest.raises(UnboundError, match="variable 'y'"):
        symgrad.kernel(x * y, [x], backend="c")


def test_empty_batches_and_single_points(rng):
    x = symgrad.placeholder("x", (2,))
    k = symgrad.kernel([ops.sin(x).sum(), ops.cos(x)], [x], backend="c")
    value, cosine = k(np.zeros((0, 2)))
    assert value.shape == (0,) and cosine.shape == (0, 2)
    value, cosine = k(np.array([0.5, 1.0]))
    np.testing.assert_allclose(value, np.sin(0.5) + np.sin(1.0))
    np.testing.assert_allclose(cosine, np.cos([0.5, 1.0]))


BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "greater", "less"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_with_broadcasting_and_their_gradients(name, rng):
    x, y = symgrad.placeholder("x", (2, 3)), symgrad.placeholder("y", (3,))
    fn = getattr(ops, name, None) or (lambda a, b: a > b if name == "greater" else a < b)
    outputs = [fn(x, y)]
    if name not in ("greater", "less"):
        outputs += list(ops.grad(lambda x, y: fn(x, y).sum(), (0, 1))(x, y))
    xs = rng.uniform(0.5, 2.0, (4, 2, 3))
    ys = np.round(rng.uniform(0.5, 2.0, 3), 1)
    xs[0, 0] = ys  # ties for maximum and minimum
    assert_same(outputs, [x, y], [xs, ys], rtol=1e-13)


def test_nan_passes_through_relu_maximum_and_minimum_as_in_numpy():
    x = symgrad.placeholder("x", (3,))
    outputs = [ops.relu(x), ops.maximum(x, 0.5), ops.minimum(0.5, x)]
    reference, got = both(outputs, [x], [np.array([np.nan, -1.0, 2.0])])
    for r, g in zip(reference, got):
        np.testing.assert_array_equal(g, r)
