"""Kernels: readable source, shared subexpressions, batch axes, caching, every op to third order."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import mpmath
import numpy as np
import pytest
import sympy

import lowering
import symgrad
from symgrad import ops
from symgrad.closed_form import to_sympy
from symgrad.core.registry import ELEMENTWISE, OPS
from tests.autodiff.test_forward_laplacian import unary_op

UNARY_DOMAIN = {
    "sqrt": (0.2, 3.0), "log": (0.2, 3.0), "atanh": (-0.8, 0.8), "asin": (-0.8, 0.8),
    "acos": (-0.8, 0.8), "tan": (-1.2, 1.2), "log1p": (-0.8, 3.0), "erfinv": (-0.8, 0.8),
    "lgamma": (0.2, 5.0),  # SymPy's loggamma is complex below 0, where lgamma is log|Gamma|
}  # fmt: skip
BINARY_DOMAIN = {  # (first argument, second argument)
    "pow": ((0.3, 2.0), (-2.0, 2.0)), "xlogy": ((-2.0, 2.0), (0.2, 3.0)), "div": ((-2.0, 2.0), (0.5, 2.0)),
}  # fmt: skip
BINARY = [n for n, op in OPS.items() if op.kind == ELEMENTWISE and op.arity == 2]
# d/dx, d/dy, then second and third orders mixed both ways
PARTIAL_CHAINS = [(0,), (1,), (0, 1), (1, 1), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 0, 0)]
UNARY = [n for n, op in OPS.items() if op.kind == ELEMENTWISE and op.arity == 1]


COMPILED = [b for b in ("numpy", "c") if b in lowering.available_backends()]


@pytest.mark.parametrize("backend", COMPILED)
@pytest.mark.parametrize("name", UNARY)
def test_kernels_match_50_digit_references_up_to_third_order(name, backend, rng):
    """Each unary op and its first three derivatives, kernel vs sympy.diff of its meaning at 50 digits.

    The C backend calls glibc's vector math (within 4 ulp), so it is held to 1e-13.
    """
    lo, hi = UNARY_DOMAIN.get(name, (-2.0, 2.0))
    points = rng.uniform(lo, hi, 5)
    points = points[np.abs(points) > 1e-3]  # away from the relu/abs kink
    x = symgrad.placeholder("x")
    fn = unary_op(name)
    d1 = ops.grad(fn)
    d2 = ops.grad(d1)
    d3 = ops.grad(d2)
    outputs = [fn(x), d1(x), d2(x), d3(x)]
    kernel = symgrad.kernel(outputs, [x], backend=backend)
    values = kernel(points)
    value = to_sympy([outputs[0]._node])[0][()]  # the op's SymPy meaning; derivatives by sympy.diff
    sym = next(iter(value.free_symbols))
    exprs = [sympy.diff(value, sym, order) for order in range(4)]
    for expr, got in zip(exprs, values):
        for p, v in zip(points, got):
            ref = expr.subs(sym, mpmath.mpf(p)).evalf(50)
            assert abs(float(ref) - v) <= 1e-13 * (1 + abs(float(ref))), (name, p)


@pytest.mark.parametrize("backend", COMPILED)
@pytest.mark.parametrize("name", BINARY)
def test_binary_kernels_match_50_digit_references_up_to_third_order(name, backend, rng):
    """Each binary op and its mixed partials to third order, kernel vs sympy.diff of its meaning at 50 digits."""
    (xlo, xhi), (ylo, yhi) = BINARY_DOMAIN.get(name, ((-2.0, 2.0), (-2.0, 2.0)))
    points = np.stack([rng.uniform(xlo, xhi, 4), rng.uniform(ylo, yhi, 4)], axis=1)
    points = points[np.abs(points[:, 0] - points[:, 1]) > 1e-3]  # away from the maximum/minimum tie
    x, y = symgrad.placeholder("x"), symgrad.placeholder("y")
    fn = getattr(ops, OPS[name].api.functions[0]) if OPS[name].api.functions else None
    if fn is None:
        pytest.skip(f"{name} has no public function (it only appears inside derivatives)")
    outputs = [fn(x, y)]
    for chain in PARTIAL_CHAINS:
        f = fn
        for position in chain:
            f = ops.grad(f, position)
        outputs.append(f(x, y))
    kernel = symgrad.kernel(outputs, [x, y], backend=backend)
    values = kernel(points[:, 0], points[:, 1])
    value = to_sympy([outputs[0]._node])[0][()]  # the op's SymPy meaning; derivatives by sympy.diff
    names = {s.name: s for s in value.free_symbols}
    exprs = [value] + [sympy.diff(value, *(names["xy"[p]] for p in chain)) for chain in PARTIAL_CHAINS]
    for expr, got in zip(exprs, values):
        for (px, py), v in zip(points, np.broadcast_to(got, (len(points),))):
            at = {s: mpmath.mpf(px if s.name == "x" else py) for s in expr.free_symbols}
            ref = expr.subs(at).evalf(50)
            assert abs(float(ref) - v) <= 1e-13 * (1 + abs(float(ref))), (name, px, py, expr)


def test_source_is_readable_and_shares_common_subexpressions():
    x = symgrad.placeholder("x")
    y = ops.sin(x) * ops.sin(x) + ops.cos(x)
    k = symgrad.kernel([y, ops.grad(lambda x: ops.sin(x) * ops.sin(x) + ops.cos(x))(x)], [x])
    assert k.source.startswith("def compute(x, _c, _batch):")
    assert k.source.count("np.sin(x)") == 1 and k.source.count("np.cos(x)") == 1
    assert k.arg_names == ["x"] and k.backend == "numpy"


def test_batch_axes_broadcast_and_agree_with_single_points(rng):
    x = symgrad.placeholder("x", (3,))
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(3, 2))), name="w")
    out = ops.tanh(ops.matmul(x, w)).sum()
    (gx,) = ops.grad(lambda x: ops.tanh(ops.matmul(x, w)).sum(), (0,))(x)
    k = symgrad.kernel([out, gx], [x, w])
    points = rng.normal(size=(4, 5, 3))
    batch_out, batch_g = k(points, w.asnumpy())
    assert batch_out.shape == (4, 5) and batch_g.shape == (4, 5, 3)
    for idx in np.ndindex(4, 5):
        single_out, single_g = k(points[idx], w.asnumpy())
        np.testing.assert_allclose(batch_out[idx], single_out)
        np.testing.assert_allclose(batch_g[idx], single_g)


def test_batch_sums_of_reshaped_outer_products(rng):
    """The gradient of |x @ W|^2 for a constant W is a per-point outer product reshaped to x's
    shape; its batch sum is one product over the batch, then reshaped (it used to append the
    shape to itself: 'cannot reshape array of size 3 into shape (1,3,3)')."""
    x = symgrad.placeholder("x", (3,))
    w = rng.normal(size=(3, 2))
    gradient = ops.grad(lambda x: (ops.matmul(x, symgrad.Tensor(w)) ** 2).sum())(x)
    points = rng.normal(size=(5, 3))
    for reduction, scale in (("sum", 1.0), ("mean", 1 / 5)):
        (got,) = symgrad.kernel([gradient], [x], reduce=[reduction])(points)
        np.testing.assert_allclose(got, scale * (2 * points @ w @ w.T).sum(0), rtol=1e-13)


def test_compiled_functions_are_cached_by_source():
    x = symgrad.placeholder("x")
    first = symgrad.kernel(ops.exp(x) * 3, [x])
    second = symgrad.kernel(ops.exp(x) * 3, [x])
    assert first._fn is second._fn


def test_weak_scalar_outputs_take_the_inputs_dtype():
    x = symgrad.placeholder("x", dtype=symgrad.dtype.float32)
    k = symgrad.kernel(ops.grad(lambda x: x * 2)(x), [x])
    (out,) = k(np.ones(4, np.float32))
    assert out.dtype == np.float32 and out.shape == (4,)
    np.testing.assert_array_equal(out, 2)


def test_sigmoid_has_no_overflow_warning():
    x = symgrad.placeholder("x")
    k = symgrad.kernel([ops.sigmoid(x), ops.grad(ops.sigmoid)(x)], [x])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, slope = k(np.array([-800.0, 0.0, 800.0]))
    np.testing.assert_allclose(value, [0, 0.5, 1])
    np.testing.assert_allclose(slope, [0, 0.25, 0])


def test_backends_are_listed():
    assert lowering.backends() == ["numpy", "c", "cupy", "torch", "mindspore"]
    assert "numpy" in lowering.available_backends()


@pytest.mark.parametrize("backend", [b for b in lowering.available_backends() if b != "cupy"])
def test_one_kernel_runs_alike_on_every_available_backend(backend, rng):
    """Parity: the same graph (all structural ops, reversed slices, kinks) on each backend."""
    x = symgrad.placeholder("x", (3,))
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(3, 2))), name="w")

    def f(x):
        h = ops.tanh(ops.matmul(x, w))
        mixed = ops.stack([h[::-1][0], ops.relu(h[1]), ops.maximum(h[0], 0.1)])
        return (ops.ReduceSum()(ops.Transpose()(ops.broadcast_to(mixed, (2, 3)), (1, 0)), 1) * x[::-1]).sum()

    outputs = [f(x), ops.grad(f)(x), ops.grad(lambda x: ops.grad(f)(x)[0])(x)]
    points = rng.normal(size=(5, 3))
    reference = symgrad.kernel(outputs, [x, w])(points, w.asnumpy())
    got = symgrad.kernel(outputs, [x, w], backend=backend)(points, w.asnumpy())
    for g, r in zip(got, reference):
        np.testing.assert_allclose(lowering.BACKENDS[backend].to_numpy(g), r, rtol=1e-12, atol=1e-14)


@pytest.mark.skipif(
    "cupy" not in lowering.available_backends() or not symgrad.context.gpu_available(),
    reason="CuPy with a CUDA GPU is not available here",
)
def test_cupy_kernel_matches_numpy(rng):  # pragma: no cover - needs a GPU
    import cupy

    x = symgrad.placeholder("x", (3,))
    out = ops.grad(lambda x: ops.grad(lambda x: (ops.tanh(x) ** 3).sum())(x).sum())(x)
    points = rng.normal(size=(100, 3))
    (ref,) = symgrad.kernel(out, [x])(points)
    (gpu,) = symgrad.kernel(out, [x], backend="cupy")(cupy.asarray(points))
    np.testing.assert_allclose(cupy.asnumpy(gpu), ref, rtol=1e-12)


def test_results_of_one_call_are_evaluated_by_one_kernel(monkeypatch):
    import symgrad.tensor as tensor_module

    calls = []
    real = tensor_module.evaluate
    monkeypatch.setattr(
        tensor_module, "evaluate", lambda nodes, env: calls.append(len(nodes)) or real(nodes, env)
    )
    x = symgrad.Tensor(np.array([0.5, 1.5]))
    gx, gy = ops.grad(lambda x, y: ops.sin(x) * ops.cos(y), (0, 1))(x, x)
    gx.asnumpy()
    gy.asnumpy()
    assert calls == [3]  # the function's value and both gradients, in one kernel
    np.testing.assert_allclose(gy.asnumpy(), -(np.sin([0.5, 1.5]) ** 2))


def test_integer_inputs_are_cast_with_a_warning():
    x = symgrad.placeholder("x")
    k = symgrad.kernel(ops.sin(x), [x])
    with pytest.warns(UserWarning, match="'x' has integer dtype int64; cast to float64"):
        (out,) = k(np.arange(3))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, np.sin([0.0, 1.0, 2.0]))


def test_very_large_graphs_compile_without_recursion_errors():
    """SymPy's lambdify fails on deep expressions (sympy/sympy#24673); kernels must not."""

    def deep(x):
        for _ in range(5_000):
            x = x + ops.sin(x) * 0.001
        return x

    x = symgrad.placeholder("x")
    k = symgrad.kernel([deep(x), ops.grad(deep)(x)], [x])
    assert k.op_count >= 30_000
    expected = np.array([0.1, 2.0])
    for _ in range(5_000):
        expected = expected + np.sin(expected) * 0.001
    value, derivative = k(np.array([0.1, 2.0]))
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    assert np.all(np.isfinite(derivative)) and np.all(derivative > 0)


