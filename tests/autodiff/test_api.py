"""Return structures and semantics of the MindSpore API, checked against NumPy and SymPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad import Parameter, ParameterTuple, Tensor, nn, ops

F64 = np.float64


def t64(values) -> Tensor:
    return Tensor(np.asarray(values, dtype=F64))


class Scaled(nn.Cell):
    """out = sin(x) * y * w, with one weight."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0])), name="w")

    def construct(self, x, y):
        return ops.sin(x) * y * self.w


X, Y = t64([0.3, -1.2]), t64([1.5, 0.5])


def test_get_all_returns_a_tuple_even_for_one_input():
    out = ops.GradOperation(get_all=True)(ops.Sin())(X)
    assert isinstance(out, tuple) and len(out) == 1
    np.testing.assert_allclose(out[0].asnumpy(), np.cos(X.asnumpy()))


def test_both_flags_return_inputs_then_weights():
    net = Scaled()
    params = ParameterTuple(net.trainable_params())
    inputs, weights = ops.GradOperation(get_all=True, get_by_list=True)(net, params)(X, Y)
    x, y = X.asnumpy(), Y.asnumpy()
    np.testing.assert_allclose(inputs[0].asnumpy(), np.cos(x) * y * 2)
    np.testing.assert_allclose(inputs[1].asnumpy(), np.sin(x) * 2)
    np.testing.assert_allclose(weights[0].asnumpy(), [np.sum(np.sin(x) * y)])
    assert isinstance(weights, tuple) and weights[0].shape == (1,)


def test_grad_position_int_gives_tensor_tuple_gives_tuple():
    net = Scaled()
    assert isinstance(ops.grad(net, 1)(X, Y), Tensor)
    both = ops.grad(net, (0, 1))(X, Y)
    assert isinstance(both, tuple) and len(both) == 2
    single = ops.grad(net, (1,))(X, Y)
    assert isinstance(single, tuple) and len(single) == 1


def test_grad_with_weights():
    net = Scaled()
    only_w = ops.grad(net, grad_position=None, weights=net.trainable_params())(X, Y)
    assert isinstance(only_w, tuple) and only_w[0].shape == (1,)
    one_param = ops.grad(net, grad_position=None, weights=net.w)(X, Y)
    assert isinstance(one_param, Tensor)
    g_x, g_w = ops.grad(net, 0, weights=ParameterTuple([net.w]))(X, Y)
    np.testing.assert_allclose(g_w[0].asnumpy(), one_param.asnumpy())
    np.testing.assert_allclose(g_x.asnumpy(), np.cos(X.asnumpy()) * Y.asnumpy() * 2)


def test_has_aux_differentiates_the_first_output_only():
    def fn(x, y):
        return x * ops.exp(y), y * 10

    grads, aux = ops.grad(fn, (0, 1), has_aux=True)(X, Y)
    np.testing.assert_allclose(grads[1].asnumpy(), X.asnumpy() * np.exp(Y.asnumpy()))
    assert isinstance(aux, tuple) and np.allclose(aux[0].asnumpy(), Y.asnumpy() * 10)


def test_value_and_grad():
    value, g = ops.value_and_grad(lambda x: (x**2).sum())(X)
    assert value.shape == () and np.isclose(value.asnumpy(), np.sum(X.asnumpy() ** 2))
    np.testing.assert_allclose(g.asnumpy(), 2 * X.asnumpy())


def test_multi_output_without_sens_sums_every_output():
    g = ops.grad(lambda x: (x**2, ops.sin(x)))(X)
    np.testing.assert_allclose(g.asnumpy(), 2 * X.asnumpy() + np.cos(X.asnumpy()))


def test_vjp_mindspore2_form_returns_a_function():
    out, vjp_fn = ops.vjp(lambda x, y: x * y, X, Y)
    np.testing.assert_allclose(out.asnumpy(), X.asnumpy() * Y.asnumpy())
    gx, gy = vjp_fn(t64([1.0, 2.0]))
    np.testing.assert_allclose(gx.asnumpy(), Y.asnumpy() * [1, 2])


