"""ops.Dropout (the primitive: output and mask) and ops.dropout (the function): the mask's law,
the scaling, the gradient through the mask, reproducibility under set_seed, the arguments, and
the same shapes, dtypes and output/mask relation as real MindSpore where it is installed."""

from __future__ import annotations

import contextlib
import importlib.util
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, ops


@pytest.mark.parametrize("keep", [0.3, 0.8, 1.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_primitive_keeps_each_element_with_probability_keep_prob(keep, dtype):
    x = np.linspace(-2, 3, 40_000).astype(dtype).reshape(200, 200)
    out, mask = ops.Dropout(keep_prob=keep)(Tensor(x))
    out, mask = out.asnumpy(), mask.asnumpy()
    assert out.dtype == mask.dtype == dtype and out.shape == mask.shape == x.shape
    assert set(np.unique(mask)) <= {0.0, 1.0}
    assert abs(mask.mean() - keep) < 4 * np.sqrt(keep * (1 - keep) / mask.size) + 1e-12  # 4 sigma
    np.testing.assert_allclose(out, x * mask / dtype(keep), rtol=1e-6)


def test_the_gradient_flows_through_the_mask_and_a_function_call_draws_a_new_one():
    x = Tensor(np.ones((50, 40)))
    drop = ops.Dropout(keep_prob=0.6)
    masks = []

    def f(t):
        out, mask = drop(t)
        masks.append(mask.asnumpy())
        return (out * 3.0).sum()

    grad = ops.grad(f)(x).asnumpy()
    np.testing.assert_allclose(grad, 3.0 * masks[-1] / 0.6, rtol=1e-12)
    a, b = ops.dropout(x, p=0.5).asnumpy(), ops.dropout(x, p=0.5).asnumpy()
    assert not np.array_equal(a, b)


def test_dropout_function_training_flag_and_edges():
    x = Tensor(np.arange(1.0, 7.0).reshape(2, 3))
    assert ops.dropout(x, p=0.9, training=False) is x or np.array_equal(
        ops.dropout(x, 0.9, False).asnumpy(), x.asnumpy()
    )
    np.testing.assert_array_equal(ops.dropout(x, p=0.0).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.dropout(x, p=1.0).asnumpy(), np.zeros((2, 3)))
    values = ops.dropout(x, p=0.25).asnumpy()
    assert np.all((values == 0) | np.isclose(values, x.asnumpy() / 0.75))


def test_seeds_make_the_masks_reproducible():
    x = Tensor(np.ones((30, 30), np.float32))
    symgrad.set_seed(5)
    first = ops.Dropout(0.5, Seed0=3, Seed1=1)(x)[1].asnumpy()
    symgrad.set_seed(5)
    np.testing.assert_array_equal(ops.Dropout(0.5, Seed0=3, Seed1=1)(x)[1].asnumpy(), first)
    assert not np.array_equal(ops.Dropout(0.5, Seed0=4, Seed1=1)(x)[1].asnumpy(), first)


def test_bad_arguments_are_named():
    for bad in (0.0, 1.5, True, "0.5"):
        with pytest.raises(ValueError, match="For 'Dropout', the 'keep_prob' must be a number in range"):
            ops.Dropout(keep_prob=bad)
    with pytest.raises(ValueError, match="For 'dropout', 'p' must be a number in"):
        ops.dropout(Tensor(np.ones(3)), p=1.5)
    with pytest.raises(
        TypeError,
        match="For 'Dropout', the input must be a float16, float32 or float64 Tensor, but got Tensor",
    ):
        ops.Dropout(0.5)(Tensor(np.ones(3, np.int32)))


@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed")
def test_shapes_dtypes_and_the_output_mask_relation_as_mindspore():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindspore

        with contextlib.suppress(Exception):  # MindSpore 2.10's first op under NumPy 2 fails once
            mindspore.ops.add(mindspore.Tensor(np.ones(2, np.float32)), 1)
        x = np.linspace(0.5, 2, 24, dtype=np.float32).reshape(2, 3, 4)
        for lib in (mindspore, symgrad):
            out, mask = lib.ops.Dropout(keep_prob=0.7)(lib.Tensor(x))
            out, mask = out.asnumpy(), mask.asnumpy()
            assert out.shape == mask.shape == x.shape and out.dtype == mask.dtype == np.float32
            np.testing.assert_allclose(out, x * mask / np.float32(0.7), rtol=1e-6)
            same = lib.ops.dropout(lib.Tensor(x), p=0.4, training=False).asnumpy()
            np.testing.assert_array_equal(same, x)
