"""Wide layers on the C backend (issue 45): the point loop as blocked matrix products
(``lowering/c/tiles.py``) gives the per-point program's results, and NumPy's, to 1e-13; the
kernel builder picks it only for layers past ``tiles.WIDE_ELEMENTS``."""

from __future__ import annotations

import numpy as np
import pytest

import lowering
import lowering.c.tiles as tiles
import symgrad
from lowering.c.build import native_vector_bytes
from symgrad import ops
from symgrad.models import PointMLP, burgers_terms
from symgrad.pinn import ModifiedMLP
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(
    "c" not in lowering.available_backends(), reason="no C compiler here (gcc, clang or $CC)"
)

PER_POINT = 10**12  # a threshold no layer reaches: the per-point program


def burgers_kernels(net, residual_only: bool = False, dtype=np.float64):
    """(outputs, args, reductions) of the Burgers residual and of its loss gradient."""
    x, t = symgrad.placeholder("x", dtype=dtype), symgrad.placeholder("t", dtype=dtype)
    terms = burgers_terms(net, x, t)
    args = [x, t, *net.params]
    residual = ([terms[k] for k in ("u", "ut", "ux", "uxx", "r")], args, None)
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    loss = ([terms["r"], terms["r"] ** 2, *grads], args, [None, "mean"] + ["mean"] * len(grads))
    return [residual] if residual_only else [residual, loss]


def run(outputs, args, reduce, values, backend="c"):
    kernel = symgrad.kernel(outputs, args, backend=backend, reduce=reduce)
    return kernel, kernel(*values)


def assert_close(got, want, tolerance=1e-13):
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        scale = max(1.0, float(np.max(np.abs(w))) if w.size else 1.0)
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance * scale)


@pytest.mark.parametrize(("width", "tiled"), [(63, False), (64, True), (130, True)])
def test_the_builder_tiles_only_layers_past_the_threshold(width, tiled):
    """63 x 63 (3969 elements) stays per point; 64 x 64 (4096) and wider are tiled."""
    assert tiles.WIDE_ELEMENTS == 4096
    net = PointMLP([2, width, width, 1])
    ((outputs, args, _),) = burgers_kernels(net, residual_only=True)
    kernel = symgrad.kernel(outputs, args, backend="c")
    assert kernel._fn.point.tiled is tiled
    assert kernel._fn.point.lanes == (tiles.lanes(8, native_vector_bytes()) if tiled else 8)
    assert ("tiled_product(" in kernel.source) is tiled


@pytest.mark.parametrize("points", [1, 77, 300])  # one point, a part block after one whole, several
def test_burgers_residual_and_loss_gradient_tiled_equal_per_point_and_numpy(points, monkeypatch, rng):
    """Odd widths: 67 is no multiple of a tile's 6 columns or of its 2 vectors of points or rows."""
    net = PointMLP([2, 67, 67, 67, 1], seed=5)
    weights = [p.asnumpy() for p in net.params]
    values = [rng.uniform(-1, 1, points), rng.uniform(0, 1, points), *weights]
    for outputs, args, reduce in burgers_kernels(net):
        tiled_kernel, tiled = run(outputs, args, reduce, values)
        assert tiled_kernel._fn.point.tiled
        _, numpy = run(outputs, args, reduce, values, backend="numpy")
        monkeypatch.setattr(tiles, "WIDE_ELEMENTS", PER_POINT)
        per_point_kernel, per_point = run(outputs, args, reduce, values)
        monkeypatch.undo()
        assert not per_point_kernel._fn.point.tiled
        assert_close(tiled, per_point)
        assert_close(tiled, numpy)


def host_lanes(itemsize: int) -> list[int]:
    """Every block size a tiled program may have here: multiples of a product tile's two vectors."""
    least = 2 * native_vector_bytes() // itemsize
    return [lanes for lanes in (8, 16, 32, 64) if lanes % least == 0]


