"""MindSpore behaviours beyond the guide (the conformance issue), each checked against an independent value."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad import dtype as mstype
from symgrad.ops.functional import derivative, jet, linearize


class Affine(nn.Cell):
    def __init__(self, w, b, requires_grad=True):
        super().__init__()
        self.w = Parameter(w, name="w")
        self.b = Parameter(b, name="b", requires_grad=requires_grad)

    def construct(self, x):
        return self.w * x + self.b


def test_integer_inputs_get_integer_gradients():
    net = Affine(Tensor([6], mstype.int32), Tensor([2], mstype.int32))
    dx = ops.GradOperation()(net)(Tensor([10], mstype.int32))
    assert dx.dtype == mstype.int32 and dx.asnumpy().tolist() == [6]
    dw = ops.GradOperation(get_by_list=True)(net, net.w)(Tensor([10], mstype.int32))
    assert dw.dtype == mstype.int32 and dw.asnumpy().tolist() == [10]
    # through a float op the gradient is truncated toward zero, as Cast does
    g = ops.grad(lambda x: ops.sin(x) * 3)(Tensor([1, 2], mstype.int32))
    assert g.dtype == mstype.int32
    np.testing.assert_array_equal(g.asnumpy(), np.trunc(3 * np.cos([1.0, 2.0])).astype(np.int32))


def test_cast_value_derivative_and_backends():
    x = Tensor(np.array([1.7, -2.5, 0.0]))
    assert x.astype(mstype.int32).asnumpy().tolist() == [1, -2, 0]
    assert ops.Cast()(x, mstype.bool_).asnumpy().tolist() == [True, True, False]
    # float -> float32 -> float: the derivative passes through (cast back to the input's dtype)
    g = ops.grad(lambda v: (ops.cast(v, mstype.float32) ** 2).sum())(x)
    assert g.dtype == mstype.float64
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy(), rtol=1e-6)
    v = symgrad.placeholder("v", (3,))
    for backend in ("numpy", "c"):
        out = symgrad.kernel([ops.cast(v, mstype.int32)], [v], backend=backend)(np.array([[1.7, -2.5, 0.2]]))[
            0
        ]
        np.testing.assert_array_equal(np.asarray(out).ravel(), [1, -2, 0])


def test_comparisons_are_elementwise():
    a, b = Tensor([1.0, 2.0, 3.0]), Tensor([1.0, 0.0, 4.0])
    assert (a == b).asnumpy().tolist() == [True, False, False]
    assert (a != b).asnumpy().tolist() == [False, True, True]
    assert (a <= b).asnumpy().tolist() == [True, False, True]
    assert (a >= b).asnumpy().tolist() == [True, True, False]
    assert bool(Tensor(1, mstype.int32) == 1)
    assert {a: 1}[a] == 1  # still hashable by identity


def test_weights_default_to_trainable_parameters():
    net = Affine(Tensor([3.0]), Tensor([1.0]), requires_grad=False)
    grads = ops.GradOperation(get_by_list=True)(net)(Tensor([2.0]))
    assert len(grads) == 1 and grads[0].asnumpy().tolist() == [2.0]  # only w: b is not trainable


def test_calls_without_tensor_inputs_and_structured_outputs():
    class Constant(nn.Cell):
        def construct(self):
            return 3

    assert ops.GradOperation()(Constant())() == ()
    assert ops.GradOperation(get_all=True, get_by_list=True)(Constant())() == ((), ())
    assert ops.grad(lambda x, y: x + y)(1, 2) == ()

    def nested(x):
        return {"a": x * x, "b": (x * 3, [ops.sin(x)])}

    x = Tensor([0.5, 1.0])
    value, g = ops.value_and_grad(nested)(x)
    assert set(value) == {"a", "b"} and isinstance(value["b"][1], list)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy() + 3 + np.cos(x.asnumpy()), rtol=1e-6)


def test_return_ids_and_get_grad():
    net = Affine(Tensor([2.0, 2.0]), Tensor([3.0, 3.0]))
    x = Tensor([1.0, 2.0])
    res = ops.grad(net, 0, net.trainable_params(), return_ids=True)(x)
    assert res[0][0] == 0 and res[1][0][0] == "w"
    np.testing.assert_allclose(ops.get_grad(res, 0).asnumpy(), [2.0, 2.0])
    np.testing.assert_allclose(ops.get_grad(res, net.w).asnumpy(), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="no gradient for 1"):
        ops.get_grad(res, 1)


def test_error_types_are_the_builtins_mindspore_raises():
    with pytest.raises(RuntimeError, match="empty tuple"):
        ops.grad(ops.sin, ())(Tensor([1.0]))
    with pytest.raises(IndexError, match="out of range"):
        ops.grad(ops.sin, 2)(Tensor([1.0]))
    with pytest.raises(TypeError, match="input 0 and its tangent must be Tensors"):
        ops.jvp(ops.sin, Tensor([1.0]), 1.0)


def test_jit_follows_the_values_of_each_call():
    @symgrad.jit
    def f(x):
        return x * 2 if float(x.sum()) > 0 else x * -3

    assert f(Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert f(Tensor([-1.0])).asnumpy().tolist() == [3.0]
    with pytest.warns(UserWarning, match="control flow|float"):
        g = ops.grad(f)(Tensor([-1.0]))
    assert g.asnumpy().tolist() == [-3.0]


def test_custom_bprop_replaces_the_traced_derivative():
    class MulAdd(nn.Cell):
        def construct(self, x, y):
            return 2 * x + y

        def bprop(self, x, y, out, dout):
            return 2 * dout, 2 * y  # deliberately not the true derivative

    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    dx, dy = ops.GradOperation(get_all=True)(MulAdd())(x, y)
    assert dx.asnumpy().tolist() == [2.0, 2.0] and dy.asnumpy().tolist() == [6.0, 8.0]

    class Scalar(nn.Cell):
        def construct(self, x):
            return x * x

        def bprop(self, x, out, dout):
            return (5.0,)  # a number: MindSpore 2.10 raises RuntimeError ("grad tensor should be broadcast")

    with pytest.raises(
        RuntimeError, match="Scalar.bprop returned float where a Tensor gradient was expected"
    ):
        ops.grad(Scalar())(Tensor([1.0, 2.0]))


def test_aux_and_vjp_structures():
    def fn(x, y):
        return 2 * x + y, y**3

    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    out, vjp_fn, aux = ops.vjp(fn, x, y, has_aux=True)
    assert isinstance(aux, Tensor) and aux.asnumpy().tolist() == [27.0, 64.0]
    gx, gy = vjp_fn(Tensor([1.0, 1.0]))
    assert gx.asnumpy().tolist() == [2.0, 2.0] and gy.asnumpy().tolist() == [1.0, 1.0]
    _, tangent, aux = ops.jvp(fn, (x, y), (Tensor([1.0, 0.0]), Tensor([0.0, 0.0])), has_aux=True)
    assert isinstance(aux, Tensor) and tangent.asnumpy().tolist() == [2.0, 0.0]
    primal, dx = nn.Vjp(lambda v: v * v)(x, Tensor([1.0, 1.0]))
    assert isinstance(dx, Tensor) and dx.asnumpy().tolist() == [2.0, 4.0]


def test_vjp_with_weights():
    net = Affine(Tensor([2.0, 2.0]), Tensor([3.0, 3.0]))
    x = Tensor([1.0, 5.0])
    out, vjp_fn = ops.vjp(net, x, weights=net.trainable_params())
    (dx,), (dw, db) = vjp_fn(Tensor([1.0, 1.0]))
    assert dx.asnumpy().tolist() == [2.0, 2.0] and dw.asnumpy().tolist() == [1.0, 5.0]
    assert db.asnumpy().tolist() == [1.0, 1.0]


def test_jet_and_derivative_match_the_chain_rule():
    # f(x) = exp(sin x) along x(t) = x0 + t: the derivatives are those of exp(sin(x0 + t)) at t = 0
    def f(x):
        return ops.exp(ops.sin(x))

    x0 = 0.7
    s, c, e = math.sin(x0), math.cos(x0), math.exp(math.sin(x0))
    d1 = e * c
    d2 = e * (c * c - s)
    d3 = e * (c**3 - 3 * s * c - c)
    primal, series = jet(f, Tensor([x0], mstype.float64), Tensor([[1.0], [0.0], [0.0]], mstype.float64))
    np.testing.assert_allclose(primal.asnumpy(), [e], rtol=1e-12)
    np.testing.assert_allclose(series.asnumpy().ravel(), [d1, d2, d3], rtol=1e-12)
    _, third = derivative(f, Tensor([x0], mstype.float64), 3)
    np.testing.assert_allclose(third.asnumpy(), [d3], rtol=1e-12)
    # a curved path: x(t) = x0 + t + t^2 (series rows 1 and 2), so (f∘x)'' = f'' + 2 f'
    _, series = jet(f, Tensor([x0], mstype.float64), Tensor([[1.0], [2.0]], mstype.float64))
    np.testing.assert_allclose(series.asnumpy().ravel(), [d1, d2 + 2 * d1], rtol=1e-12)


def test_linearize_is_jvp_at_a_fixed_point():
    x = Tensor([1.0, 2.0])
    primal, jvp_fn = linearize(lambda v: v**3, x)
    np.testing.assert_allclose(primal.asnumpy(), [1.0, 8.0])
    np.testing.assert_allclose(jvp_fn(Tensor([1.0, 0.5])).asnumpy(), [3.0, 6.0])


def test_small_surface_ops():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    a, b = ops.split(x, 1, axis=0)
    assert a.shape == (1, 3) and b.asnumpy().tolist() == [[3.0, 4.0, 5.0]]
    assert ops.concat((x, x), 1).shape == (2, 6)
    np.testing.assert_array_equal(ops.concat((x, x), 1).asnumpy(), np.concatenate([x.asnumpy()] * 2, 1))
    assert ops.Shape()(x) == (2, 3)
    assert ops.ReduceMax()(x, 1).asnumpy().tolist() == [2.0, 5.0]
    g = ops.grad(lambda v: ops.ReduceMax()(v, 1).sum())(x)
    assert g.asnumpy().tolist() == [[0, 0, 1], [0, 0, 1]]
    assert ops.AddN()((x, x, x)).asnumpy().tolist() == (3 * x.asnumpy()).tolist()
    np.testing.assert_allclose(
        ops.gelu(Tensor([1.0])).asnumpy(), [0.5 * (1 + math.erf(1 / math.sqrt(2)))], rtol=1e-6
    )
    assert ops.ones_like(x).asnumpy().sum() == 6 and symgrad.initializer("zeros", (2,)).shape == (2,)
    batched = ops.vmap(lambda v: (v * v).sum())(x)
    assert batched.asnumpy().tolist() == [5.0, 50.0]


def test_sens_for_a_dict_output_is_a_dict_of_the_same_keys():
    def fn(x):
        return {"square": x * x, "sine": ops.sin(x)}

    x = Tensor(np.array([0.3, -1.2]))
    sens = {"square": Tensor(np.array([2.0, 3.0])), "sine": Tensor(np.array([-1.0, 0.5]))}
    got = ops.GradOperation(sens_param=True)(fn)(x, sens)
    expected = 2 * x.asnumpy() * [2.0, 3.0] + np.cos(x.asnumpy()) * [-1.0, 0.5]
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-14)
    with pytest.raises(symgrad.errors.GradError, match="sens must match the network output"):
        ops.GradOperation(sens_param=True)(fn)(x, {"square": sens["square"]})


def test_momentum_follows_mindsporess_update_rule():
    p = Parameter(Tensor(np.array([1.0, -2.0])), name="p")
    opt = nn.Momentum([p], learning_rate=0.1, momentum=0.9, weight_decay=0.01)
    g1, g2 = np.array([0.5, 0.25]), np.array([-1.0, 2.0])
    opt((Tensor(g1),))
    accum = g1 + 0.01 * np.array([1.0, -2.0])
    expected = np.array([1.0, -2.0]) - 0.1 * accum
    np.testing.assert_allclose(p.asnumpy(), expected)
    opt((Tensor(g2),))
    accum = 0.9 * accum + g2 + 0.01 * expected
    np.testing.assert_allclose(p.asnumpy(), expected - 0.1 * accum)
    with pytest.raises(ValueError, match="Momentum: 2 gradients for 1 parameters"):
        opt((Tensor(g1), Tensor(g2)))


def test_forward_value_and_grad_and_train_one_step():
    net = Affine(Tensor(np.array([2.0])), Tensor(np.array([0.5])))
    x = Tensor(np.array([3.0]))
    value, (gx, gw) = nn.ForwardValueAndGrad(net, get_all=True, get_by_list=True)(x)
    np.testing.assert_allclose(value.asnumpy(), [6.5])
    np.testing.assert_allclose(gx[0].asnumpy(), [2.0])
    np.testing.assert_allclose([g.asnumpy()[0] for g in gw], [3.0, 1.0])
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), 0.01, 0.0))
    label = Tensor(np.array([10.0]))
    loss = step(x, label)  # (6.5 - 10)^2 = 12.25; d/dw = 2 (w x + b - y) x = -21, d/db = -7
    np.testing.assert_allclose(loss.asnumpy(), 12.25)
    np.testing.assert_allclose(net.w.asnumpy(), [2.0 + 0.21])
    np.testing.assert_allclose(net.b.asnumpy(), [0.5 + 0.07])
    assert step(x, label).asnumpy() < 12.25


def test_integer_tensors_index_tensors_and_lists():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    i = Tensor(1, mstype.int32)
    np.testing.assert_array_equal(x[i].asnumpy(), [3.0, 4.0, 5.0])
    assert x[i, Tensor(2, mstype.int32)].asnumpy() == 5.0 and [10, 20, 30][i] == 20
    np.testing.assert_array_equal(ops.grad(lambda t: t[i].sum())(x).asnumpy(), [[0, 0, 0], [1, 1, 1]])
    with pytest.raises(TypeError, match="only a one-element integer Tensor can be an index"):
        x[Tensor(np.array([1.0]))]


def test_keyword_arguments_reach_the_function_and_sens_may_be_one():
    x, sens = Tensor(np.array([1.0, 2.0])), Tensor(np.array([1.0, -1.0]))
    tanh_form = ops.GradOperation(get_all=True)(ops.gelu)(x, approximate="tanh")[0].asnumpy()
    exact_form = ops.GradOperation(get_all=True)(ops.gelu)(x)[0].asnumpy()
    assert not np.allclose(tanh_form, exact_form)
    weighted = ops.GradOperation(get_all=True, sens_param=True)(ops.gelu)(x, sens=sens, approximate="tanh")
    np.testing.assert_allclose(weighted[0].asnumpy(), tanh_form * [1.0, -1.0])


def test_gradient_hooks_and_print(capsys):
    x = Tensor(np.array([2.0]))

    def double(g):
        return g * 2

    insert = ops.InsertGradientOf(double)
    # d/dx (x^2)^2 = 4 x^3 = 32; the hook doubles the gradient of x^2 on its way back
    np.testing.assert_allclose(ops.grad(lambda t: ops.square(insert(t * t)))(x).asnumpy(), [64.0])
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g.asnumpy()))
    np.testing.assert_allclose(ops.grad(lambda t: ops.square(hook(t * 3)))(x).asnumpy(), [36.0])
    np.testing.assert_allclose(seen[0], [12.0])  # the gradient at the hook: 2 (3x)
    ops.Print()("x is", x)
    assert "x is [2.]" in capsys.readouterr().out
    assert ops.TensorAdd()(x, x).asnumpy() == 4.0
    from symgrad.common import ParameterTuple, dtype

    assert ParameterTuple is symgrad.ParameterTuple and dtype.float32 is symgrad.float32


# ----- item assignment -----


def test_item_assignment_matches_numpy_and_rebinds_only_that_tensor(rng):
    data = rng.normal(size=(2, 3, 4)).astype(np.float32)
    x = Tensor(data)
    kept = x + 0  # built before: keeps the old values
    x[1, :, 0:2] = 5.0
    x[Tensor(np.array(0, np.int32)), 2] = Tensor(np.arange(4, dtype=np.float32))
    x[x > 1.0] = -1.0
    expected = data.copy()
    expected[1, :, 0:2] = 5.0
    expected[0, 2] = np.arange(4)
    expected[expected > 1.0] = -1.0
    assert x.dtype == mstype.float32
    np.testing.assert_array_equal(x.asnumpy(), expected)
    np.testing.assert_array_equal(kept.asnumpy(), data)


def test_item_assignment_gradients_go_to_the_value_where_written_and_to_x_elsewhere(rng):
    a, v = rng.normal(size=(2, 3)), rng.normal(size=(2,))

    def f(a, v):
        a[1, 0:2] = v * 2.0  # on the traced input itself
        return (a * a * a).sum()

    ga, gv = ops.grad(f, (0, 1))(Tensor(a), Tensor(v))
    kept = np.ones((2, 3))
    kept[1, 0:2] = 0
    np.testing.assert_allclose(ga.asnumpy(), 3 * a**2 * kept, rtol=1e-12)
    np.testing.assert_allclose(gv.asnumpy(), 24 * v**2, rtol=1e-12)  # d/dv sum (2v)^3
    report = symgrad.verify(f, Tensor(a), Tensor(v))  # closed form of a constant-mask Select, too
    assert report.ok, str(report)


def test_item_assignment_in_a_while_loop_as_mindspore_control_flow_tests_it():
    """MindSpore's test_while_grad: each slice takes its maximum; the gradient is the argmax."""

    class WhileNet(nn.Cell):
        def construct(self, idx, end, x):
            while idx < end:
                x[idx, :, 0:2] = ops.ReduceMax()(x[idx, :, :])
                idx = idx + 1
            return x

    data = np.array([[[4, 0], [0, 0]], [[0, 4], [0, 0]]], np.float32)
    x = Tensor(data)
    with pytest.warns(UserWarning, match="control flow"):
        grads = ops.GradOperation(get_all=True)(WhileNet())(
            Tensor(0, mstype.int32), Tensor(2, mstype.int32), x
        )
    np.testing.assert_array_equal(grads[2].asnumpy(), data)  # 4 at each block's maximum
    np.testing.assert_array_equal(x.asnumpy(), data)  # the caller's tensor is unchanged


