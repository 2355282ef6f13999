"""A jitted training step is traced once per signature into one kernel whose outputs are the loss and
the new weights and optimizer state, reused while shapes and dtypes stay, and equal to the un-jitted
step (the same NumPy operations in the same order: equal to the last bit, asserted to 1e-12)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, context, nn, ops, train_step

wrap = importlib.import_module("symgrad.nn.wrap")

OPTIMIZERS = {
    "Momentum": lambda ps: nn.Momentum(ps, 0.05, 0.9),
    "Momentum nesterov, decay": lambda ps: nn.Momentum(ps, 0.05, 0.9, weight_decay=0.01, use_nesterov=True),
    "SGD": lambda ps: nn.SGD(ps, 0.1, momentum=0.5, dampening=0.1, weight_decay=0.01),
    "SGD plain": lambda ps: nn.SGD(ps, 0.1),
    "Adam": lambda ps: nn.Adam(ps, 0.01),
    "Adam amsgrad, loss scale": lambda ps: nn.Adam(ps, 0.01, use_amsgrad=True, loss_scale=4.0),
    "AdamWeightDecay": lambda ps: nn.AdamWeightDecay(ps, 0.01, weight_decay=0.1),
    "schedule Cell": lambda ps: nn.Momentum(ps, nn.ExponentialDecayLR(0.1, 0.9, 2), 0.9),
    "cosine schedule": lambda ps: nn.Adam(ps, nn.CosineDecayLR(0.001, 0.01, 4)),
    "per-step list": lambda ps: nn.SGD(ps, [0.1, 0.05, 0.02, 0.01, 0.01, 0.01, 0.01]),
}


def _network(dtype=np.float64, seed: int = 0) -> nn.Cell:
    rng = np.random.default_rng(seed)
    net = nn.SequentialCell([nn.Dense(3, 5), nn.Tanh(), nn.Dense(5, 4)])
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.5).astype(dtype)))
    return net


def _batches(count: int, dtype=np.float64, n: int = 6, seed: int = 1) -> list[tuple[Tensor, Tensor]]:
    """Inputs and one-hot float labels (data whose values Python never reads)."""
    rng = np.random.default_rng(seed)
    return [
        (
            Tensor(rng.standard_normal((n, 3)).astype(dtype)),
            Tensor(np.eye(4, dtype=dtype)[rng.integers(0, 4, n)]),
        )
        for _ in range(count)
    ]


def _trainer(optimizer: str, dtype=np.float64) -> tuple[nn.Cell, nn.Optimizer]:
    net = _network(dtype)
    opt = OPTIMIZERS[optimizer](net.trainable_params())
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt), opt


def _state(opt: nn.Optimizer) -> dict[str, np.ndarray]:
    """The weights and every piece of optimizer state (moments, step counts, powers)."""
    return {p.name: p.asnumpy() for p in [*opt.parameters, *opt.get_parameters()]}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_a_jitted_step_is_traced_once_and_equals_the_eager_step(optimizer, dtype):
    eager, eager_opt = _trainer(optimizer, dtype)
    train, opt = _trainer(optimizer, dtype)
    step = symgrad.jit(lambda x, y: train(x, y))
    for k, (x, y) in enumerate(_batches(6, dtype)):
        want, got = eager(x, y).asnumpy(), step(x, y).asnumpy()
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"loss of step {k}")
        expected, found = _state(eager_opt), _state(opt)
        assert expected.keys() == found.keys()
        for name in expected:
            np.testing.assert_allclose(found[name], expected[name], rtol=0, atol=1e-12, err_msg=name)
            assert found[name].dtype == expected[name].dtype, name
    assert (step.cache.traces, step.cache.reuses, step.cache.full_runs) == (1, 5, 0)


def test_value_and_grad_then_the_optimizer_is_one_reused_step():
    net = _network()
    opt = nn.Adam(net.trainable_params(), 0.01)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    grad_fn = ops.value_and_grad(loss_net, None, opt.parameters)

    @symgrad.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    reference = _network()
    ref_opt = nn.Adam(reference.trainable_params(), 0.01)
    ref_fn = ops.value_and_grad(nn.WithLossCell(reference, nn.MSELoss()), None, ref_opt.parameters)
    for x, y in _batches(5):
        loss, grads = ref_fn(x, y)
        ref_opt(grads)
        np.testing.assert_allclose(step(x, y).asnumpy(), loss.asnumpy(), rtol=0, atol=1e-12)
    for p, q in zip(net.trainable_params(), reference.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    assert (step.cache.traces, step.cache.reuses) == (1, 4)


def test_the_loss_follows_each_calls_labels_against_numpy():
    """Labels are data: new labels on a reused trace give that call's loss (checked by hand)."""
    train, _ = _trainer("SGD plain")
    net = train.network.backbone_network
    step = symgrad.jit(lambda x, y: train(x, y))
    for x, y in _batches(4):
        w1, b1, w2, b2 = (p.asnumpy() for p in net.trainable_params())
        logits = np.tanh(x.asnumpy() @ w1.T + b1) @ w2.T + b2
        log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        want = -(y.asnumpy() * log_p).sum(1).mean()
        np.testing.assert_allclose(step(x, y).asnumpy(), want, rtol=1e-12)
    assert step.cache.reuses == 3