def test_jvp_and_vjp_satisfy_the_inner_product_identity(rng):
    m = Tensor(rng.normal(size=(3, 4)))

    def f(x):
        return ops.tanh(ops.matmul(x, m)) * 3

    x, u, v = t64(rng.normal(size=3)), t64(rng.normal(size=3)), t64(rng.normal(size=4))
    _, ju = ops.jvp(f, x, u)
    _, (jtv,) = ops.vjp(f, (x,), v)
    assert np.isclose(np.dot(v.asnumpy(), ju.asnumpy()), np.dot(jtv.asnumpy(), u.asnumpy()))


def test_jacobians_and_hessian_against_hand_derivatives():
    def f(x):
        return ops.sin(x) * x[0]

    x = t64([0.4, 1.1])
    a, b = x.asnumpy()
    expected = np.array([[np.cos(a) * a + np.sin(a), 0], [np.sin(b), np.cos(b) * a]])
    np.testing.assert_allclose(ops.jacrev(f)(x).asnumpy(), expected)
    np.testing.assert_allclose(ops.jacfwd(f)(x).asnumpy(), expected)
    energy = lambda x: (x[0] ** 2 * x[1] ** 3).sum()  # noqa: E731
    h = ops.hessian(energy)(x).asnumpy()
    np.testing.assert_allclose(h, [[2 * b**3, 6 * a * b**2], [6 * a * b**2, 6 * a**2 * b]])


def test_float32_in_float32_out_and_float64_in_float64_out():
    for dtype in (np.float32, np.float64):
        g = ops.grad(ops.Sin())(Tensor(np.array([1.0, 2.0], dtype)))
        assert g.asnumpy().dtype == dtype


def test_stop_gradient_keeps_the_value():
    g = ops.grad(lambda x: x * ops.stop_gradient(x))(X)
    np.testing.assert_allclose(g.asnumpy(), X.asnumpy())


def test_relu_abs_and_maximum_follow_mindspore_at_the_kink():
    zero = t64([0.0, 1.0, -1.0])
    np.testing.assert_array_equal(ops.grad(ops.relu)(zero).asnumpy(), [0, 1, 0])
    np.testing.assert_array_equal(ops.grad(ops.abs)(zero).asnumpy(), [0, 1, -1])
    ga, gb = ops.grad(ops.maximum, (0, 1))(t64([1.0, 2.0, 3.0]), t64([1.0, 0.0, 5.0]))
    np.testing.assert_array_equal(ga.asnumpy(), [0.5, 1, 0])
    np.testing.assert_array_equal(gb.asnumpy(), [0.5, 0, 1])


def test_parameters_are_named_and_updatable():
    net = nn.SequentialCell([nn.Dense(2, 3, activation="tanh"), nn.Dense(3, 1)])
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert [p.shape for p in net.trainable_params()] == [(3, 2), (3,), (1, 3), (1,)]
    x = t64([0.5, -0.5])
    w0, b0, w1, b1 = (p.asnumpy().astype(F64) for p in net.trainable_params())
    expected = w1 @ np.tanh(w0 @ x.asnumpy() + b0) + b1
    before = net(x)
    np.testing.assert_allclose(before.asnumpy(), expected, rtol=1e-6)
    net.trainable_params()[3].set_data(np.array([10.0], np.float32))
    np.testing.assert_allclose(before.asnumpy(), expected, rtol=1e-6)  # earlier results keep their value
    np.testing.assert_allclose(net(x).asnumpy(), expected - b1 + 10, rtol=1e-6)


