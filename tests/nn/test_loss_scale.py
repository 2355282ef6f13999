"""Loss scaling (MindSpore's TrainOneStepWithLossScaleCell, its update cells and the amp managers).

MindSpore 2.10 cannot run its loss-scale step on the CPU (NPUGetFloatStatusV2 has no CPU kernel),
so the reference here is MindSpore's documented rule written out in NumPy: a Dense layer, MSE and
SGD stepped by hand in float64, the overflow decided by where float32 would overflow.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn

FLOAT32_MAX = float(np.finfo(np.float32).max)
X = np.linspace(-30, 40, 12, dtype=np.float32).reshape(4, 3)
Y = np.ones((4, 2), np.float32)


def _dense(lib):
    net = lib.nn.Dense(3, 2)
    for k, p in enumerate(net.get_parameters()):
        p.set_data(lib.Tensor((np.sin(np.arange(p.size) + k) * 0.5).astype(np.float32).reshape(p.shape)))
    return net


def _reference(steps: int, scale: float, factor: float, window: int, lr: float):
    """(loss, overflow, scale after the step) per step and the final weights, by MindSpore's rule."""
    w = (np.sin(np.arange(6) + 0) * 0.5).reshape(2, 3).astype(np.float32).astype(np.float64)
    b = (np.sin(np.arange(2) + 1) * 0.5).astype(np.float32).astype(np.float64)
    x, y = X.astype(np.float64), Y.astype(np.float64)
    current, last, rows = 1, 0, []
    for _ in range(steps):
        out = x @ w.T + b
        loss = np.mean((out - y) ** 2)
        g_out = 2 * (out - y) / out.size
        g_w, g_b = g_out.T @ x, g_out.sum(0)
        largest = max(np.abs(g_out).max(), np.abs(g_w).max(), np.abs(g_b).max()) * scale
        overflow = largest > FLOAT32_MAX
        if overflow:
            scale = max(scale / factor, 1.0)
        increase = current - last >= window
        if overflow or increase:
            last = current
        if increase and not overflow:
            scale *= factor
        current += 1
        if not overflow:
            w, b = w - lr * g_w, b - lr * g_b
        rows.append((loss, overflow, scale))
    return rows, (w, b)


def test_a_dynamic_scale_skips_overflowing_steps_and_grows_after_its_window():
    net = _dense(symgrad)
    step = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net, nn.MSELoss()),
        nn.SGD(net.trainable_params(), learning_rate=1e-3),
        nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0**126, scale_factor=16, scale_window=2),
    )
    expected, (w, b) = _reference(9, 2.0**126, 16.0, 2, 1e-3)
    assert any(o for _, o, _ in expected) and not all(o for _, o, _ in expected)  # the case is not vacuous
    for k, (loss, overflow, scale) in enumerate(expected):
        got_loss, got_overflow, got_scale = step(Tensor(X), Tensor(Y))
        assert bool(got_overflow.asnumpy()) == overflow, k
        assert float(got_scale.asnumpy()) == scale, k
        np.testing.assert_allclose(float(got_loss.asnumpy()), loss, rtol=1e-5)
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-5)
    np.testing.assert_allclose(net.bias.asnumpy(), b, rtol=1e-5)


def test_a_fixed_scale_trains_as_no_scale_and_set_sense_scale_changes_it():
    plain, scaled = _dense(symgrad), _dense(symgrad)
    step = nn.TrainOneStepCell(nn.WithLossCell(plain, nn.MSELoss()), nn.SGD(plain.trainable_params(), 1e-3))
    fixed = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(scaled, nn.MSELoss()),
        nn.SGD(scaled.trainable_params(), 1e-3),
        Tensor(np.array([1024.0], np.float32)),
    )
    for _ in range(3):
        step(Tensor(X), Tensor(Y))
        _, overflow, scale = fixed(Tensor(X), Tensor(Y))
        assert not bool(overflow.asnumpy()) and float(scale.asnumpy().ravel()[0]) == 1024.0
    np.testing.assert_allclose(scaled.weight.asnumpy(), plain.weight.asnumpy(), rtol=1e-6)
    fixed.set_sense_scale(Tensor(np.array([2.0**127], np.float32)))
    before = scaled.weight.asnumpy().copy()
    _, overflow, _ = fixed(Tensor(X), Tensor(Y))
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(scaled.weight.asnumpy(), before)  # the step was skipped


def test_the_managers_follow_mindspores_rule_and_feed_model():
    manager = symgrad.amp.DynamicLossScaleManager(init_loss_scale=8, scale_factor=2, scale_window=3)
    scales = []
    for overflow in (True, False, False, False, True, False):
        manager.update_loss_scale(overflow)
        scales.append(manager.get_loss_scale())
    assert scales == [4, 4, 4, 8, 4, 4]
    assert isinstance(manager.get_update_cell(), nn.DynamicLossScaleUpdateCell)
    fixed = symgrad.FixedLossScaleManager(64.0, drop_overflow_update=False)
    assert fixed.get_update_cell() is None and fixed.get_loss_scale() == 64.0
    assert isinstance(symgrad.FixedLossScaleManager(64.0).get_update_cell(), nn.FixedLossScaleUpdateCell)

    batches = [(X, Y)] * 3
    results = []
    for kwargs in ({}, {"loss_scale_manager": symgrad.DynamicLossScaleManager(2.0**10, 2, 100)}):
        net = _dense(symgrad)
        model = symgrad.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 1e-3), **kwargs)
        model.train(2, batches)
        results.append(net.weight.asnumpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


def test_bad_scales_are_named():
    with pytest.raises(ValueError, match="'init_loss_scale' must be > 1"):
        symgrad.DynamicLossScaleManager(init_loss_scale=0.5)
    with pytest.raises(ValueError, match="'loss_scale' must be >= 1"):
        symgrad.FixedLossScaleManager(0)
    with pytest.raises(ValueError, match="'scale_window' must be a positive int"):
        nn.DynamicLossScaleUpdateCell(8.0, 2, 0)
    net = _dense(symgrad)
    with pytest.raises(ValueError, match=r"the shape of 'scale_sense' must be \(1,\) or \(\)"):
        nn.TrainOneStepWithLossScaleCell(
            net, nn.SGD(net.trainable_params(), 0.1), Tensor(np.ones(2, np.float32))
        )
    with pytest.raises(TypeError, match="the 'scale_sense' must be Cell or Tensor"):
        nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1), 4.0)
    with pytest.raises(TypeError, match="Model: loss_scale_manager must be a LossScaleManager"):
        symgrad.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1), loss_scale_manager=4.0)