def test_values_already_bound_become_kernel_constants():
    """A concrete tangent (or sens) inside a graph is a constant of the kernel, not an argument."""
    x = symgrad.placeholder("x")
    one = symgrad.Tensor(np.array(1.0))
    slope = ops.jvp(lambda x: ops.sin(x) * x, (x,), (one,))[1]
    (values,) = symgrad.kernel(slope, [x])(np.array([0.0, 1.0]))
    np.testing.assert_allclose(values, [0.0, np.sin(1.0) + np.cos(1.0)])


def test_mindspore_source_is_printed_without_mindspore():
    """The MindSpore program can be read (and tested) on machines without MindSpore."""
    from lowering.mindspore.printer import MindsporePrinter

    x = symgrad.placeholder("x", (3,))
    w = symgrad.Parameter(symgrad.Tensor(np.ones((3, 2))), name="w")
    out = ops.sigmoid(ops.matmul(x, w)).sum()
    source = (
        MindsporePrinter()
        .print_program(
            [out._node, ops.grad(lambda x: ops.sigmoid(ops.matmul(x, w)).sum())(x)._node],
            [x._node, w._node],
        )
        .source
    )
    assert "ops.sigmoid(" in source and "rt.matmul(x, w, 1, 2, False, False)" in source
    assert "np." not in source  # nothing NumPy-specific leaks into MindSpore code