@pytest.mark.parametrize(("vector_bytes", "doubles", "floats"), [(32, 16, 32), (64, 32, 32)])
def test_block_sizes_follow_the_compilers_vectors(vector_bytes, doubles, floats):
    """16 doubles a block on AVX2 hosts, 32 where AVX-512's 64-byte vectors make a tile's two
    vectors 16 doubles; floats 32 on both; whole tiles of two vectors on either host, whichever
    the probe says (a wrong probe costs speed, not results)."""
    assert (tiles.lanes(8, vector_bytes), tiles.lanes(4, vector_bytes)) == (doubles, floats)
    for itemsize in (4, 8):
        for host in (32, 64):
            assert tiles.lanes(itemsize, vector_bytes) % (2 * host // itemsize) == 0


@pytest.mark.parametrize(("vector_bytes", "lanes"), [(32, 16), (64, 32)])
def test_the_kernel_builder_asks_the_compiler_for_its_vectors(vector_bytes, lanes, monkeypatch):
    """The builder passes the probe's answer down: a tiled kernel's blocks follow it."""
    import lowering.c.build as build

    assert native_vector_bytes() in (32, 64)
    net = PointMLP([2, 64, 64, 1])
    ((outputs, args, _),) = burgers_kernels(net, residual_only=True)
    monkeypatch.setattr(build, "native_vector_bytes", lambda: vector_bytes)
    assert symgrad.kernel(outputs, args, backend="c")._fn.point.lanes == lanes


@pytest.mark.parametrize("lanes", [8, 16, 32, 64])
def test_every_block_size_gives_the_per_point_results(lanes, monkeypatch, rng):
    """The builder's block size is a choice of speed only: at every size this host's vectors allow,
    the Burgers loss gradient of an odd-width MLP over two blocks and a part equals the per-point
    program's."""
    if lanes not in host_lanes(8):
        pytest.skip(f"{lanes} doubles are no whole product tile of this host's vectors")
    net = PointMLP([2, 67, 67, 1], seed=9)
    values = [rng.uniform(-1, 1, 2 * lanes + 5), rng.uniform(0, 1, 2 * lanes + 5)]
    values += [p.asnumpy() for p in net.params]
    _, (outputs, args, reduce) = burgers_kernels(net)
    monkeypatch.setattr(tiles, "lanes", lambda itemsize, vector_bytes: lanes)
    kernel, tiled = run(outputs, args, reduce, values)
    assert kernel._fn.point.tiled and kernel._fn.point.lanes == lanes
    monkeypatch.setattr(tiles, "WIDE_ELEMENTS", PER_POINT)
    assert_close(tiled, run(outputs, args, reduce, values)[1])


def test_modified_mlp_loss_gradient_tiled_equals_numpy(rng):
    """The modified MLP's gates (U, V of the input times every layer) at a wide odd width."""
    net = ModifiedMLP([2, 70, 70, 1], seed=2)
    weights = [p.asnumpy() for p in net.params]
    values = [rng.uniform(-1, 1, 90), rng.uniform(0, 1, 90), *weights]
    for outputs, args, reduce in burgers_kernels(net):
        kernel, tiled = run(outputs, args, reduce, values)
        assert kernel._fn.point.tiled
        assert_close(tiled, run(outputs, args, reduce, values, backend="numpy")[1])


MATMULS = [  # (shape of a, shape of b, transpose_a, transpose_b): a vector or a matrix per point
    ((7,), (7, 13), False, False), ((13, 7), (7,), False, False), ((9, 7), (7, 13), False, False),
    ((7, 9), (7, 13), True, False), ((9, 7), (13, 7), False, True), ((7, 9), (13, 7), True, True),
]  # fmt: skip


@pytest.mark.parametrize(("shape_a", "shape_b", "ta", "tb"), MATMULS)
@pytest.mark.parametrize("shared", ["a", "b"])
def test_tiled_products_of_every_rank_and_transpose_equal_numpy(
    shape_a, shape_b, ta, tb, shared, monkeypatch, rng
):
    """With the threshold at one element every product with a shared operand is tiled: rows of a
    per-point matrix (a Laplacian's directions) are one call each; 70 points are one block and a part."""
    monkeypatch.setattr(tiles, "WIDE_ELEMENTS", 1)
    weight = symgrad.Parameter(
        symgrad.Tensor(rng.normal(size=shape_a if shared == "a" else shape_b)), name="w"
    )
    x = symgrad.placeholder("x", shape_b if shared == "a" else shape_a)
    a, b = (weight, x) if shared == "a" else (x, weight)
    product = ops.MatMul(transpose_a=ta, transpose_b=tb)(a, b)
    outputs = [product, ops.sin(product), product]
    values = [rng.normal(size=(70,) + x.shape), weight.asnumpy()]
    reduce = [None, None, "sum"]
    kernel, got = run(outputs, [x, weight], reduce, values)
    if weight.ndim == 2:
        assert kernel._fn.point.tiled and "tiled_product(" in kernel.source
    assert_close(got, run(outputs, [x, weight], reduce, values, backend="numpy")[1])


# (rows, columns) of a weight gradient: whole row tiles and rows left, whole column panels (4
# vectors on AVX-512: 32 float64 or 64 float32 columns) and a part panel, columns fewer than a
# vector
OUTER_SUM_SHAPES = [(13, 37), (6, 16), (20, 1), (5, 12), (3, 40), (7, 70), (6, 128)]


@pytest.mark.parametrize(("rows", "columns"), OUTER_SUM_SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tiled_weight_gradients_of_every_tile_shape_equal_the_closed_form(
    rows, columns, dtype, monkeypatch, rng
):
    """g1 - g2 of two weight gradients: their outer products are one tiled product over both
    terms' points, the second term's sign folded in; 150 points are two blocks and a part."""
    monkeypatch.setattr(tiles, "WIDE_ELEMENTS", 1)
    x = symgrad.placeholder("x", (rows,), dtype=dtype)
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(rows, columns)).astype(dtype)), name="w")
    g1 = ops.grad(lambda x, w: ops.tanh(ops.matmul(x, w)).sum(), 1)(x, w)
    g2 = ops.grad(lambda x, w: ops.sin(ops.matmul(x, w)).sum(), 1)(x, w)
    points = rng.normal(size=(150, rows)).astype(dtype)
    kernel, (got,) = run([g1 - g2], [x, w], "sum", [points, w.asnumpy()])
    assert kernel._fn.point.tiled and "tiled_outer_sum(" in kernel.source and got.dtype == dtype
    wide, weight = points.astype(np.float64), w.asnumpy().astype(np.float64)
    want = wide.T @ (1 - np.tanh(wide @ weight) ** 2) - wide.T @ np.cos(wide @ weight)
    tolerance = 1e-13 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * np.max(np.abs(want)))