def test_weight_gradients_of_a_dense_network_match_finite_differences():
    f64 = symgrad.dtype.float64
    net = nn.SequentialCell([nn.Dense(2, 3, activation="tanh", dtype=f64), nn.Dense(3, 1, dtype=f64)])
    params = net.trainable_params()
    assert all(p.dtype == f64 for p in params)
    x = t64([0.5, -0.5])
    grads = ops.grad(lambda x: net(x).sum(), None, weights=params)(x)
    for p, g in zip(params, grads):
        base = p.asnumpy().copy()
        fd = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            for sign in (1, -1):
                bumped = base.copy()
                bumped[idx] += sign * 1e-6
                p.set_data(bumped)
                fd[idx] += sign * float(net(x).sum().asnumpy()) / 2e-6
        p.set_data(base)
        np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-6, atol=1e-8)


def test_tensor_arithmetic_broadcasts_and_indexes_like_numpy(rng):
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3,))
    ta, tb = Tensor(a), Tensor(b)
    np.testing.assert_allclose(((ta * tb - 1) / (tb**2 + 2)).asnumpy(), (a * b - 1) / (b**2 + 2))
    np.testing.assert_allclose((2 - ta).asnumpy(), 2 - a)
    np.testing.assert_allclose(ta[1, 1:].asnumpy(), a[1, 1:])
    np.testing.assert_allclose(ta[0][2].asnumpy(), a[0][2])
    np.testing.assert_allclose(ta[:, ::-1].asnumpy(), a[:, ::-1])
    np.testing.assert_allclose(ta[1, ::-2].asnumpy(), a[1, ::-2])
    weights = np.arange(1.0, 4.0)
    g = ops.grad(lambda t: (t[0, ::-1] * Tensor(weights)).sum())(ta)
    np.testing.assert_allclose(g.asnumpy(), [weights[::-1], [0, 0, 0]])
    np.testing.assert_allclose(ta.T.asnumpy(), a.T)
    np.testing.assert_allclose(ta.reshape(3, 2).asnumpy(), a.reshape(3, 2))
    np.testing.assert_allclose(ops.ReduceSum(keep_dims=True)(ta, 1).asnumpy(), a.sum(1, keepdims=True))
    np.testing.assert_allclose(ops.ReduceMean()(ta).asnumpy(), a.mean())
    np.testing.assert_allclose(ops.Transpose()(ta, (1, 0)).asnumpy(), a.T)
    np.testing.assert_allclose((ta @ tb).asnumpy(), a @ b)
    np.testing.assert_allclose(ops.MatMul(transpose_b=True)(ta, ta).asnumpy(), a @ a.T)
    assert Tensor([1, 2]).dtype == symgrad.dtype.int64
    assert Tensor([1.0]).dtype == symgrad.dtype.float32


def test_placeholder_results_compile_to_batched_kernels():
    x = symgrad.placeholder("x")
    d2 = ops.grad(ops.grad(lambda x: ops.sin(x) * x))(x)
    kernel = symgrad.kernel(d2, [x])
    points = np.linspace(-2, 2, 7)
    (values,) = kernel(points)
    np.testing.assert_allclose(values, 2 * np.cos(points) - points * np.sin(points))
    with pytest.raises(symgrad.UnboundError, match="'x'"):
        d2.asnumpy()


