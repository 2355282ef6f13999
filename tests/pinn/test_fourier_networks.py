"""Multi-scale Fourier feature networks against a NumPy forward pass, and their derivatives against
central differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad.pinn import MultiScaleFourierMLP, ResidualLoss, SpatioTemporalFourierMLP, grad, predict


def numpy_forward(net, points: np.ndarray, groups: list[tuple[list[int], list[str]]]) -> np.ndarray:
    """The network by hand: features per scale, the shared tanh stack, products across groups."""
    p = {q.name: q.asnumpy().astype(np.float64) for q in net.get_parameters()}
    hidden = len(net.layer_sizes) - 2

    def stack(h):
        for k in range(1, hidden):
            h = np.tanh(h @ p[f"W{k}"] + p[f"b{k}"])
        return h

    per_group = []
    for inputs, names in groups:
        x = points[inputs].T
        per_group.append([stack(np.concatenate([np.cos(x @ p[n]), np.sin(x @ p[n])], -1)) for n in names])
    combined = per_group[0]
    for group in per_group[1:]:
        combined = [h * g for h in combined for g in group]
    return np.concatenate(combined, -1) @ p[f"W{hidden}"] + p[f"b{hidden}"]


@settings(max_examples=10)
@given(
    widths=st.lists(st.sampled_from([2, 4, 6]), min_size=1, max_size=3),
    scales=st.integers(1, 3),
    outputs=st.integers(1, 2),
)
def test_multi_scale_network_is_the_numpy_forward_pass(widths, scales, outputs):
    net = MultiScaleFourierMLP(
        [2, *widths, outputs], sigmas=[1.0 + 4 * k for k in range(scales)], seed=len(widths)
    )
    points = np.random.default_rng(0).uniform(-1, 1, (2, 6))
    got = predict(net, points)
    got = np.stack(got, -1) if isinstance(got, tuple) else got[:, None]
    names = [f"fourier_B{k + 1}" for k in range(scales)]
    np.testing.assert_allclose(got, numpy_forward(net, points, [([0, 1], names)]), rtol=1e-12, atol=1e-12)
    assert all(not p.requires_grad for p in net.get_parameters() if p.name.startswith("fourier_B"))


def test_spatio_temporal_network_is_the_numpy_forward_pass_and_differentiates():
    net = SpatioTemporalFourierMLP([3, 6, 6, 1], space_sigmas=[1, 10], time_sigmas=[1, 5], seed=2)
    points = np.random.default_rng(1).uniform(0, 1, (3, 5))
    expected = numpy_forward(
        net, points, [([0, 1], ["fourier_B1", "fourier_B2"]), ([2], ["fourier_B3", "fourier_B4"])]
    )
    np.testing.assert_allclose(predict(net, points), expected[:, 0], rtol=1e-12)
    u_t = ResidualLoss(grad(net, 2), ("x", "y", "t"), net, backend="numpy").residuals(*points)
    step = 1e-6
    later, earlier = points.copy(), points.copy()
    later[2] += step
    earlier[2] -= step
    central = (predict(net, later) - predict(net, earlier)) / (2 * step)
    np.testing.assert_allclose(u_t, central, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: MultiScaleFourierMLP([2, 5, 1], sigmas=[1]), "it must be even, got 5"),
        (lambda: MultiScaleFourierMLP([2, 4, 1], sigmas=[]), "sigmas must be a non-empty list"),
        (lambda: MultiScaleFourierMLP([2, 4, 1], sigmas=[1, -2]), "sigmas must be a non-empty list"),
        (lambda: MultiScaleFourierMLP([2, 1], sigmas=[1]), "needs \\[inputs, hidden..., outputs\\]"),
        (lambda: SpatioTemporalFourierMLP([1, 4, 1], [1], [1]), "needs space and time inputs"),
    ],
)
def test_fourier_networks_refuse_bad_arguments_by_name(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def deepxde_stmsffn(layer_size, x, B_x, B_t, dense, output):
    """DeepXDE's ``STMsFFN.build`` (deepxde/nn/tensorflow_compat_v1/msffn.py) in NumPy, line for line:
    Fourier features of ``x[:, :-1]`` per space matrix and of ``x[:, -1:]`` per time matrix, the
    ``fully_connected`` layers (one variable scope with AUTO_REUSE: the same kernels for every
    scale), every space result times every time result, concatenated into one dense output."""

    def fourier_feature_forward(y, b):
        return np.concatenate([np.cos(y @ b), np.sin(y @ b)], axis=1)

    def fully_connected_forward(y):
        for i in range(1, len(layer_size) - 2):
            kernel, bias = dense[i - 1]
            y = np.tanh(y @ kernel + bias)
        return y

    y_x = [fully_connected_forward(fourier_feature_forward(x[:, :-1], b)) for b in B_x]
    y_t = [fully_connected_forward(fourier_feature_forward(x[:, -1:], b)) for b in B_t]
    y = np.concatenate([a * b for a in y_x for b in y_t], axis=1)
    return y @ output[0] + output[1]


def test_the_wave_examples_network_has_deepxdes_variables_and_initial_values():
    """DeepXDE's wave_1d example: STMsFFN([2] + [100] * 3 + [1], "tanh", "Glorot uniform",
    sigmas_x=[1], sigmas_t=[1, 10]): the same variables (shapes, trainable or not, in the order
    DeepXDE's build creates them) and the same initial distributions."""
    net = SpatioTemporalFourierMLP([2, 100, 100, 100, 1], space_sigmas=[1], time_sigmas=[1, 10], seed=0)
    # B for x at sigma 1, B for t at sigmas 1 and 10 (trainable=False), the shared fully_connected
    # kernels and biases (100 -> 100 twice), then the output layer over the 1 x 2 products
    shapes = [(1, 50), (1, 50), (1, 50), (100, 100), (100,), (100, 100), (100,), (200, 1), (1,)]
    assert [tuple(q.shape) for q in net.get_parameters()] == shapes
    assert [q.requires_grad for q in net.get_parameters()] == [False] * 3 + [True] * 6
    assert sum(int(np.prod(q.shape)) for q in net.trainable_params()) == 20401
    value = {q.name: q.asnumpy() for q in net.get_parameters()}
    for name, n_in, n_out in (("W1", 100, 100), ("W2", 100, 100), ("W3", 200, 1)):  # Glorot uniform
        limit = np.sqrt(6 / (n_in + n_out))
        assert 0.9 * limit < np.abs(value[name]).max() <= limit
    assert all(not value[b].any() for b in ("b1", "b2", "b3"))  # zero biases, as tf.layers.dense
    wide = SpatioTemporalFourierMLP([2, 4000, 4, 1], space_sigmas=[1], time_sigmas=[1, 10], seed=1)
    spread = [float(np.std(q.asnumpy())) for q in list(wide.get_parameters())[:3]]  # B ~ N(0, sigma^2)
    np.testing.assert_allclose(spread, [1, 1, 10], rtol=0.05)


@pytest.mark.parametrize(
    "layer_size, sigmas_x, sigmas_t",
    [([2, 100, 100, 100, 1], [1], [1, 10]), ([3, 6, 4, 4, 2], [1, 5], [1, 10]), ([2, 8, 3], [2], [3])],
)
def test_spatio_temporal_network_is_deepxdes_stmsffn(layer_size, sigmas_x, sigmas_t):
    net = SpatioTemporalFourierMLP(layer_size, space_sigmas=sigmas_x, time_sigmas=sigmas_t, seed=0)
    rng = np.random.default_rng(3)
    for q in net.get_parameters():
        if q.name.startswith("b"):  # not zero, so that the biases count in the check
            q.set_data(rng.normal(0, 0.1, q.shape))
    value = {q.name: q.asnumpy().astype(np.float64) for q in net.get_parameters()}
    hidden = len(layer_size) - 2
    B = [value[f"fourier_B{k + 1}"] for k in range(len(sigmas_x) + len(sigmas_t))]
    points = rng.uniform(-np.sqrt(3), np.sqrt(3), (layer_size[0], 7))
    expected = deepxde_stmsffn(
        layer_size, points.T, B[: len(sigmas_x)], B[len(sigmas_x) :],
        [(value[f"W{k}"], value[f"b{k}"]) for k in range(1, hidden)], (value[f"W{hidden}"], value[f"b{hidden}"]),
    )  # fmt: skip
    got = predict(net, points)
    got = np.stack(got, -1) if isinstance(got, tuple) else got[:, None]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
