"""Conv2D / conv2d / nn.Conv2d: values and derivatives against PyTorch and hand formulas."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad.errors import OpError

HAS_TORCH = importlib.util.find_spec("torch") is not None
RNG = np.random.default_rng(0)


def test_the_closed_form_of_backpropagation_through_a_3x3_kernel_is_the_transposed_convolution():
    kernel = Parameter(Tensor(np.ones((1, 1, 3, 3))), name="k")
    image = Tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    dx = symgrad.grad(lambda x: ops.conv2d(x, kernel).sum())(image)
    names = [[str(e) for e in row] for row in dx.expr[0, 0]]
    assert names[0] == ["k1", "k1 + k2", "k2 + k3", "k3"]  # each pixel: the taps that read it
    assert names[1][1] == "k1 + k2 + k4 + k5"
    # the kernel's gradient: the sum of the window each tap meets
    dk = symgrad.grad(lambda x: ops.conv2d(x, kernel).sum(), grad_position=None, weights=[kernel])(image)
    pixels = np.arange(16.0).reshape(4, 4)
    windows = [[pixels[i : i + 2, j : j + 2].sum() for j in range(3)] for i in range(3)]
    np.testing.assert_allclose(dk[0].asnumpy()[0, 0], windows)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize(
    "stride, padding, dilation, groups",
    [
        (1, (0, 0, 0, 0), 1, 1),
        (2, (1, 2, 0, 1), 1, 2),
        (1, (2, 2, 1, 1), 2, 1),
        ((2, 1), (1, 1, 1, 1), (1, 2), 2),
    ],
)
def test_values_and_gradients_match_pytorch(stride, padding, dilation, groups):
    import torch

    x, w, b = RNG.normal(size=(2, 4, 7, 6)), RNG.normal(size=(6, 4 // groups, 3, 2)), RNG.normal(size=6)
    cotangent = None

    def ours(x, w, b):
        return ops.conv2d(x, w, b, stride, "pad", padding, dilation, groups)

    out = ours(Tensor(x), Tensor(w), Tensor(b))
    top, bottom, left, right = padding
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    s, d = (
        (stride, stride) if isinstance(stride, int) else stride,
        (dilation,) * 2 if isinstance(dilation, int) else dilation,
    )
    ref = torch.nn.functional.conv2d(
        torch.nn.functional.pad(xt, (left, right, top, bottom)), wt, bt, s, 0, d, groups
    )
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    cotangent = RNG.normal(size=ref.shape)
    ref.backward(torch.tensor(cotangent))
    grads = symgrad.grad(lambda x, w, b: (ours(x, w, b) * Tensor(cotangent)).sum(), grad_position=(0, 1, 2))(
        Tensor(x), Tensor(w), Tensor(b)
    )
    for g, t in zip(grads, (xt, wt, bt)):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-11, atol=1e-12)


def test_same_padding_keeps_the_size_and_the_layer_has_mindspores_shapes():
    layer = nn.Conv2d(2, 4, 3, pad_mode="same", has_bias=True, weight_init="ones", bias_init="zeros")
    assert layer.weight.shape == (4, 2, 3, 3) and layer.bias.shape == (4,)
    x = Tensor(np.ones((1, 2, 5, 5), np.float32))
    out = layer(x)
    assert out.shape == (1, 4, 5, 5) and out.dtype == symgrad.float32
    assert (
        float(out.asnumpy()[0, 0, 2, 2]) == 18.0 and float(out.asnumpy()[0, 0, 0, 0]) == 8.0
    )  # a corner sees 2x2
    strided = ops.Conv2D(4, 3, pad_mode="same", stride=2)(x, layer.weight)
    assert strided.shape == (1, 4, 3, 3)


def test_the_c_backend_runs_a_convolution_and_its_gradient():
    x = symgrad.placeholder("x", (1, 1, 6, 6))
    w = Parameter(Tensor(RNG.normal(size=(2, 1, 3, 3))), name="w")
    loss = (ops.tanh(ops.conv2d(x, w)) ** 2).sum()
    (dw,) = symgrad.grad(lambda t: (ops.tanh(ops.conv2d(t, w)) ** 2).sum(), grad_position=None, weights=[w])(
        x
    )
    data = RNG.normal(size=(1, 1, 6, 6))
    by_c = symgrad.kernel([loss, dw], [x, w], backend="c")(data, w.asnumpy())
    by_numpy = symgrad.kernel([loss, dw], [x, w], backend="numpy")(data, w.asnumpy())
    for a, b in zip(by_c, by_numpy):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_bad_shapes_name_the_op_and_the_shapes():
    with pytest.raises(OpError, match=r"Conv2D: x has 3 channels and weight \(2, 2, 3, 3\)"):
        ops.conv2d(Tensor(np.ones((1, 3, 5, 5))), Tensor(np.ones((2, 2, 3, 3))))
    with pytest.raises(OpError, match="does not fit"):
        ops.conv2d(Tensor(np.ones((1, 1, 2, 2))), Tensor(np.ones((1, 1, 3, 3))))
    with pytest.raises(ValueError, match="pad_mode must be"):
        ops.conv2d(Tensor(np.ones((1, 1, 5, 5))), Tensor(np.ones((1, 1, 3, 3))), pad_mode="reflect")
