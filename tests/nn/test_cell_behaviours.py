"""MindSpore behaviours of nn's cells beyond the guide: Momentum's update rule, the training wrappers'
Parameter names (the conformance issue), each checked
against an independent value.
"""

from __future__ import annotations

import numpy as np
import pytest

from symgrad import Parameter, Tensor, nn


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
