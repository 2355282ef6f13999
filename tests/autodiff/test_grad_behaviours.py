"""MindSpore behaviours of the differentiation API beyond the guide: gradients' dtypes and structures,
return_ids, vjp, jvp, jet, linearize, sens, hooks, frozen Parameters, stop_gradient (the conformance issue), each checked
against an independent value.
"""

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


def test_stop_gradient_of_a_number_is_the_number_as_in_mindspore():
    """MindSpore 2.10: ops.stop_gradient(3) returns 3 (symgrad raised AttributeError)."""
    from symgrad import ops

    assert ops.stop_gradient(3) == 3 and ops.stop_gradient(2.5) == 2.5
    kept = ops.stop_gradient((1, symgrad.Tensor(np.ones(2))))
    assert kept[0] == 1 and np.array_equal(kept[1].asnumpy(), np.ones(2))