def test_item_assignment_errors_name_the_shapes():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"__setitem__: value of shape \(4,\) cannot be broadcast.*\(3,\)"):
        x[0] = Tensor(np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"bool mask of shape \(3,\) for a tensor of shape \(2, 3\)"):
        x[np.array([True, False, True])] = 1.0
    with pytest.raises(ValueError, match=r"bool mask the value must be one number, got shape \(2,\)"):
        x[np.ones((2, 3), bool)] = Tensor(np.ones(2, np.float32))
    with pytest.raises(ValueError, match="out of range"):
        x[5] = 1.0


def test_parameter_item_assignment_writes_the_weight():
    w = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")
    before = w * 1
    w[0, 1:] = Tensor(np.array([1.0, 2.0], np.float32))
    w[Tensor(np.array(1))] = 7
    np.testing.assert_array_equal(w.asnumpy(), [[0, 1, 2], [7, 7, 7]])
    assert w.dtype == mstype.float32 and before.asnumpy().sum() == 0
    with pytest.raises(
        ValueError, match=r"Parameter 'w': cannot set index 0 of shape \(2, 3\) to a value of shape \(5,\)"
    ):
        w[0] = np.ones(5)


# ----- requires_grad in PyNative and graph mode -----


class _Scaled(nn.Cell):
    def __init__(self, frozen_at_start: bool):
        super().__init__()
        self.p1 = Parameter(Tensor(2.0, mstype.float32), name="p1")
        self.p2 = Parameter(Tensor(3.0, mstype.float32), name="p2", requires_grad=not frozen_at_start)
        self.frozen_at_start = frozen_at_start

    def construct(self, x):
        out = x * self.p1 * self.p2
        self.p2.requires_grad = False  # MindSpore looks at the flag when the call ends
        return out