def test_a_new_shape_retraces_and_the_old_one_is_reused_again():
    train, _ = _trainer("Momentum")
    step = symgrad.jit(lambda x, y: train(x, y))
    six, nine = _batches(2, n=6), _batches(2, n=9)
    step(*six[0])
    step(*nine[0])
    step(*six[1])
    step(*nine[1])
    step(*_batches(1, np.float32)[0])  # another dtype
    assert (step.cache.traces, step.cache.reuses, step.cache.full_runs) == (3, 2, 0)


class _SparseCrossEntropy(nn.Cell):
    """Softmax cross-entropy with integer class labels kept in the graph (``equal`` with the class
    numbers), their range checked on every call's values by ``train_step.check_data``."""

    def construct(self, logits, labels):
        n, classes = logits.shape

        def check(index):
            if index.min() < 0 or index.max() >= classes:
                raise ValueError(f"labels must lie in [0, {classes}), got {index.min()}..{index.max()}")

        train_step.check_data(labels, check)
        hot = ops.cast(
            ops.equal(labels.reshape((n, 1)), Tensor(np.arange(classes, dtype=np.int32))), logits.dtype
        )
        return -(hot * ops.log_softmax(logits, -1)).sum() / n


def test_integer_labels_checked_by_check_data_stay_data_and_bad_ones_change_nothing():
    rng = np.random.default_rng(3)
    batches = [
        (Tensor(rng.standard_normal((6, 3))), Tensor(rng.integers(0, 4, 6).astype(np.int32)))
        for _ in range(4)
    ]
    net, reference = _network(), _network()
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, _SparseCrossEntropy()), nn.Momentum(net.trainable_params(), 0.1, 0.9)
    )
    eager = nn.TrainOneStepCell(
        nn.WithLossCell(reference, _SparseCrossEntropy()), nn.Momentum(reference.trainable_params(), 0.1, 0.9)
    )
    step = symgrad.jit(lambda x, y: train(x, y))
    for x, y in batches:
        np.testing.assert_allclose(step(x, y).asnumpy(), eager(x, y).asnumpy(), rtol=0, atol=1e-12)
    assert (step.cache.traces, step.cache.reuses, step.cache.full_runs) == (1, 3, 0)
    before = [p.asnumpy() for p in net.trainable_params()]
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 4\), got 0..7"):
        step(batches[0][0], Tensor(np.array([0, 1, 2, 3, 7, 0], np.int32)))
    for p, b in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)


