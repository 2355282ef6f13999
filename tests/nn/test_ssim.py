"""nn.SSIM: against a NumPy reference of the formula (float64), identical images give 1, the
gradient against central differences, argument errors, and real MindSpore 2.10's values where it
is installed (its SSIM runs in GRAPH_MODE on the CPU; PyNative fails there in a ScalarCast)."""

from __future__ import annotations

import contextlib
import importlib.util
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from symgrad.nn.image import gaussian_window


def _ssim_reference(a, b, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, max_val=1.0):
    size = filter_size
    window = gaussian_window(size, filter_sigma)[0, 0].astype(np.float64)
    view = np.lib.stride_tricks.sliding_window_view

    def blur(t):
        return np.einsum("nchwij,ij->nchw", view(t, (size, size), axis=(2, 3)), window)

    if max_val > 1:
        a, b, max_val = a / max_val, b / max_val, 1.0
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    m1, m2 = blur(a), blur(b)
    s11, s22, s12 = blur(a * a) - m1**2, blur(b * b) - m2**2, blur(a * b) - m1 * m2
    ssim = (2 * m1 * m2 + c1) * (2 * s12 + c2) / ((m1**2 + m2**2 + c1) * (s11 + s22 + c2))
    return ssim.mean((2, 3)).mean(1)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"filter_size": 4, "filter_sigma": 0.8},
        {"filter_size": 5, "k1": 0.02, "k2": 0.05},
        {"max_val": 255},
    ],
)
def test_ssim_equals_its_formula(kwargs, rng):
    scale = 255 if kwargs.get("max_val") == 255 else 1
    a = rng.random((2, 3, 13, 12)) * scale
    b = np.clip(a + 0.1 * scale * rng.normal(size=a.shape), 0, scale)
    got = nn.SSIM(**kwargs)(Tensor(a), Tensor(b)).asnumpy()
    assert got.shape == (2,)
    np.testing.assert_allclose(got, _ssim_reference(a, b, **kwargs), rtol=1e-12)
    np.testing.assert_allclose(nn.SSIM(**kwargs)(Tensor(a), Tensor(a)).asnumpy(), 1.0, rtol=1e-12)


def test_ssim_gradient_matches_central_differences(rng):
    a, b = rng.random((1, 2, 6, 6)), rng.random((1, 2, 6, 6))
    layer = nn.SSIM(filter_size=3, filter_sigma=1.0)
    grad = ops.grad(lambda t: layer(t, Tensor(b)).sum())(Tensor(a)).asnumpy()
    h, numeric = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += h
        down[i] -= h
        numeric[i] = (_ssim_reference(up, b, 3, 1.0).sum() - _ssim_reference(down, b, 3, 1.0).sum()) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


def test_bad_ssim_arguments_are_named():
    with pytest.raises(TypeError, match="For 'SSIM', 'filter_sigma' must be a float"):
        nn.SSIM(filter_sigma=1)
    with pytest.raises(ValueError, match="For 'SSIM', 'max_val' must be greater than 0"):
        nn.SSIM(max_val=0)
    with pytest.raises(
        ValueError, match="For 'SSIM', the images \\(4x4\\) must be at least filter_size 11 wide"
    ):
        nn.SSIM()(Tensor(np.zeros((1, 1, 4, 4), np.float32)), Tensor(np.zeros((1, 1, 4, 4), np.float32)))
    with pytest.raises(symgrad.OpError, match="SSIM: img1 and img2 must have one shape and dtype"):
        nn.SSIM(filter_size=3)(
            Tensor(np.zeros((1, 1, 4, 4), np.float32)), Tensor(np.zeros((1, 2, 4, 4), np.float32))
        )


@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed")
def test_ssim_as_mindspore(rng):
    a = rng.random((2, 3, 16, 16)).astype(np.float32)
    b = np.clip(a + 0.1 * rng.normal(size=a.shape), 0, 1).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindspore

        mode = mindspore.get_context("mode")
        mindspore.set_context(mode=mindspore.GRAPH_MODE)
        try:
            with contextlib.suppress(Exception):  # MindSpore 2.10's first op under NumPy 2 fails once
                mindspore.ops.add(mindspore.Tensor(np.ones(2, np.float32)), 1)
            layer = mindspore.nn.SSIM(filter_size=5, filter_sigma=1.2)
            want = layer(mindspore.Tensor(a), mindspore.Tensor(b)).asnumpy()
        finally:
            mindspore.set_context(mode=mode)
    mine = nn.SSIM(filter_size=5, filter_sigma=1.2)
    np.testing.assert_allclose(mine(Tensor(a), Tensor(b)).asnumpy(), want, rtol=2e-6)