@pytest.mark.parametrize("frozen_at_start", [False, True])
def test_frozen_parameters_get_zero_gradients_in_pynative_and_real_ones_in_graph_mode(frozen_at_start):
    """Measured on MindSpore 2.10 CPU: (12, 0) in PyNative (its default), (12, 8) in graph mode."""
    assert symgrad.get_context("mode") == symgrad.PYNATIVE_MODE
    x = Tensor([4.0], mstype.float32)
    for mode, expected in ((symgrad.PYNATIVE_MODE, [12.0, 0.0]), (symgrad.GRAPH_MODE, [12.0, 8.0])):
        symgrad.set_context(mode=mode)
        net = _Scaled(frozen_at_start)
        grads = ops.GradOperation(get_by_list=True)(net, [net.p1, net.p2])(x)
        assert [float(g.asnumpy().sum()) for g in grads] == expected
        assert grads[1].dtype == mstype.float32 and grads[1].shape == ()


def test_init_parameters_data_keeps_the_parameters():
    net = _Scaled(False)
    assert net.init_parameters_data() == {}
    assert float(net.p1.asnumpy()) == 2.0 and float(net.p2.asnumpy()) == 3.0


# ----- bprop of a cell with several outputs -----


def test_bprop_of_a_multi_output_cell_runs_once_with_dout_shaped_like_out():
    calls = []

    class Two(nn.Cell):
        def construct(self, x, y):
            return x * y, (x + y, x - y)

        def bprop(self, x, y, out, dout):
            calls.append(dout)
            d0, (d1, d2) = dout
            assert isinstance(out[1], tuple) and len(out[1]) == 2
            return d0 * y + d1 + d2, d0 * x + d1 - d2

    net = Two()

    def g(x, y):
        p, (s, d) = net(x, y)
        return (p * 1 + s * 10 + d * 100).sum()

    x, y = Tensor(np.array([2.0, 5.0])), Tensor(np.array([3.0, -1.0]))
    gx, gy = ops.grad(g, (0, 1))(x, y)
    assert len(calls) == 1
    np.testing.assert_array_equal(gx.asnumpy(), y.asnumpy() + 110)
    np.testing.assert_array_equal(gy.asnumpy(), x.asnumpy() - 90)
    np.testing.assert_array_equal(net(x, y)[1][1].asnumpy(), [-1.0, 6.0])  # values pass unchanged


