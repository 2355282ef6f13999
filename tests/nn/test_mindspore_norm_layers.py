"""nn.GroupNorm, nn.BatchNorm3d and nn.Norm: against a NumPy reference everywhere, and against
real MindSpore 2.10 (values, input and weight gradients, Parameter names, moving statistics)
where it is installed."""

from __future__ import annotations

import contextlib
import importlib.util
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from symgrad.errors import OpError

needs_mindspore = pytest.mark.skipif(
    importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed (pip install mindspore)"
)


@pytest.fixture(scope="module")
def ms():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindspore

        mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
        with contextlib.suppress(Exception):  # MindSpore 2.10's first op under NumPy 2 fails once
            mindspore.ops.add(mindspore.Tensor(np.ones(2, np.float32)), 1)
        yield mindspore


def _group_norm_reference(x, groups, gamma, beta, eps):
    g = x.reshape(x.shape[0], groups, -1)
    y = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + eps)).reshape(x.shape)
    shape = (x.shape[1],) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize(
    "shape, groups", [((2, 4, 3), 2), ((3, 6, 2, 5), 3), ((1, 4, 2, 2, 3), 4), ((2, 3, 4), 1)]
)
def test_group_norm_equals_its_formula_in_float64(shape, groups, rng):
    x = rng.normal(size=shape)
    layer = nn.GroupNorm(groups, shape[1], eps=1e-3, dtype=symgrad.float64)
    gamma, beta = rng.normal(size=shape[1]), rng.normal(size=shape[1])
    layer.gamma.set_data(Tensor(gamma))
    layer.beta.set_data(Tensor(beta))
    np.testing.assert_allclose(
        layer(Tensor(x)).asnumpy(), _group_norm_reference(x, groups, gamma, beta, 1e-3), rtol=1e-12
    )


def test_group_norm_gradient_matches_central_differences(rng):
    x = rng.normal(size=(2, 4, 3))
    w = rng.normal(size=(2, 4, 3))
    layer = nn.GroupNorm(2, 4, dtype=symgrad.float64)
    layer.gamma.set_data(Tensor(rng.normal(size=4)))
    grad = ops.grad(lambda t: (layer(t) * Tensor(w)).sum())(Tensor(x)).asnumpy()
    h, numeric = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        gamma = layer.gamma.asnumpy()
        numeric[i] = (
            (
                _group_norm_reference(up, 2, gamma, np.zeros(4), 1e-5)
                - _group_norm_reference(down, 2, gamma, np.zeros(4), 1e-5)
            )
            * w
        ).sum() / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_bad_group_norm_and_batch_norm_3d_inputs_are_named():
    with pytest.raises(
        ValueError, match=r"GroupNorm: num_channels \(6\) must be divisible by num_groups \(4\)"
    ):
        nn.GroupNorm(4, 6)
    with pytest.raises(TypeError, match="GroupNorm: num_groups must be a positive int"):
        nn.GroupNorm(0, 6)
    with pytest.raises(OpError, match=r"GroupNorm: input must be \(N, 4, \.\.\.\), got shape \(2, 3\)"):
        nn.GroupNorm(2, 4)(Tensor(np.zeros((2, 3), np.float32)))
    with pytest.raises(OpError, match=r"BatchNorm3d: input must have rank 5 .* got shape \(2, 3, 4, 4\)"):
        nn.BatchNorm3d(3)(Tensor(np.zeros((2, 3, 4, 4), np.float32)))
    with pytest.raises(TypeError, match="Norm: axis must be an int or a tuple of ints"):
        nn.Norm(axis=1.5)