def test_forward_laplacian_of_a_wide_network_tiled_equals_numpy(rng):
    """The forward Laplacian's directions (a per-point matrix) through 80 x 80 layers."""
    net = PointMLP([3, 80, 80, 1], seed=1)
    xs = [symgrad.placeholder(n) for n in "xyz"]
    lap = symgrad.laplacian(net, (0, 1, 2))(*xs)
    grads = ops.grad(lambda *a: symgrad.laplacian(net, (0, 1, 2))(*a) ** 2, None, weights=net.params)(*xs)
    outputs, args = [lap, *grads], [*xs, *net.params]
    values = [rng.uniform(-1, 1, 100) for _ in xs] + [p.asnumpy() for p in net.params]
    reduce = [None] + ["sum"] * len(grads)
    kernel, got = run(outputs, args, reduce, values)
    assert kernel._fn.point.tiled
    assert_close(got, run(outputs, args, reduce, values, backend="numpy")[1], tolerance=1e-12)


def test_taylor_sweep_of_a_wide_network_tiled_equals_per_point_and_numpy(monkeypatch, rng):
    """u_xxx by the Taylor sweep (its coefficients: a per-point matrix) and its weight gradient."""
    from symgrad.ops.functional import derivative

    net = PointMLP([2, 72, 72, 1], seed=4)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    u_xxx = derivative(lambda v: net(v, t), x, 3)[1]
    loss = lambda a, b: derivative(lambda v: net(v, b), a, 3)[1] ** 2  # noqa: E731
    grads = ops.grad(loss, None, weights=net.params)(x, t)
    outputs, args = [u_xxx, *grads], [x, t, *net.params]
    values = [rng.uniform(-1, 1, 70), rng.uniform(0, 1, 70)] + [p.asnumpy() for p in net.params]
    reduce = [None] + ["sum"] * len(grads)
    kernel, tiled = run(outputs, args, reduce, values)
    assert kernel._fn.point.tiled
    monkeypatch.setattr(tiles, "WIDE_ELEMENTS", PER_POINT)
    assert_close(tiled, run(outputs, args, reduce, values)[1])
    assert_close(tiled, run(outputs, args, reduce, values, backend="numpy")[1], tolerance=1e-12)


def test_float32_wide_networks_compute_in_float32_tiles(rng):
    """float32: 16 values per vector on AVX-512, so a tile is 32 points; results as NumPy's in float32."""
    net = PointMLP([2, 70, 70, 1], seed=6, dtype=np.float32)
    weights = [p.asnumpy() for p in net.params]
    values = [rng.uniform(-1, 1, 90).astype(np.float32), rng.uniform(0, 1, 90).astype(np.float32), *weights]
    for outputs, args, reduce in burgers_kernels(net, dtype=np.float32):
        kernel, got = run(outputs, args, reduce, values)
        assert kernel._fn.point.tiled and kernel._fn.point.real == "float"
        want = run(outputs, args, reduce, values, backend="numpy")[1]
        assert all(g.dtype == np.float32 for g in got)
        assert_close(got, want, tolerance=2e-4)