def test_a_bprop_that_ignores_dout_counts_once_not_once_per_output():
    """MindSpore's test_grad_in_bprop_2: a constant bprop of a cell with two outputs gives its value."""

    class Constant(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

        def bprop(self, x, out, dout):
            return ops.ones_like(x) * 7

    (g,) = ops.GradOperation(get_all=True)(Constant())(Tensor(np.array([1.0, 2.0], np.float32)))
    assert g.dtype == mstype.float32
    np.testing.assert_array_equal(g.asnumpy(), [7.0, 7.0])


def test_hook_backward_sees_each_inputs_own_gradient():
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g.asnumpy().copy()))

    def f(x, y):
        a, b = hook(x, y)
        return (a * 2 + b * 3).sum()

    grads = ops.grad(f, (0, 1))(Tensor(np.ones(2)), Tensor(np.ones(2)))
    assert [g.asnumpy().tolist() for g in grads] == [[2.0, 2.0], [3.0, 3.0]]
    assert [s.tolist() for s in seen] == [[2.0, 2.0], [3.0, 3.0]]  # no zero-filled calls


def test_jit_evaluates_a_returned_generator_into_a_list():
    class Squares(nn.Cell):
        @symgrad.jit
        def construct(self, x):
            return (k * k for k in range(10) if k > 5)

    net = Squares()
    x = Tensor(np.full((2, 3), 5.0, np.float32))
    assert net(x) == [36, 49, 64, 81]
    grad = ops.GradOperation()(net)(x)  # no Tensor in the output: a zero gradient
    np.testing.assert_array_equal(grad.asnumpy(), np.zeros((2, 3)))


