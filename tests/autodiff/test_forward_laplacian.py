"""The forward Laplacian: every op's rule against sympy.diff, trace(hessian) and finite differences."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy

import lowering
import lowering.kernel
import symgrad
from symgrad import Tensor, ops, pinn
from symgrad.closed_form import to_sympy
from symgrad.core.graph import count_ops
from symgrad.core.registry import ELEMENTWISE, OPS
from symgrad.errors import GradError, GradTypeError
from symgrad.models import PointMLP
from symgrad.ops import functional

UNARY = [n for n, op in OPS.items() if op.kind == ELEMENTWISE and op.arity == 1]


def unary_op(name: str):
    """The public function of a unary row (its first, for a row with a parameter such as bessel_i's
    bessel_i0), or the row applied directly where it has none (sech2)."""
    public = OPS[name].api.functions
    if public and hasattr(ops, public[0]):
        return getattr(ops, public[0])
    return lambda t: functional.as_tensor(t, name, "x")._op(name)


BINARY = [n for n, op in OPS.items() if op.kind == ELEMENTWISE and op.arity == 2 and op.api.functions]
DOMAIN = {
    "sqrt": 1.3,
    "log": 1.3,
    "log1p": 0.4,
    "atanh": 0.3,
    "asin": 0.3,
    "acos": 0.3,
    "pow": 1.3,
    "xlogy": 0.7,
}


def value_at(expr, at: dict) -> float:
    """``expr`` at the point ``at`` (symbol name -> number), with 50 digits."""
    return float(expr.subs({s: mpmath.mpf(at[s.name]) for s in expr.free_symbols}).evalf(50))


@pytest.mark.parametrize("name", UNARY)
def test_unary_rows_give_the_second_derivative_of_their_meaning(name):
    fn = unary_op(name)
    p = DOMAIN.get(name, 0.7)
    got = symgrad.laplacian(fn)(Tensor(np.float64(p))).asnumpy()
    x = symgrad.placeholder("x")
    meaning = to_sympy([fn(x)._node])[0][()]
    ref = value_at(sympy.diff(meaning, *meaning.free_symbols, 2), {"x": p})
    assert abs(got - ref) <= 1e-12 * (1 + abs(ref)), (name, got, ref)


def binary_case(name: str):
    """A binary row's function, a point (px, py) in its domain, its SymPy meaning and symbols."""
    fn = getattr(ops, OPS[name].api.functions[0])
    x, y = symgrad.placeholder("x"), symgrad.placeholder("y")
    meaning = to_sympy([fn(x, y)._node])[0][()]
    sx, sy = sorted(meaning.free_symbols, key=lambda s: s.name)
    return fn, DOMAIN.get(name, 0.7), 0.45, meaning, sx, sy


@pytest.mark.parametrize("name", BINARY)
def test_binary_rows_give_f_xx_plus_f_yy_and_handle_one_argument_twice(name):
    fn, px, py, meaning, sx, sy = binary_case(name)
    both = symgrad.laplacian(fn, (0, 1))(Tensor(np.float64(px)), Tensor(np.float64(py))).asnumpy()
    ref = value_at(sympy.diff(meaning, sx, 2) + sympy.diff(meaning, sy, 2), {"x": px, "y": py})
    assert abs(both - ref) <= 1e-12 * (1 + abs(ref)), (name, both, ref)
    twice = symgrad.laplacian(lambda t: fn(t, t))(Tensor(np.float64(px))).asnumpy()  # mixed partials count
    ref_twice = value_at(sympy.diff(meaning.subs(sy, sx), sx, 2), {"x": px})
    assert abs(twice - ref_twice) <= 1e-12 * (1 + abs(ref_twice)), (name, twice, ref_twice)


W = np.array([[0.3, -0.5, 0.8], [0.1, 0.4, -0.2], [-0.6, 0.2, 0.5]])
STRUCTURED = {  # every linear op, MatMul in each operand position, broadcasting, stop_gradient
    "matmul vector @ matrix": lambda x: ops.tanh(x @ Tensor(W)).sum(),
    "matmul matrix @ vector": lambda x: ops.sin(ops.matmul(Tensor(W), x)).sum(),
    "matmul transposed": lambda x: ops.sin(ops.MatMul(transpose_a=True)(Tensor(W), x.reshape(3, 1))).sum(),
    "matmul both operands": lambda x: ops.tanh(x @ (x.reshape(3, 1) * Tensor(W))).sum(),
    "matmul matrix operand": lambda x: ops.exp(ops.matmul(x.reshape(3, 1) * Tensor(W), Tensor(W))).sum(),
    "inner product": lambda x: ops.sin(ops.matmul(x, x * 2.0)),
    "reshape transpose getitem": lambda x: (
        ops.sin(ops.transpose(ops.stack([x, x * x]), (1, 0))[1:, 1]) ** 2
    ).sum(),
    "broadcast and reduce": lambda x: (
        ops.exp(ops.broadcast_to(x, (2, 3)) * x[0] + x.reshape(1, 3)).sum(0)[1:].sum()
    ),
    "cast": lambda x: ops.cos(ops.cast(x * x, symgrad.float32)).sum(),
    "stop_gradient": lambda x: (x * ops.stop_gradient(ops.sin(x)) + x**3).sum(),
    "vector output": lambda x: ops.sin(x) * x[1],
}


