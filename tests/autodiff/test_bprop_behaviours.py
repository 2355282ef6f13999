"""MindSpore behaviours of a Cell's custom bprop and of HookBackward beyond the guide (the conformance issue), each checked
against an independent value.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad import dtype as mstype


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