# ----- MultitypeFuncGraph and HyperMap -----


def test_hyper_map_of_a_multitype_func_graph_as_mindspore_returns_it():
    """Expected values printed by MindSpore 2.10 CPU for the same calls."""
    from symgrad.ops.composite import HyperMap, MultitypeFuncGraph

    add = MultitypeFuncGraph("add")

    @add.register("Tensor", "Tensor")
    def _tensors(a, b):
        return a + b

    @add.register("Number", "Number")
    def _numbers(a, b):
        return a * 10 + b

    t = Tensor(np.array([1.0, 2.0], np.float32))
    mapped = HyperMap(add)((t, 1), (t, 2))
    assert mapped[1] == 12 and mapped[0].asnumpy().tolist() == [2.0, 4.0]
    assert HyperMap(add)([1, (2, 3)], [4, (5, 6)]) == (14, (25, 36))  # lists map to a tuple
    assert HyperMap()(add, (1, 2), (3, 4)) == (13, 24)
    with pytest.raises(ValueError, match=r"'add': no function registered for \(str, int\)"):
        add("a", 1)


def test_gradient_through_a_hyper_mapped_branch():
    """MindSpore's test_grad_operation_hypermap_control_flow: both branches pick z."""
    ctrl = ops.MultitypeFuncGraph("ctrl")

    @ctrl.register("Tensor", "Tuple")
    def _pick(x, pair):
        return pair[0] if x > 0 else pair[1]

    class Net(nn.Cell):
        def construct(self, x, y, z):
            return ops.HyperMap(ctrl)((x, y), ((z, x), (y, z)))

    args = [Tensor(v, mstype.float32) for v in (2.0, -3.0, 0.5)]
    with pytest.warns(UserWarning, match="control flow"):
        grads = ops.GradOperation(get_all=True)(Net())(*args)
    assert [float(g.asnumpy()) for g in grads] == [0.0, 0.0, 2.0]