def test_chunked_evaluation_equals_evaluating_all_points_at_once(rng):
    """Large batches run in chunks (bounded memory); results must not change."""
    x = symgrad.placeholder("x", (2,))
    w = symgrad.Parameter(symgrad.Tensor(rng.normal(size=(2, 3))), name="w")

    def f(x):
        return (ops.tanh(ops.matmul(x, w)) ** 2).sum()

    outputs = [f(x), ops.grad(f)(x), ops.grad(f, None, weights=[w])(x)[0], w * 2]
    kernel = symgrad.kernel(outputs, [x, w], reduce=[None, None, "mean", None])
    points = rng.normal(size=(7, 11, 2))
    kernel.chunk = None
    whole = kernel(points, w.asnumpy())
    kernel.chunk = 10  # 77 points in 8 chunks
    chunked = kernel(points, w.asnumpy())
    for a, b in zip(whole, chunked):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (the CUDA toolkit) is not installed here")
def test_fused_cuda_kernels_compile_with_nvcc(tmp_path, rng):
    """No GPU is needed to check that the fused CuPy kernel's CUDA source is valid CUDA."""
    from lowering.batch_sums import plan_batch_sums
    from lowering.c import print_point_program
    from lowering.printer import FUNCTION
    from symgrad.models import PointMLP, burgers_terms

    net = PointMLP([2, 8, 8, 1], seed=0)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    loss = symgrad.kernel(
        [terms["r"], terms["r"] ** 2, *grads], [x, t, *net.params], reduce=[None] + ["mean"] * 7
    )
    v = symgrad.placeholder("v", (3,))
    odd = ops.stack([v[::-1], ops.relu(v) * float("inf"), ops.broadcast_to(v[0], (3,))]).sum(0)
    for kernel in (loss, symgrad.kernel([odd, v > 0, ops.sign(v)], [v])):
        _, leaves = plan_batch_sums(kernel._outputs, kernel.reductions)
        source = print_point_program(leaves, kernel._args, target="cuda").source
        path = tmp_path / "kernel.cu"
        path.write_text(source)
        done = subprocess.run(
            ["nvcc", "-arch=sm_80", "--ptx", str(path), "-o", str(tmp_path / "kernel.ptx")],
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f".entry {FUNCTION}" in (tmp_path / "kernel.ptx").read_text()


def test_arguments_never_take_the_names_of_intermediates():
    """Two traces each bind an "x" and a "t"; the second "t" must not become "t1", an intermediate's name
    (it did: a + b below came out 0.604 instead of 0.848)."""

    def u(x, t):
        return ops.sin(x - 2 * t)

    x, t = symgrad.Tensor(np.array(-3.5)), symgrad.Tensor(np.array(0.1))
    a, b = ops.grad(u, 0)(x, t), ops.grad(u, 1)(x, t)
    assert (a + b).asnumpy() == pytest.approx(-np.cos(-3.7), rel=1e-14)
    named = [symgrad.placeholder(n) for n in ("t0", "c1", "r2", "a3", "t0")]
    k = symgrad.kernel([named[0] * 2 + named[1] * 3 + named[2] * 5 + named[3] * 7 + named[4] * 11], named)
    assert len(set(k.arg_names)) == 5 and not set(k.arg_names) & {"t0", "c1", "r2", "a3"}
    for backend in COMPILED:
        kb = symgrad.kernel(
            [named[0] * 2 + named[1] * 3 + named[2] * 5 + named[3] * 7 + named[4] * 11],
            named,
            backend=backend,
        )
        assert kb(1.0, 10.0, 100.0, 1000.0, 10000.0)[0] == pytest.approx(2 + 30 + 500 + 7000 + 110000)


def test_infinite_and_nan_constants_print_as_python_floats():
    x = symgrad.placeholder("x", (3,))
    out = ops.where(x > 0, x * float("inf"), ops.minimum(x, float("nan")) * 0 + float("-inf"))
    kernel = symgrad.kernel(out, [x])
    assert "float('inf')" in kernel.source
    np.testing.assert_array_equal(kernel(np.array([1.0, -1.0, 2.0]))[0], [np.inf, np.nan, np.inf])
