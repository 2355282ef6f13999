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
