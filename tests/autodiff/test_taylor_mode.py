"""Taylor mode (jet, derivative): every op's rule against sympy.diff, networks against nested
derivatives and finite differences, and the graph's growth with the order."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

import lowering
import symgrad
from symgrad import Tensor, ops
from symgrad.autodiff.taylor_sweep import partitions, set_partition_count
from symgrad.closed_form import to_sympy
from symgrad.core.registry import ELEMENTWISE, OPS
from symgrad.errors import GradError, GradTypeError
from symgrad.ops.functional import derivative, jet
from tests.autodiff.test_forward_laplacian import BINARY, DOMAIN, UNARY, Mlp, binary_case, unary_op, value_at

ORDER = 4


def _close(got: float, ref: float, rtol: float = 1e-11) -> bool:
    return abs(got - ref) <= rtol * (1 + abs(ref))


def test_partitions_and_their_set_partition_counts_are_the_bell_numbers():
    assert partitions(4) == ((1, 1, 1, 1), (1, 1, 2), (1, 3), (2, 2), (4,))
    bell = [sum(set_partition_count(p) for p in partitions(k)) for k in range(1, 8)]
    assert bell == [1, 2, 5, 15, 52, 203, 877]


@pytest.mark.parametrize("name", UNARY)
def test_unary_rows_give_their_meanings_derivatives_up_to_order_four(name):
    fn = unary_op(name)
    p = DOMAIN.get(name, 0.7)
    x = symgrad.placeholder("x")
    meaning = to_sympy([fn(x)._node])[0][()]
    (sx,) = meaning.free_symbols
    series = Tensor(np.array([1.0] + [0.0] * (ORDER - 1)))
    _, got = jet(fn, Tensor(np.float64(p)), series)
    for k in range(1, ORDER + 1):
        ref = value_at(sympy.diff(meaning, sx, k), {"x": p})
        assert _close(float(got.asnumpy()[k - 1]), ref), (name, k, got.asnumpy(), ref)


@pytest.mark.parametrize("name", BINARY)
def test_binary_rows_along_a_curved_path_and_with_one_argument_twice(name):
    fn, px, py, meaning, sx, sy = binary_case(name)
    # x(t) = px + t + 0.3 t^2 / 2, y(t) = py - 0.5 t + 0.2 t^3 / 6: rows are the path's derivatives
    rows_x, rows_y = [1.0, 0.3, 0.0, 0.0], [-0.5, 0.0, 0.2, 0.0]
    _, got = jet(
        fn,
        (Tensor(np.float64(px)), Tensor(np.float64(py))),
        (Tensor(np.array(rows_x)), Tensor(np.array(rows_y))),
    )
    t = sympy.Symbol("t")
    path = meaning.subs({sx: px + t + sympy.Rational(3, 20) * t**2, sy: py - t / 2 + t**3 / 30})
    for k in range(1, ORDER + 1):
        ref = value_at(sympy.diff(path, t, k).subs(t, 0), {})
        assert _close(float(got.asnumpy()[k - 1]), ref), (name, k, got.asnumpy(), ref)
    _, twice = derivative(lambda v: fn(v, v), Tensor(np.float64(px)), 3)
    ref = value_at(sympy.diff(meaning.subs(sy, sx), sx, 3), {"x": px})
    assert _close(float(twice.asnumpy()), ref), (name, twice, ref)


def _nested_grad(f, k: int):
    for _ in range(k):
        f = ops.grad(f, 0)
    return f


W = np.array([[0.3, -0.5, 0.8], [0.1, 0.4, -0.2], [-0.6, 0.2, 0.5]])
STRUCTURED = {  # every linear op, MatMul in each operand position, broadcasting, stop_gradient
    "matmul vector @ matrix": lambda x: ops.tanh(x @ Tensor(W)).sum(),
    "matmul both operands": lambda x: ops.tanh(x @ (x.reshape(3, 1) * Tensor(W))).sum(),
    "matmul of two curved operands": lambda x: ops.tanh(
        ops.matmul(ops.sin(x), ops.cos(x).reshape(3, 1) * Tensor(W))
    ).sum(),
    "matmul matrix operand": lambda x: ops.exp(ops.matmul(x.reshape(3, 1) * Tensor(W), Tensor(W))).sum(),
    "reshape transpose getitem stack": lambda x: (
        ops.sin(ops.transpose(ops.stack([x, x * x]), (1, 0))[1:, 1]) ** 2
    ).sum(),
    "broadcast and reduce": lambda x: ops.exp(ops.broadcast_to(x, (2, 3)) * x[0] + x.reshape(1, 3)).sum(),
    "stop_gradient": lambda x: (x * ops.stop_gradient(ops.sin(x)) + x**3).sum(),
    "softplus of a quotient": lambda x: ops.softplus(x[0] / (1.5 + x[1] * x[2])),
}


@pytest.mark.parametrize("name", list(STRUCTURED))
def test_structured_ops_agree_with_nested_reverse_derivatives(name):
    fn = STRUCTURED[name]
    x0 = np.array([0.3, -0.7, 0.5])
    direction = np.array([1.0, -0.5, 0.25])
    line = lambda s: fn(Tensor(x0) + s * Tensor(direction))  # noqa: E731 - fn along a straight line
    _, got = jet(fn, Tensor(x0), Tensor(np.stack([direction] + [np.zeros(3)] * (ORDER - 1))))
    for k in range(1, ORDER + 1):
        ref = _nested_grad(line, k)(Tensor(np.float64(0.0))).asnumpy()
        np.testing.assert_allclose(got.asnumpy()[k - 1], ref, rtol=1e-11, atol=1e-11, err_msg=f"{name} k={k}")


def test_a_network_against_finite_differences_and_its_weight_gradient():
    net = Mlp([2, 8, 8, 1])
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    u_xxx = derivative(lambda v: net(v, t), x, 3)[1]
    reference = _nested_grad(net, 3)(x, t)
    loss = lambda a, b: derivative(lambda v: net(v, b), a, 3)[1] ** 2  # noqa: E731
    grads = ops.grad(loss, None, weights=net.params)(x, t)
    weights = [p.asnumpy() for p in net.params]
    xs, ts = np.array([0.2, -0.4, 0.9]), np.array([0.7, 0.1, 0.3])
    for backend in [b for b in ("numpy", "c") if b in lowering.available_backends()]:
        kernel = symgrad.kernel([u_xxx, reference, *grads, net(x, t)], [x, t, *net.params], backend=backend)
        values = kernel(xs, ts, *weights)
        np.testing.assert_allclose(values[0], values[1], rtol=1e-12, atol=1e-12, err_msg=backend)
        h = 1e-2  # central differences of the third derivative
        u2, u1, d1, d2 = (kernel(xs + c * h, ts, *weights)[-1] for c in (2, 1, -1, -2))
        fd = (u2 - 2 * u1 + 2 * d1 - d2) / (2 * h**3)
        np.testing.assert_allclose(values[0], fd, rtol=1e-3, atol=1e-3, err_msg=backend)
        bumped, (i, j), h = [w.copy() for w in weights], (1, 3), 1e-6
        bumped[0][i, j] += h
        up = kernel(xs, ts, *bumped)[0] ** 2
        bumped[0][i, j] -= 2 * h
        down = kernel(xs, ts, *bumped)[0] ** 2
        np.testing.assert_allclose(values[2][..., i, j], (up - down) / (2 * h), rtol=1e-6, atol=1e-8)


def test_the_graph_grows_like_the_order_squared_not_like_nested_derivatives():
    net = Mlp([2, 16, 16, 16, 1])
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")

    def ops_of(node) -> int:
        return symgrad.kernel([node], [x, t, *net.params], backend="numpy").op_count

    taylor = {k: ops_of(derivative(lambda v: net(v, t), x, k)[1]) for k in (2, 4, 6)}
    nested = ops_of(_nested_grad(net, 5)(x, t))
    # at most like the order squared: 2 -> 4 -> 6 multiplies the size by at most 4 and 9
    assert taylor[4] <= 4 * taylor[2] and taylor[6] <= 9 * taylor[2], taylor
    assert taylor[6] < nested, (taylor, nested)  # order 6 is smaller than nested reverse order 5


def test_jet_of_tuple_outputs_and_derivative_of_several_inputs():
    x, y = Tensor(np.array([0.3, 0.4])), Tensor(np.array([0.5, -0.1]))
    outs, series = jet(
        lambda a, b: (ops.sin(a), a * b),
        (x, y),
        (Tensor(np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])), Tensor(np.zeros((3, 2)))),
    )
    assert isinstance(outs, tuple) and len(series) == 2 and series[1].shape == (3, 2)
    # the first coordinate moves along t, the second only along t^3 / 6
    c, s = np.cos(x.asnumpy()), np.sin(x.asnumpy())
    np.testing.assert_allclose(series[0].asnumpy(), [[c[0], 0], [-s[0], 0], [-c[0], c[1]]], rtol=1e-12)
    np.testing.assert_allclose(
        series[1].asnumpy(), [[y.asnumpy()[0], 0], [0, 0], [0, y.asnumpy()[1]]], atol=1e-15
    )
    _, d2 = derivative(lambda a, b: a * a * b, (x, y), 2)  # along (1, 1): d^2/dt^2 (x+t)^2 (y+t)
    np.testing.assert_allclose(d2.asnumpy(), 2 * y.asnumpy() + 4 * x.asnumpy(), rtol=1e-12)
    _, const = derivative(lambda a: ops.stop_gradient(a) * 2.0, x, 2)
    assert const.asnumpy().tolist() == [0.0, 0.0]
    assert math.isclose(float(derivative(ops.exp, Tensor(np.float64(0.0)), 7)[1].asnumpy()), 1.0)


def test_derivatives_along_one_input_match_nested_grad():
    f = lambda x, t: ops.sin(x * t) * ops.exp(x)  # noqa: E731
    x, t = Tensor(np.array([0.3, -0.8])), Tensor(np.array([1.5, 0.4]))
    got = symgrad.derivatives(f, 0, order=3)(x, t)
    assert len(got) == 3
    for k, d in enumerate(got, start=1):
        np.testing.assert_allclose(d.asnumpy(), _nested_grad(f, k)(x, t).asnumpy(), rtol=1e-12)
    u_t, u_tt = symgrad.derivatives(f, 1)(x, t)  # order 2 by default, along t
    np.testing.assert_allclose(u_tt.asnumpy(), -(x.asnumpy() ** 2) * f(x, t).asnumpy(), rtol=1e-12)


def test_bad_calls_say_what_is_wrong():
    x = Tensor(np.ones(2))
    with pytest.raises(GradTypeError, match="input 2 must be a Tensor, got 2 input"):
        symgrad.derivatives(lambda a, b: a * b, 2)(x, x)
    with pytest.raises(GradTypeError, match="input 1 must be a Tensor, got float"):
        symgrad.derivatives(lambda a, b: a * b, 1)(x, 2.0)
    with pytest.raises(GradError, match="Int32"):
        symgrad.derivatives(lambda a: a * 2)(Tensor(np.ones(2, np.int32)))
    with pytest.raises(GradError, match="must return one Tensor"):
        symgrad.derivatives(lambda a: (a, a))(x)
    with pytest.raises(GradError, match="position must be an int"):
        symgrad.derivatives(ops.sin, -1)
    with pytest.raises(GradError, match="positive int"):
        derivative(ops.sin, x, 0)
    with pytest.raises(GradTypeError, match="primals\\[0\\] must be a Tensor"):
        derivative(ops.sin, 1.0, 2)
    with pytest.raises(GradError, match="series\\[0\\] must have shape"):
        jet(ops.sin, x, Tensor(np.ones((2, 3))))
    with pytest.raises(GradError, match="same order"):
        jet(lambda a, b: a * b, (x, x), (Tensor(np.ones((2, 2))), Tensor(np.ones((3, 2)))))


def test_select_takes_the_chosen_branchs_derivatives():
    x = Tensor(np.array([-0.5, 0.5]))
    _, d3 = derivative(lambda v: ops.select(v > 0, ops.sin(v), v**3), x, 3)
    np.testing.assert_allclose(d3.asnumpy(), [6.0, -np.cos(0.5)], rtol=1e-12)
    covered = set(UNARY) | set(BINARY) | {"select"}
    assert {n for n, op in OPS.items() if op.kind == ELEMENTWISE} <= covered