# ----- BatchNorm, and vjp running the function once -----

_BN_X = np.array([[1.0, 2.0], [3.0, 7.0], [0.5, -1.0]], np.float32)


def _bn_params(tag: str):
    values = ([1.5, 0.5], [0.1, -0.2], [0.3, 0.4], [2.0, 3.0])
    return [Parameter(Tensor(np.array(v, np.float32)), name=f"{n}{tag}") for n, v in zip("sbmv", values)]


def test_batch_norm_matches_mindspore_in_inference_and_training():
    """Expected values printed by MindSpore 2.10 CPU for the same inputs."""
    scale, bias, mean, var = _bn_params("i")
    out = ops.BatchNorm()(Tensor(_BN_X), scale, bias, mean, var)
    np.testing.assert_allclose(out[0].asnumpy()[1], [2.963775157928467, 1.7052526473999023], rtol=1e-6)
    assert all(o.asnumpy().tolist() == [0.0, 0.0] for o in out[1:])
    assert mean.asnumpy().tolist() == np.float32([0.3, 0.4]).tolist()  # inference keeps the statistics

    scale, bias, mean, var = _bn_params("t")
    y, zero1, zero2, batch_mean, batch_var = ops.BatchNorm(is_training=True)(
        Tensor(_BN_X), scale, bias, mean, var
    )
    np.testing.assert_allclose(y.asnumpy()[0], [-0.5943620800971985, -0.3010152280330658], rtol=1e-6)
    np.testing.assert_allclose(batch_mean.asnumpy(), [1.5, 2.6666667461395264], rtol=1e-6)
    np.testing.assert_allclose(batch_var.asnumpy(), [1.1666666269302368, 10.888888359069824], rtol=1e-6)
    assert zero1.asnumpy().tolist() == zero2.asnumpy().tolist() == [0.0, 0.0]
    np.testing.assert_allclose(mean.asnumpy(), [0.42000001668930054, 0.6266666650772095], rtol=1e-6)
    np.testing.assert_allclose(var.value().asnumpy(), [1.9749999046325684, 4.3333330154418945], rtol=1e-6)