def test_mindspore_2_docstring_examples_of_grad_and_value_and_grad():
    def fn(x, y, z):
        return x * ops.exp(y) * ops.pow(z, 2), z

    x, y, z = (Tensor(np.array(v, np.float32)) for v in ([3, 3], [0, 0], [5, 5]))
    gradient, aux = ops.grad(fn, (1, 2), None, True)(x, y, z)
    np.testing.assert_allclose(gradient[0].asnumpy(), [75, 75])
    np.testing.assert_allclose(gradient[1].asnumpy(), [30, 30])
    assert isinstance(aux, tuple) and len(aux) == 1 and np.allclose(aux[0].asnumpy(), [5, 5])
    output, inputs_gradient = ops.value_and_grad(fn, grad_position=(1, 2), weights=None, has_aux=True)(
        x, y, z
    )
    assert isinstance(output, tuple) and len(output) == 2
    np.testing.assert_allclose(output[0].asnumpy(), [75, 75])
    np.testing.assert_allclose(output[1].asnumpy(), [5, 5])
    np.testing.assert_allclose(inputs_gradient[1].asnumpy(), [30, 30])
    output, g = ops.value_and_grad(lambda x, y, z: x * y * z, grad_position=1)(
        *(Tensor(np.array(v, np.float32)) for v in ([1, 2], [-2, 3], [0, 3]))
    )
    np.testing.assert_allclose(output.asnumpy(), [-0.0, 18.0])
    np.testing.assert_allclose(g.asnumpy(), [0.0, 6.0])


_AXIS_ITEMS = st.one_of(
    st.none(),
    st.integers(-2, 1),
    st.builds(slice, st.one_of(st.none(), st.integers(-2, 1)), st.one_of(st.none(), st.integers(-1, 2))),
)


@settings(max_examples=60, deadline=None)
@given(items=st.lists(_AXIS_ITEMS, max_size=4), ellipsis_at=st.one_of(st.none(), st.integers(0, 4)))
def test_indexing_with_new_axes_and_ellipsis_is_numpys(items, ellipsis_at):
    """``x[None, ..., 0]`` and friends: the same values and shape as NumPy, and the gradient of a sum
    of the picked values counts each element as often as NumPy picks it."""
    base = np.arange(24.0).reshape(2, 3, 4)
    if ellipsis_at is not None:
        items = items[:ellipsis_at] + [Ellipsis] + items[ellipsis_at:]
    index = tuple(items)
    x = Tensor(base)
    try:
        expected = base[index]
    except IndexError:  # too many indices, or an int out of range: NumPy refuses, and so does symgrad
        with pytest.raises(symgrad.OpError, match="getitem"):
            x[index]
        return
    got = x[index]
    assert got.shape == expected.shape and np.array_equal(got.asnumpy(), expected)
    counts = np.zeros_like(base)
    np.add.at(counts, index, 1.0)
    np.testing.assert_array_equal(ops.grad(lambda t: t[index].sum())(x).asnumpy(), counts)


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)),
     ((2, 1, 3, 4), (5, 4, 2))],
)  # fmt: skip
def test_functional_matmul_broadcasts_batch_axes_as_numpy(shape_a, shape_b):
    rng = np.random.default_rng(len(shape_a) + 10 * len(shape_b))
    a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
    np.testing.assert_allclose(ops.matmul(Tensor(a), Tensor(b)).asnumpy(), np.matmul(a, b), rtol=1e-12)
    seed = rng.normal(size=np.matmul(a, b).shape)  # d sum(seed * (a @ b)) / da, against NumPy's own products
    ga, gb = ops.grad(lambda x, y: (ops.matmul(x, y) * Tensor(seed)).sum(), (0, 1))(Tensor(a), Tensor(b))
    h = 1e-6
    for got, base, k in ((ga, a, 0), (gb, b, 1)):
        idx = tuple(0 for _ in base.shape)
        bumped = [a.copy(), b.copy()]
        bumped[k][idx] += h
        up = (np.matmul(*bumped) * seed).sum()
        bumped[k][idx] -= 2 * h
        down = (np.matmul(*bumped) * seed).sum()
        assert got.asnumpy()[idx] == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-8)


def test_hooks_are_at_mindspores_operations_path():
    from symgrad.ops import operations as P

    assert (
        P.Print is ops.Print
        and P.InsertGradientOf is ops.InsertGradientOf
        and P.HookBackward is ops.HookBackward
    )
    tripled = ops.grad(lambda x: P.InsertGradientOf(lambda g: g * 3)(x) * 2)(Tensor(np.array(1.0)))
    assert float(tripled.asnumpy()) == 6.0
