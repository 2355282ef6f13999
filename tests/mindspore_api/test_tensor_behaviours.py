"""MindSpore behaviours of Tensor beyond the guide: casts, comparisons, integer Tensors as indices,
item assignment (the conformance issue), each checked
against an independent value.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad import dtype as mstype


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


def test_integer_tensors_index_tensors_and_lists():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    i = Tensor(1, mstype.int32)
    np.testing.assert_array_equal(x[i].asnumpy(), [3.0, 4.0, 5.0])
    assert x[i, Tensor(2, mstype.int32)].asnumpy() == 5.0 and [10, 20, 30][i] == 20
    np.testing.assert_array_equal(ops.grad(lambda t: t[i].sum())(x).asnumpy(), [[0, 0, 0], [1, 1, 1]])
    with pytest.raises(TypeError, match="only a one-element integer Tensor can be an index"):
        x[Tensor(np.array([1.0]))]


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