_THREADS_SCRIPT = """
import numpy as np
from symgrad.models import PointMLP
from tests.lowering.test_wide_kernels import burgers_kernels, run
net = PointMLP([2, 67, 67, 67, 1], seed=8)
_, (outputs, args, reduce) = burgers_kernels(net)
rng = np.random.default_rng(3)
values = [rng.uniform(-1, 1, 1001), rng.uniform(0, 1, 1001), *[p.asnumpy() for p in net.params]]
kernel, got = run(outputs, args, reduce, values)
want = run(outputs, args, reduce, values, backend="numpy")[1]
assert kernel._fn.point.tiled and kernel._fn.point.shared_scratch_bytes > 0
print(max(float(np.max(np.abs(g - w)) / max(1.0, np.max(np.abs(w)))) for g, w in zip(got, want)))
"""


@pytest.mark.parametrize("threads", [1, 3])
def test_packed_matrices_shared_by_the_threads_give_numpys_results(threads, tmp_path):
    """The threads pack the shared matrices together, once, into one scratch (``tiles._panels``):
    with 3 threads (an uneven split of the panels and of 1001 points) every thread's products read
    complete packs, and the per-thread scratch holds none."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "SYMGRAD_CACHE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _THREADS_SCRIPT], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.split()[-1]) < 1e-13


def test_a_tiled_programs_packs_are_not_in_the_threads_scratch():
    """Four 67 x 67 packs (12 panels of 6 columns x 67 rows each) in the shared scratch, none a thread's."""
    net = PointMLP([2, 67, 67, 67, 1])
    (_, (outputs, args, reduce)) = burgers_kernels(net)
    kernel = symgrad.kernel(outputs, args, backend="c", reduce=reduce)
    point = kernel._fn.point
    assert point.shared_scratch_bytes >= 4 * 12 * 6 * 67 * 8
    assert "= packs + " in kernel.source and "pk0 = scratch" not in kernel.source


_L1_WAYS = 8  # the associativity of x86-64 cores' L1 data caches (Zen 3/4, Intel since Sandy Bridge)


@pytest.mark.parametrize(
    ("kind", "width", "dtype"),
    [
        ("mlp", 64, np.float64),
        ("mlp", 128, np.float64),
        ("modified", 128, np.float64),
        ("modified", 96, np.float32),
    ],
)
def test_a_fused_loops_arrays_start_in_different_cache_sets(kind, width, dtype):
    """Every fused loop of a tiled loss gradient reads and writes block arrays that start in
    different 64-byte sets of a 4 KB page, at most as many in one set as an L1 cache has ways.
    Block arrays are a power of two in size (H x 32 doubles): back to back, all of them start
    at one offset modulo 4 KB, and a loop over dozens of them evicts its own lines (the modified
    MLP's loss gradient at H = 128 took 1.45x the time)."""
    import re

    net = (PointMLP if kind == "mlp" else ModifiedMLP)([2, width, width, width, 1])
    (_, (outputs, args, reduce)) = burgers_kernels(net, dtype=dtype)
    kernel = symgrad.kernel(outputs, args, backend="c", reduce=reduce)
    point = kernel._fn.point
    assert point.tiled
    itemsize = 4 if point.real == "float" else 8
    offsets = {m[1]: int(m[2]) for m in re.finditer(r"\*(t\d+) = scratch \+ (\d+);", kernel.source)}
    lane_read = re.compile(rf"(t\d+)\[\(i\) \* {point.lanes} \+ b\]")
    loops = re.findall(rf"SIMD_LANES for \(int b = 0; b < {point.lanes}; b\+\+\) \{{(.*?)\}}", kernel.source)
    crowded, widest = [], 0
    for body in loops:
        arrays = {name for name in lane_read.findall(body) if name in offsets}
        sets = [offsets[name] * itemsize % 4096 // 64 for name in arrays]
        crowded.append(max((sets.count(s) for s in sets), default=0))
        widest = max(widest, len(arrays))
    assert widest > _L1_WAYS  # a loop that could crowd one set
    assert max(crowded) <= _L1_WAYS, sorted(crowded)[-5:]