def test_sparse_softmax_cross_entropy_gives_each_calls_loss():
    """``SoftmaxCrossEntropyWithLogits(sparse=True)``: each call's labels give its loss (by hand)."""
    rng = np.random.default_rng(4)
    net = _network()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
    step = symgrad.jit(lambda x, y: train(x, y))
    for _ in range(3):
        x, labels = rng.standard_normal((6, 3)), rng.integers(0, 4, 6).astype(np.int32)
        w1, b1, w2, b2 = (p.asnumpy() for p in net.trainable_params())
        logits = np.tanh(x @ w1.T + b1) @ w2.T + b2
        log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        want = -log_p[np.arange(6), labels].mean()
        np.testing.assert_allclose(step(Tensor(x), Tensor(labels)).asnumpy(), want, rtol=1e-12)


def test_train_one_step_cell_under_graph_mode_is_jitted():
    train, opt = _trainer("Adam")
    eager, eager_opt = _trainer("Adam")
    cache = wrap._graph_step.cache
    before = (cache.traces, cache.reuses)
    context.set_context(mode=context.GRAPH_MODE)
    try:
        losses = [train(x, y).asnumpy() for x, y in _batches(4)]
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)
    assert (cache.traces - before[0], cache.reuses - before[1]) == (1, 3)
    for got, (x, y) in zip(losses, _batches(4)):
        np.testing.assert_allclose(got, eager(x, y).asnumpy(), rtol=0, atol=1e-12)
    for name, value in _state(eager_opt).items():
        np.testing.assert_allclose(_state(opt)[name], value, rtol=0, atol=1e-12, err_msg=name)


class _Normalized(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(2, momentum=0.5)
        self.dense = nn.Dense(2, 1)

    def construct(self, x):
        return self.dense(self.bn(x))


def test_batch_norm_moving_statistics_move_once_per_jitted_step():
    """Batch mean [2, 4], momentum 0.5: one step moves the moving mean to [1, 2] (MindSpore's value)."""
    net = _Normalized().set_train()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    step = symgrad.jit(lambda x, y: train(x, y))
    x = Tensor(np.array([[1.0, 3.0], [3.0, 5.0]], np.float32))
    y = Tensor(np.zeros((2, 1), np.float32))
    step(x, y)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), [1.0, 2.0], rtol=1e-6)
    step(x, y)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), [1.5, 3.0], rtol=1e-6)


def test_a_non_finite_gradient_on_a_reused_step_is_refused_and_changes_nothing():
    train, opt = _trainer("Momentum")
    step = symgrad.jit(lambda x, y: train(x, y))
    (x, y), _ = _batches(2)
    step(x, y)
    step(x, y)
    before = _state(opt)
    bad = x.asnumpy().copy()
    bad[2, 1] = np.inf
    refused = r"Momentum: the gradient of '0.weight' is (nan|-?inf) at index"
    with np.errstate(all="ignore"), pytest.raises(FloatingPointError, match=refused):
        step(Tensor(bad), y)
    for name, value in _state(opt).items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)


def test_a_step_past_a_per_step_learning_rate_list_retraces_and_is_refused_as_eager():
    net = _network()
    opt = nn.SGD(net.trainable_params(), [0.1, 0.05, 0.02])
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    step = symgrad.jit(lambda x, y: train(x, y))
    batches = _batches(4)
    for x, y in batches[:3]:
        step(x, y)
    with pytest.raises(RuntimeError, match="has 3 values, none for step 3"):
        step(*batches[3])
    assert (step.cache.traces, step.cache.reuses) == (2, 2)


def test_a_changed_momentum_retraces():
    """SGD's kernel branches on momentum > 0; the trace assumed it, so setting it to 0 retraces."""
    train, opt = _trainer("SGD")
    eager, eager_opt = _trainer("SGD")
    step = symgrad.jit(lambda x, y: train(x, y))
    for k, (x, y) in enumerate(_batches(4)):
        if k == 2:
            opt.momentum.set_data(Tensor(np.array(0.0, np.float32)))
            eager_opt.momentum.set_data(Tensor(np.array(0.0, np.float32)))
        np.testing.assert_allclose(step(x, y).asnumpy(), eager(x, y).asnumpy(), rtol=0, atol=1e-12)
    assert (step.cache.traces, step.cache.reuses) == (2, 2)