def test_batch_norm_gradient_flows_through_the_batch_statistics():
    weights = Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))

    def f(x, s, b):
        mean, var = (Parameter(Tensor(np.full(2, v)), name=n) for n, v in (("m", 0.0), ("v", 1.0)))
        y = ops.BatchNorm(is_training=True)(x, s, b, mean, var)[0]
        return (y**2 * weights).sum()

    args = [Tensor(_BN_X.astype(np.float64)), Tensor(np.array([1.5, 0.5])), Tensor(np.array([0.1, -0.2]))]
    report = symgrad.verify(f, *args)
    assert report.ok, str(report)
    gx = ops.grad(f)(*args).asnumpy()
    np.testing.assert_allclose(
        gx[:, 0], [5.374113082885742, -1.074663519859314, -4.299448490142822], rtol=2e-5
    )
    with pytest.raises(
        ValueError, match=r"BatchNorm: scale must have shape \(2,\) for input_x of shape \(3, 2\), got \(3,\)"
    ):
        ops.BatchNorm()(args[0], Tensor(np.ones(3)), *args[2:], Tensor(np.zeros(2)), Tensor(np.ones(2)))


def test_vjp_runs_the_function_once_however_often_vjp_fn_is_called():
    """MindSpore's test_vjp_multiple_outputs_merge_forward: the moving variance moves once."""
    calls = []

    def f(x):
        calls.append(1)
        return x * x, ops.sin(x)

    x = Tensor(np.array([0.5, 2.0]))
    outputs, vjp_fn = ops.vjp(f, x)
    ones, zeros = Tensor(np.ones(2)), Tensor(np.zeros(2))
    (first,), (second,) = vjp_fn((ones, zeros)), vjp_fn((zeros, ones))
    assert len(calls) == 1
    np.testing.assert_allclose(first.asnumpy(), 2 * x.asnumpy())
    np.testing.assert_allclose(second.asnumpy(), np.cos(x.asnumpy()))
    with pytest.raises(ValueError, match=r"sens\[1\] has shape \(3,\)"):
        vjp_fn((ones, Tensor(np.ones(3))))


def test_a_constant_output_with_a_sens_gives_zero_gradients():
    """MindSpore's test_grad_operation_dynamic_shape: the output is a shape, the sens too."""

    class ShapeOf(nn.Cell):
        def construct(self, x):
            return ops.Shape()(x)

    x = Tensor(np.arange(8, dtype=np.int32))
    (grad,) = ops.GradOperation(get_all=True, sens_param=True)(ShapeOf())(x, ShapeOf()(x))
    assert grad.dtype == mstype.int32 and grad.asnumpy().tolist() == [0] * 8
    with pytest.raises(ValueError, match="sens must match the network output"):
        ops.GradOperation(sens_param=True)(lambda x: x * 2)(Tensor(np.ones(2)), (1, 2))


