"""nn.BatchNorm1d/2d, nn.LayerNorm and nn.SoftmaxCrossEntropyWithLogits: values against NumPy,
gradients against central finite differences in float64, MindSpore's moving-statistics rule, and
errors that name the layer. (The same layers against real MindSpore: tests/mindspore_api/test_parity.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from symgrad.errors import OpError
from tests.ops.test_more_ops import central_difference


def np_batch_norm(x, gamma, beta, eps=1e-5):
    axes = tuple(a for a in range(x.ndim) if a != 1)
    shape = [1] * x.ndim
    shape[1] = -1
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2)])
def test_batch_norm_in_training_uses_and_differentiates_the_batch_statistics(shape, rng):
    net = nn.BatchNorm1d(3, momentum=0.8, dtype=symgrad.float64)
    net.gamma.set_data(np.array([1.0, 2.0, 0.5]))
    net.beta.set_data(np.array([0.1, -0.2, 0.3]))
    net.set_train()
    x, weights = rng.normal(size=shape), rng.normal(size=shape)
    gamma, beta = net.gamma.asnumpy(), net.beta.asnumpy()

    def reference(a):
        return np_batch_norm(a, gamma, beta) * weights

    np.testing.assert_allclose(
        net(Tensor(x)).asnumpy(), np_batch_norm(x, gamma, beta), rtol=1e-12, atol=1e-12
    )
    grad = ops.grad(lambda t: (net(t) * Tensor(weights)).sum())(Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), central_difference(reference, x), rtol=1e-6, atol=1e-6)


def test_batch_norm_moving_statistics_follow_mindspore_and_serve_inference(rng):
    net = nn.BatchNorm1d(2, momentum=0.9, dtype=symgrad.float64)
    x = rng.normal(size=(6, 2))
    assert [(p.name, p.requires_grad) for p in net.get_parameters()] == [
        ("mean", False),
        ("variance", False),
        ("gamma", True),
        ("beta", True),
    ]
    # a new cell is in inference mode (MindSpore's default): moving mean 0, variance 1
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-12)
    net.set_train()
    net(Tensor(x))
    np.testing.assert_allclose(net.moving_mean.asnumpy(), 0.1 * x.mean(0), rtol=1e-12)
    np.testing.assert_allclose(net.moving_variance.asnumpy(), 0.9 + 0.1 * x.var(0, ddof=1), rtol=1e-12)
    net.set_train(False)
    mean, var = net.moving_mean.asnumpy(), net.moving_variance.asnumpy()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-12)


def test_batch_norm_2d_normalises_each_channel_over_batch_and_space(rng):
    net = nn.BatchNorm2d(3, use_batch_statistics=True, dtype=symgrad.float64)
    x = rng.normal(size=(2, 3, 4, 5))
    np.testing.assert_allclose(
        net(Tensor(x)).asnumpy(), np_batch_norm(x, np.ones(3), np.zeros(3)), atol=1e-12
    )


def test_layer_norm_values_and_gradients_of_input_and_parameters(rng):
    net = nn.LayerNorm((2, 3), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5, dtype=symgrad.float64)
    gamma, beta = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    net.gamma.set_data(gamma)
    net.beta.set_data(beta)
    x, weights = rng.normal(size=(4, 2, 3)), rng.normal(size=(4, 2, 3))

    def reference(a, g=gamma, b=beta):
        mean, var = a.mean((1, 2), keepdims=True), a.var((1, 2), keepdims=True)
        return ((a - mean) / np.sqrt(var + 1e-5) * g + b) * weights

    np.testing.assert_allclose(
        (net(Tensor(x)) * Tensor(weights)).asnumpy(), reference(x), rtol=1e-12, atol=1e-12
    )
    fn = lambda t: (net(t) * Tensor(weights)).sum()  # noqa: E731
    grads = ops.GradOperation(get_all=True, get_by_list=True)(fn, net.trainable_params())(Tensor(x))
    (dx,), (dgamma, dbeta) = grads
    np.testing.assert_allclose(dx.asnumpy(), central_difference(reference, x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        dgamma.asnumpy(), central_difference(lambda g: reference(x, g), gamma), rtol=1e-6
    )
    np.testing.assert_allclose(dbeta.asnumpy(), weights.sum(0), rtol=1e-12)


def test_softmax_cross_entropy_sparse_equals_dense_one_hot(rng):
    logits = rng.normal(size=(4, 5))
    labels = np.array([0, 4, 2, 2])
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction="sum")
    expected = -np.sum(np.log(np.exp(logits) / np.exp(logits).sum(1, keepdims=True))[range(4), labels])
    np.testing.assert_allclose(sparse(Tensor(logits), Tensor(labels)).asnumpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(
        dense(Tensor(logits), Tensor(np.eye(5)[labels])).asnumpy(), expected, rtol=1e-12
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: nn.BatchNorm1d(3)(Tensor(np.ones(3))),
            r"BatchNorm1d: input must have rank 2 or 3, got shape \(3,\)",
        ),
        (lambda: nn.BatchNorm1d(3, momentum=1.5), r"BatchNorm1d: momentum must be a number in \[0, 1\]"),
        (lambda: nn.BatchNorm1d(4)(Tensor(np.ones((2, 3)))), r"BatchNorm: scale must have shape \(3,\)"),
        (
            lambda: nn.LayerNorm((4,))(Tensor(np.ones((2, 3)))),
            r"LayerNorm: input of shape \(2, 3\) does not fit",
        ),
        (lambda: nn.LayerNorm(3), "LayerNorm: normalized_shape must be a tuple of positive ints"),
        (
            lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True)(
                Tensor(np.ones((2, 3))), Tensor(np.array([0, 3]))
            ),
            r"sparse labels must be 2 class indices in \[0, 3\)",
        ),
        (
            lambda: nn.SoftmaxCrossEntropyWithLogits()(Tensor(np.ones((2, 3))), Tensor(np.ones((2, 2)))),
            r"labels must be a Tensor of the logits' shape \(2, 3\), got \(2, 2\)",
        ),
    ],
)
def test_bad_arguments_name_the_layer(call, message):
    with pytest.raises((OpError, ValueError, TypeError), match=message):
        call()
