"""MindSpore behaviours of jit beyond the guide: Python control flow on each call's values, a
returned generator (the conformance issue), each checked
against an independent value.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops


def test_jit_follows_the_values_of_each_call():
    @symgrad.jit
    def f(x):
        return x * 2 if float(x.sum()) > 0 else x * -3

    assert f(Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert f(Tensor([-1.0])).asnumpy().tolist() == [3.0]
    with pytest.warns(UserWarning, match="control flow|float"):
        g = ops.grad(f)(Tensor([-1.0]))
    assert g.asnumpy().tolist() == [-3.0]


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