def test_batch_norm_3d_trains_on_every_axis_but_the_channels(rng):
    x = rng.normal(size=(2, 3, 2, 3, 4))
    layer = nn.BatchNorm3d(3, momentum=0.5, dtype=symgrad.float64)
    layer.set_train()
    out = layer(Tensor(x)).asnumpy()
    mean, var = x.mean((0, 2, 3, 4)), x.var((0, 2, 3, 4))
    np.testing.assert_allclose(
        out,
        (x - mean[None, :, None, None, None]) / np.sqrt(var[None, :, None, None, None] + 1e-5),
        rtol=1e-10,
    )
    count = x.size // 3
    np.testing.assert_allclose(layer.bn2d.moving_mean.asnumpy(), 0.5 * mean, rtol=1e-12)
    np.testing.assert_allclose(
        layer.bn2d.moving_variance.asnumpy(), 0.5 + 0.5 * var * count / (count - 1), rtol=1e-12
    )
    assert [p.name for p in layer.get_parameters()] == [
        "bn2d.moving_mean",
        "bn2d.moving_variance",
        "bn2d.gamma",
        "bn2d.beta",
    ]


@pytest.mark.parametrize(
    "axis, keep_dims, shape",
    [((), False, (2, 3)), (1, False, (2, 3)), ((0, 2), True, (2, 3, 4)), (1, False, (1, 3))],
)
def test_norm_is_the_2_norm_and_squeezes_as_mindspore(axis, keep_dims, shape, rng):
    x = rng.normal(size=shape)
    axes = (axis,) if isinstance(axis, int) else (axis or tuple(range(len(shape))))
    want = np.sqrt((x**2).sum(axes, keepdims=True))
    want = want if keep_dims else np.squeeze(want)  # MindSpore squeezes every axis of length 1
    got = nn.Norm(axis, keep_dims)(Tensor(x)).asnumpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13)


@needs_mindspore
@pytest.mark.parametrize(
    "make, shape, train",
    [
        (lambda lib: lib.nn.GroupNorm(2, 4), (2, 4, 3, 3), False),
        (lambda lib: lib.nn.GroupNorm(3, 6, eps=1e-2, affine=False), (3, 6, 5), False),
        (lambda lib: lib.nn.BatchNorm3d(3), (2, 3, 2, 3, 2), True),
        (lambda lib: lib.nn.BatchNorm3d(3, momentum=0.7), (2, 3, 2, 3, 2), False),
        (lambda lib: lib.nn.Norm(axis=1), (2, 5), False),
        (lambda lib: lib.nn.Norm(axis=(1, 2), keep_dims=True), (2, 3, 4), False),
    ],
)
def test_norm_layers_as_mindspore(ms, make, shape, train):
    x = (np.sin(np.arange(np.prod(shape)) * 0.37) * 1.5 + 0.2).astype(np.float32).reshape(shape)
    w = (np.cos(np.arange(np.prod(shape)) * 0.61)).astype(np.float32).reshape(shape)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (ms, symgrad):
            layer = make(lib)
            for k, p in enumerate(layer.get_parameters()):
                if p.requires_grad:
                    p.set_data(
                        lib.Tensor(
                            (1 + 0.3 * np.sin(np.arange(p.size) + k)).astype(np.float32).reshape(p.shape)
                        )
                    )
            layer.set_train(train)
            out = layer(lib.Tensor(x))
            weight = lib.Tensor(
                w.reshape(out.shape) if out.size == w.size else np.ones(out.shape, np.float32)
            )

            def loss(t, layer=layer, lib=lib, weight=weight):
                return lib.ops.mul(layer(t), weight).sum()

            params = layer.trainable_params()
            grads = (
                lib.ops.grad(loss, 0, params)(lib.Tensor(x))
                if params
                else (lib.ops.grad(loss)(lib.Tensor(x)), ())
            )
            grad_x, grad_w = grads
            state = [p.asnumpy() for p in layer.get_parameters()]
            results.append(
                (
                    [p.name for p in layer.get_parameters()],
                    [out.asnumpy(), grad_x.asnumpy(), *[g.asnumpy() for g in grad_w], *state],
                )
            )
    (ms_names, expected), (names, got) = results
    assert names == ms_names
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=2e-4, atol=2e-5)
