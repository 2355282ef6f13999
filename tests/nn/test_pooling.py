"""MindSpore 2.10's pooling layers (MaxPool, AvgPool in every pad mode, one and two dimensions).

The numbers asserted directly were computed by real MindSpore 2.10 on the CPU, so these tests run
without it; where MindSpore is installed the ``*_as_mindspore`` tests also run both libraries on the
same inputs and weights and compare values, gradients and errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from tests.nn.helpers import needs_mindspore


def weighted_grad(lib, cell, x):
    """The output of ``cell`` (the first of a tuple) and the gradient of sum(output * w), w = 1, 2, ..."""
    out = cell(x)
    first = out[0] if isinstance(out, tuple) else out
    w = lib.Tensor((np.arange(first.size, dtype=np.float32) % 5 + 1).reshape(first.shape))

    def loss(t):
        y = cell(t)
        return lib.ops.mul(y[0] if isinstance(y, tuple) else y, w).sum()

    results = [first.asnumpy(), lib.ops.grad(loss)(x).asnumpy()]
    return results + ([out[1].asnumpy()] if isinstance(out, tuple) else [])


# ----- pooling -----

PLANE = Tensor((np.arange(25, dtype=np.float32) % 7).reshape(1, 1, 5, 5))


def test_max_pool_valid_gives_each_window_maximum_its_gradient():
    out, grad = weighted_grad(symgrad, nn.MaxPool2d(kernel_size=2, stride=2), PLANE)
    np.testing.assert_array_equal(out[0, 0], [[6, 3], [4, 6]])
    expected = np.zeros((5, 5), np.float32)
    expected[0, 3], expected[1, 1], expected[2, 1], expected[2, 3] = 2, 1, 3, 4
    np.testing.assert_array_equal(grad[0, 0], expected)


def test_max_pool_ties_send_the_gradient_to_the_first_maximum():
    x = Tensor(np.array([[[[1, 3], [3, 2]]]], np.float32))
    for pool in (nn.MaxPool2d(2, 2), nn.MaxPool2d(2, 2, pad_mode="pad", padding=0)):
        np.testing.assert_array_equal(
            ops.grad(lambda t, p=pool: p(t).sum())(x).asnumpy(), [[[[0, 1], [0, 0]]]]
        )


def test_same_mode_pads_at_the_end_and_averages_real_elements_only():
    out, grad = weighted_grad(symgrad, nn.MaxPool2d(2, 2, pad_mode="same"), PLANE)
    np.testing.assert_array_equal(out[0, 0], [[6, 3, 4], [4, 6, 5], [6, 2, 3]])
    np.testing.assert_array_equal(grad[0, 0, 4], [2, 0, 0, 3, 4])  # the padding (-inf) is never picked
    out, grad = weighted_grad(symgrad, nn.AvgPool2d(2, 2, pad_mode="same"), PLANE)
    np.testing.assert_allclose(out[0, 0], [[3, 1.5, 3], [2.5, 4.5, 2.5], [3, 1.5, 3]])
    # the last column: weights 3, 1, 4 over windows of 2, 2 and 1 real elements
    np.testing.assert_allclose(grad[0, 0, :, 4], [1.5, 1.5, 0.5, 0.5, 4])


def test_pad_mode_counts_padding_as_pytorch_does():
    out, grad = weighted_grad(symgrad, nn.MaxPool2d(3, 2, pad_mode="pad", padding=1), PLANE)
    np.testing.assert_array_equal(out[0, 0], [[6, 6, 4], [6, 6, 6], [6, 4, 5]])
    np.testing.assert_array_equal(grad[0, 0, 1], [0, 12, 0, 0, 0])
    out, _ = weighted_grad(symgrad, nn.AvgPool2d(3, 2, pad_mode="pad", padding=1), PLANE)
    np.testing.assert_allclose(out[0, 0, 0], [12 / 9, 13 / 9, 10 / 9], rtol=1e-6)
    out, _ = weighted_grad(
        symgrad, nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False), PLANE
    )
    np.testing.assert_allclose(out[0, 0, 0], [3, 13 / 6, 2.5], rtol=1e-6)
    out, _ = weighted_grad(symgrad, nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, divisor_override=3), PLANE)
    np.testing.assert_allclose(out[0, 0, 0], [4, 13 / 3, 10 / 3], rtol=1e-6)


def test_max_pool_returns_int64_positions_in_the_input_plane():
    x = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    out, where = nn.MaxPool2d(2, 2, pad_mode="pad", padding=1, return_indices=True)(x)
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[0, 2, 3], [8, 10, 11], [12, 14, 15]])
    assert where.dtype == symgrad.int64
    np.testing.assert_array_equal(where.asnumpy()[0, 0], [[0, 2, 3], [8, 10, 11], [12, 14, 15]])


def test_unbatched_inputs_and_one_dimensional_pools():
    x = Tensor(np.array([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]], np.float32))  # (C, L)
    np.testing.assert_array_equal(nn.MaxPool1d(3, 2)(x).asnumpy(), [[4, 5, 9]])
    np.testing.assert_allclose(nn.AvgPool1d(3, 2, pad_mode="same")(x).asnumpy(), [[2, 2, 5, 5.5]])
    assert nn.MaxPool2d(2, 2)(Tensor(np.ones((3, 4, 4), np.float32))).shape == (3, 2, 2)
    assert nn.AvgPool2d(2, 2)(Tensor(np.ones((1, 1, 4, 4), np.float16))).dtype == symgrad.float16


def test_pooling_errors_are_mindspores_kinds():
    x = Tensor(np.ones((1, 1, 6, 7), np.float32))
    with pytest.raises(TypeError):
        nn.MaxPool2d(kernel_size=2.0)
    for bad in (dict(kernel_size=0), dict(pad_mode="full"), dict(padding=1), dict(data_format="NHWC")):
        for cls in (nn.MaxPool2d, nn.AvgPool2d):
            with pytest.raises(ValueError):
                cls(**{"kernel_size": 2, **bad})
    with pytest.raises(ValueError):
        nn.MaxPool1d(1, 1, pad_mode="pad", padding=1)  # padding past half the kernel
    with pytest.raises(ValueError):
        nn.MaxPool2d(8)(x)  # no window fits
    with pytest.raises(RuntimeError):
        nn.AvgPool2d(8)(x)
    with pytest.raises(ValueError):
        nn.MaxPool2d(2)(Tensor(np.ones((4, 4), np.float32)))
    with pytest.raises(TypeError):
        nn.MaxPool2d(2)(Tensor(np.ones((1, 1, 4, 4), np.int32)))


POOL_CASES = [
    *(
        (cls, dict(kernel_size=k, stride=s, pad_mode=mode), (2, 2, 6, 7))
        for cls, k, s, mode in itertools.product(
            ("MaxPool2d", "AvgPool2d"), (2, 3, (2, 3)), (1, 2, (2, 1)), ("valid", "same")
        )
    ),
    *(
        (cls, dict(kernel_size=k, stride=s, pad_mode="pad", padding=p, ceil_mode=c, **extra), (1, 2, 6, 7))
        for cls, extra in (
            ("MaxPool2d", {}),
            ("MaxPool2d", {"dilation": 2}),
            ("MaxPool2d", {"return_indices": True}),
            ("AvgPool2d", {}),
            ("AvgPool2d", {"count_include_pad": False}),
            ("AvgPool2d", {"divisor_override": 2}),
        )
        for k, s, p, c in itertools.product((3, (3, 2)), (2, 3), (1, (1, 0)), (False, True))
    ),
    *(
        (cls, dict(kernel_size=3, stride=2, pad_mode=mode, **extra), (2, 3, 8))
        for cls, extra in (("MaxPool1d", {}), ("AvgPool1d", {}), ("AvgPool1d", {"count_include_pad": False}))
        for mode in ("same", "pad")
    ),
    ("AvgPool1d", dict(kernel_size=3, stride=2), (3, 8)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, pad_mode="same", ceil_mode=True), (1, 2, 5, 7)),
    ("MaxPool2d", dict(kernel_size=2, stride=2, pad_mode="pad", padding=1), (2, 5, 5)),
]


@needs_mindspore
@pytest.mark.parametrize(
    "cls, kwargs, shape", POOL_CASES, ids=lambda v: str(v) if isinstance(v, tuple) else None
)
def test_pooling_as_mindspore(ms, quiet, cls, kwargs, shape):
    x = np.random.default_rng(sum(shape)).integers(-4, 5, shape).astype(np.float32)  # many ties
    expected = weighted_grad(ms, getattr(ms.nn, cls)(**kwargs), ms.Tensor(x))
    got = weighted_grad(symgrad, getattr(nn, cls)(**kwargs), Tensor(x))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