class _ScaledBprop(nn.Cell):
    """A cell whose bprop reads its own Parameter (MindSpore's test_with_param)."""

    def __init__(self):
        super().__init__()
        self.scale = Parameter(Tensor(np.array(2.0, np.float32)), name="scale")

    def construct(self, x):
        return x * self.scale

    def bprop(self, x, out, dout):
        return (dout * self.scale * 3,)


def test_a_bprop_reading_a_parameter_is_refused_in_graph_mode_and_runs_in_pynative():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    grad = ops.GradOperation()
    previous = symgrad.context.get_context("mode")
    try:
        symgrad.context.set_context(mode=symgrad.context.GRAPH_MODE)
        with pytest.raises(RuntimeError, match="does not support using Parameter"):
            grad(_ScaledBprop())(x)
        symgrad.context.set_context(mode=symgrad.context.PYNATIVE_MODE)
        np.testing.assert_allclose(grad(_ScaledBprop())(x).asnumpy(), [6.0, 6.0])  # the bprop's, not 2
    finally:
        symgrad.context.set_context(mode=previous)


def test_a_bprop_decorated_with_jit_is_refused_as_in_mindspore():
    class JitBprop(nn.Cell):
        def construct(self, x):
            return ops.relu(x)

        @symgrad.jit
        def bprop(self, x, out, dout):
            return (5 * x,)

    with pytest.raises(RuntimeError, match="decorating bprop with '@jit' is not supported"):
        ops.GradOperation()(JitBprop())(Tensor(np.array([2.0], np.float32)))


def test_register_hook_on_a_parameter_an_intermediate_and_an_input():
    seen = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
            self.handle = self.w.register_hook(lambda g: g * 10)

        def construct(self, x):
            y = x * self.w
            y.register_hook(lambda g: (seen.append(g.asnumpy()), g * 2)[1])
            return (y * y).sum()

    net, x = Net(), Tensor(np.array([1.0, 1.0], np.float32))
    (dx,), (dw,) = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(x)
    np.testing.assert_allclose(seen[0], [4.0, 6.0])  # d(sum y^2)/dy before the hook doubles it
    np.testing.assert_allclose(dx.asnumpy(), [16.0, 36.0])  # 2 * 2y * w
    np.testing.assert_allclose(dw.asnumpy(), [80.0, 120.0])  # 2 * 2y * x, then x 10
    net.handle.remove()
    (dw,) = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x)
    np.testing.assert_allclose(dw.asnumpy(), [8.0, 12.0])
    z = Tensor(np.array([1.0, 2.0], np.float32))
    z.register_hook(lambda g: g + 100)
    np.testing.assert_allclose(ops.grad(lambda t: (t * t).sum())(z).asnumpy(), [102.0, 104.0])
    with pytest.raises(TypeError, match="hook must be callable"):
        z.register_hook("not a function")


def test_wrappers_leave_their_networks_parameter_names_alone_as_mindspore_does():
    """MindSpore 2.10 printed these names for the same cells (WithLossCell, TrainOneStepCell and
    ForwardValueAndGrad are built with auto_prefix=False; a cell made in __init__ is prefixed)."""
    net = nn.Dense(3, 2)
    wrapped = nn.WithLossCell(net, nn.MSELoss())
    assert [p.name for p in wrapped.trainable_params()] == ["weight", "bias"]

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = nn.Dense(2, 2)

    outer = Outer()
    nn.TrainOneStepCell(nn.WithLossCell(outer, nn.MSELoss()), nn.SGD(outer.trainable_params(), 0.1))
    assert [p.name for p in outer.trainable_params()] == ["inner.weight", "inner.bias"]
    assert [p.name for p in nn.SequentialCell([nn.Dense(2, 2), nn.Dense(2, 1)]).trainable_params()] == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
    ]


def test_stop_gradient_of_a_number_is_the_number_as_in_mindspore():
    """MindSpore 2.10: ops.stop_gradient(3) returns 3 (symgrad raised AttributeError)."""
    from symgrad import ops

    assert ops.stop_gradient(3) == 3 and ops.stop_gradient(2.5) == 2.5
    kept = ops.stop_gradient((1, symgrad.Tensor(np.ones(2))))
    assert kept[0] == 1 and np.array_equal(kept[1].asnumpy(), np.ones(2))