@pytest.mark.parametrize("name", list(STRUCTURED))
def test_structured_ops_agree_with_trace_of_hessian_and_finite_differences(name):
    fn = STRUCTURED[name]
    x0 = np.array([0.3, -0.7, 0.5])
    got = symgrad.laplacian(fn)(Tensor(x0)).asnumpy()
    out_shape = got.shape
    hess = symgrad.hessian(fn)(Tensor(x0)).asnumpy().reshape(*out_shape, 3, 3)
    tol = 1e-6 if name == "cast" else 1e-12  # cast rounds through float32
    assert np.allclose(got, np.trace(hess, axis1=-2, axis2=-1), rtol=tol, atol=tol)
    if name == "stop_gradient":  # finite differences see through it: d^2/dx^2 (x * c + x^3) = 6x
        assert np.isclose(got, 6 * x0.sum(), rtol=1e-12)
        return
    h = 3e-2 if name == "cast" else 1e-4
    value = lambda v: fn(Tensor(v)).asnumpy().astype(np.float64)  # noqa: E731
    fd = sum((value(x0 + h * e) - 2 * value(x0) + value(x0 - h * e)) / h**2 for e in np.eye(3))
    tol = 2e-2 if name == "cast" else 1e-6
    assert np.allclose(got, fd, rtol=tol, atol=tol), (got, fd)


class Mlp(PointMLP):
    """PointMLP on any number of scalar coordinates."""

    def __call__(self, *coords):
        a = ops.stack(list(coords))
        pairs = list(zip(self.params[::2], self.params[1::2]))
        for w, b in pairs[:-1]:
            a = ops.tanh(ops.matmul(a, w) + b)
        return (ops.matmul(a, pairs[-1][0]) + pairs[-1][1])[0]


def test_graph_size_does_not_grow_with_the_number_of_inputs():
    sizes = {}
    for d in (4, 40):
        net = Mlp([d, 16, 16, 1])
        xs = [symgrad.placeholder(f"x{i}") for i in range(d)]
        lap = symgrad.laplacian(net, tuple(range(d)))(*xs)
        sizes[d] = count_ops([lap._node])
    assert sizes[40] <= sizes[4] + 2, sizes  # d only widens one leading axis


def test_pinn_laplacian_of_a_network_and_its_weight_gradient_match_finite_differences():
    net = Mlp([3, 8, 8, 1])
    names = ("x", "y", "z")
    xs = [symgrad.placeholder(n) for n in names]
    lap = pinn.laplacian(net, (0, 1, 2))
    hess_trace = sum(ops.grad(ops.grad(net, i), i)(*xs) for i in range(3))
    loss = lambda *a: lap(*a) * lap(*a)  # noqa: E731
    grads = ops.grad(loss, None, weights=net.params)(*xs)
    backends = [b for b in ("numpy", "c") if b in lowering.available_backends()]
    point = [np.array([0.2, -0.4]), np.array([0.7, 0.1]), np.array([-0.3, 0.5])]
    weights = [p.asnumpy() for p in net.params]
    for backend in backends:
        kernel = symgrad.kernel([lap(*xs), hess_trace, *grads], [*xs, *net.params], backend=backend)
        values = kernel(*point, *weights)
        assert np.allclose(values[0], values[1], rtol=1e-12, atol=1e-12), backend
        w0 = weights[0]
        bumped = [w.copy() for w in weights]
        h, (i, j) = 1e-6, (1, 2)
        bumped[0][i, j] = w0[i, j] + h
        up = kernel(*point, *bumped)[0] ** 2
        bumped[0][i, j] = w0[i, j] - h
        down = kernel(*point, *bumped)[0] ** 2
        assert np.allclose(values[2][..., i, j], (up - down) / (2 * h), rtol=1e-6, atol=1e-8), backend


def test_bad_calls_say_what_is_wrong():
    f = lambda x, y: (x * y).sum()  # noqa: E731
    x = Tensor(np.ones(2))
    with pytest.raises(GradError, match="repeats a position"):
        symgrad.laplacian(f, (0, 0))(x, x)
    with pytest.raises(GradError, match="must return one Tensor"):
        symgrad.laplacian(lambda x: (x, x))(x)
    with pytest.raises(GradTypeError, match="input 1 must be a Tensor"):
        symgrad.laplacian(f, (0, 1))(x, 2.0)
    with pytest.raises(GradError, match="Int32"):
        symgrad.laplacian(f, (0, 1))(x, Tensor(np.ones(2, np.int32)))


def test_numpy_kernels_of_wide_per_point_values_run_in_smaller_chunks(monkeypatch, rng):
    monkeypatch.setattr(lowering.kernel, "CHUNK_BYTES", 2**20)
    net = Mlp([30, 16, 16, 1])
    xs = [symgrad.placeholder(f"x{i}") for i in range(30)]
    lap = symgrad.laplacian(net, tuple(range(30)))(*xs)
    kernel = symgrad.kernel([lap], [*xs, *net.params], backend="numpy")
    assert 1 < kernel.chunk < lowering.kernel.CHUNK  # G of a hidden layer is 30 x 16 per point
    points = list(rng.uniform(-1, 1, (30, 3 * kernel.chunk + 7)))
    weights = [p.asnumpy() for p in net.params]
    chunked = kernel(*points, *weights)[0]
    kernel.chunk = None
    np.testing.assert_allclose(chunked, kernel(*points, *weights)[0], rtol=1e-13, atol=1e-13)