def test_steps_that_read_or_rewrite_the_weights_run_in_full_with_the_eager_results():
    train, opt = _trainer("Momentum")
    eager, _ = _trainer("Momentum")
    weight = train.network.backbone_network.trainable_params()[0]
    eager_weight = eager.network.backbone_network.trainable_params()[0]

    @symgrad.jit
    def read_after(x, y):
        loss = train(x, y)
        return loss, float(weight[0, 0])  # the updated weight, read into Python

    @symgrad.jit
    def two_steps(x, y):
        train(x, y)
        return train(x, y)  # its loss reads the weights the first step wrote

    for x, y in _batches(3):
        loss, w = read_after(x, y)
        np.testing.assert_allclose(loss.asnumpy(), eager(x, y).asnumpy(), rtol=0, atol=1e-12)
        assert w == float(eager_weight.asnumpy()[0, 0])
        eager(x, y)
        np.testing.assert_allclose(two_steps(x, y).asnumpy(), eager(x, y).asnumpy(), rtol=0, atol=1e-12)
    assert (read_after.cache.reuses, two_steps.cache.reuses) == (0, 0)


def test_mindspore_graph_mode_gives_the_same_losses():
    ms = pytest.importorskip("mindspore", reason="real MindSpore is the reference here")
    rng = np.random.default_rng(5)
    weights = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in [(16, 8), (16,), (4, 16), (4,)]]
    data = [
        (rng.standard_normal((10, 8)).astype(np.float32), rng.integers(0, 4, 10).astype(np.int32))
        for _ in range(5)
    ]

    def run(lib, jitted: bool, make_opt) -> list[float]:
        net = lib.nn.SequentialCell([lib.nn.Dense(8, 16), lib.nn.ReLU(), lib.nn.Dense(16, 4)])
        for p, w in zip(net.trainable_params(), weights):
            p.set_data(lib.Tensor(w))
        loss = lib.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        train = lib.nn.TrainOneStepCell(lib.nn.WithLossCell(net, loss), make_opt(lib, net.trainable_params()))
        step = symgrad.jit(lambda x, y: train(x, y)) if jitted else train
        return [float(step(lib.Tensor(x), lib.Tensor(y)).asnumpy()) for x, y in data]

    for make_opt in (lambda lib, ps: lib.nn.Momentum(ps, 0.1, 0.9), lambda lib, ps: lib.nn.Adam(ps, 0.01)):
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            want = run(ms, False, make_opt)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(run(symgrad, True, make_opt), want, rtol=2e-6)


def test_parameters_read_by_a_jitted_step_are_its_inputs():
    """A reused trace reads each call's weights: a weight set between calls is used."""
    train, _ = _trainer("SGD plain")
    eager, _ = _trainer("SGD plain")
    step = symgrad.jit(lambda x, y: train(x, y))
    batches = _batches(3)
    for x, y in batches[:2]:
        step(x, y)
        eager(x, y)
    for net in (train.network.backbone_network, eager.network.backbone_network):
        weight: Parameter = net.trainable_params()[0]
        weight.set_data(Tensor(np.full(weight.shape, 0.25)))
    np.testing.assert_allclose(step(*batches[2]).asnumpy(), eager(*batches[2]).asnumpy(), rtol=0, atol=1e-12)
    assert step.cache.reuses == 2


def test_a_sens_scaled_step_is_reused_and_equals_the_eager_step():
    def trainer():
        net = _network()
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
        return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=4.0), net

    (train, net), (eager, reference) = trainer(), trainer()
    step = symgrad.jit(lambda x, y: train(x, y))
    for x, y in _batches(4):
        np.testing.assert_allclose(step(x, y).asnumpy(), eager(x, y).asnumpy(), rtol=0, atol=1e-12)
    for p, q in zip(net.trainable_params(), reference.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    assert (step.cache.traces, step.cache.reuses) == (1, 3)
