"""The PyTorch ops that crashed the importer in issue 41 (max/min along a dim, sort and topk, pooling
indices, rounding, attention, a transformer layer), imported and checked against PyTorch.

The reference is PyTorch itself in the same run, on float64 inputs: its forward values and
torch.autograd's derivatives. ``symgrad.verify`` compares whole Jacobians (second order where it
is cheap).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import lowering
import symgrad
from symgrad import ops
from tests.importers.torch_models import _data, _eval

if importlib.util.find_spec("torch") is not None:
    import torch
    import torch.nn.functional as F  # noqa: N812 (PyTorch's usual name)
    from torch import nn

    from symgrad.importers import from_torch

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")


# ----- the crashes of issue 41 -----


def test_max_and_min_along_a_dim_give_pytorchs_values_indices_and_gradient_to_one_element():
    """Ties give the whole gradient to the first maximal element, NaN wins, as in PyTorch."""
    x = torch.tensor(
        [[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [0.0, np.nan, 5.0, 1.0]], dtype=torch.float64
    )

    def picks(x):
        top, bottom = x.max(1), torch.min(x, 0, keepdim=True)
        return top.values, top.indices, bottom.values, bottom.indices, torch.argmax(x, 1), x.argmin()

    program = from_torch(picks, x)
    for ours, theirs in zip(program(symgrad.Tensor(x.numpy())), picks(x)):
        np.testing.assert_array_equal(ours.asnumpy(), theirs.numpy())
    for k in (0, 2):
        ours = symgrad.grad(lambda t, k=k: program(t)[k].sum())(symgrad.Tensor(x.numpy()))
        leaf = x.clone().requires_grad_()
        picks(leaf)[k].sum().backward()
        np.testing.assert_array_equal(ours.asnumpy(), leaf.grad.numpy())


def test_a_stable_softmax_and_logsumexp_written_with_max_values_verify_clean():
    def stable(x):
        shift = x.max(1, keepdim=True).values
        e = torch.exp(x - shift)
        softmax = e / e.sum(1, keepdim=True)
        low = x.min(0, keepdim=True).values
        logsumexp = low + torch.log(torch.exp(x - low).sum(0))
        return (softmax**2).sum() + logsumexp.sum()

    x = torch.tensor([[0.5, -2.0, 3.0], [1.0, 0.2, -0.3]], dtype=torch.float64)
    report = symgrad.verify(stable, x, order=2)
    assert report.ok, str(report)


def test_sort_topk_kthvalue_and_median_values_verify_and_their_indices_are_pytorchs():
    def f(x):
        ordered = torch.sort(x, 1, descending=True)
        return (
            (ordered.values * torch.arange(4.0, dtype=torch.float64)).sum()
            + (torch.topk(x, 2, 0).values ** 2).sum()
            + x.kthvalue(2, 1).values.sum() * 0.5
            + torch.sort(x, 0).values[0].sum()
        )  # fmt: skip

    x = _data(3, 4)
    assert symgrad.verify(f, x, order=2).ok

    def indices(x):
        return torch.sort(x, 1).indices, torch.topk(x, 2).indices, x.median(1).indices

    program = from_torch(indices, x)
    for ours, theirs in zip(program(symgrad.Tensor(x.numpy())), indices(x)):
        np.testing.assert_array_equal(ours.asnumpy(), theirs.numpy())


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1), (1, 2, 7)),
        (lambda: nn.Conv1d(4, 2, 2, padding=2, dilation=2, groups=2), (2, 4, 4)),
        (lambda: nn.Conv3d(2, 2, 2, stride=(1, 2, 1), padding=(1, 0, 0)), (1, 2, 2, 4, 2)),
        (lambda: nn.Conv3d(2, 4, (2, 1, 2), dilation=(1, 1, 2), groups=2), (1, 2, 3, 2, 3)),
        (lambda: nn.ConvTranspose1d(2, 2, 3, stride=2, padding=1, output_padding=1), (1, 2, 3)),
    ],
    ids=["conv1d", "conv1d-dilation-groups", "conv3d", "conv3d-dilation-groups", "conv_transpose1d"],
)
def test_1d_and_3d_convolutions_verify_with_their_weights(make, shape):
    report = symgrad.verify(nn.Sequential(make(), nn.Tanh()).double(), _data(*shape), weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 3


def test_max_pooling_gives_pytorchs_indices_and_gradient_ties_included():
    x = _data(1, 2, 7, 6)
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = x[0, 1, 3, 3] = x[0, 1, 4, 3] = 5.0

    def pool(x):
        return (
            F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True, return_indices=True)
            + F.max_pool2d(x, 2, 1, padding=1, dilation=2, return_indices=True)
            + F.adaptive_max_pool2d(x, (2, 3), return_indices=True)
        )  # fmt: skip

    program = from_torch(pool, x)
    ours = program(symgrad.Tensor(x.numpy()))
    for k, theirs in enumerate(pool(x)):
        np.testing.assert_array_equal(ours[k].asnumpy(), theirs.numpy())
        if k % 2 == 0:
            gradient = symgrad.grad(lambda t, k=k: program(t)[k].sum())(symgrad.Tensor(x.numpy()))
            leaf = x.clone().requires_grad_()
            pool(leaf)[k].sum().backward()
            np.testing.assert_array_equal(gradient.asnumpy(), leaf.grad.numpy())


def test_pooling_and_constant_padding_verify():
    def f(x):
        return (
            (F.max_pool1d(x[0], 3, 2, padding=1) ** 2).sum()
            + (F.max_pool3d(x.unsqueeze(0), 2, 1) ** 2).sum()
            + (F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False) ** 2).sum()
            + (F.avg_pool3d(x.unsqueeze(0), (1, 2, 2)) ** 2).sum()
            + (F.adaptive_avg_pool2d(x, (2, 3)) ** 2).sum()
            + (F.pad(x, (1, -1, 2, 0), value=0.5) ** 3).sum()
        )  # fmt: skip

    assert symgrad.verify(f, _data(2, 5, 4), order=2).ok


def test_rounding_ops_have_numpys_values_and_straight_through_estimators_verify_clean():
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 0.3, -2.7, 1.0], dtype=torch.float64)

    def rounded(x):
        return torch.stack([torch.round(x), torch.floor(x), torch.ceil(x), torch.trunc(x), torch.sign(x)])

    np.testing.assert_array_equal(
        from_torch(rounded, x)(symgrad.Tensor(x.numpy())).asnumpy(), rounded(x).numpy()
    )

    def estimators(x):
        return (
            (x + (torch.round(x) - x).detach()) ** 2 + (x + (torch.floor(x) - x).detach()) * x
            + (x + (torch.sign(x) - x).detach()) * torch.ceil(x) + torch.trunc(x * 3) * x + torch.round(x, decimals=1)
        ).sum()  # fmt: skip

    report = symgrad.verify(estimators, torch.tensor([0.3, -0.7, 1.2, 2.6], dtype=torch.float64), order=2)
    assert report.ok, str(report)


def test_scaled_dot_product_attention_with_a_causal_mask_and_attention_masks_verifies():
    def attention(q, k, v):
        causal = F.scaled_dot_product_attention(q, k[:, :, :2], v[:, :, :2], is_causal=True)
        keep = torch.tensor([[True, False, True], [True, True, False]])
        masked = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.7)
        added = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.full((2, 3), 0.3).tril())
        return (causal**2).sum() + (masked * added).sum()

    report = symgrad.verify(
        attention, _data(1, 2, 2, 3), _data(1, 2, 3, 3, seed=1), _data(1, 2, 3, 3, seed=2)
    )
    assert report.ok, str(report)


def test_a_transformer_encoder_layer_in_eval_mode_verifies_with_its_weights():
    layer = _eval(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True))
    report = symgrad.verify(layer, _data(1, 3, 8), weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 1 + len(list(layer.parameters()))


def test_a_conv_batchnorm_relu_maxpool_linear_model_in_eval_mode_verifies_with_its_weights():
    net = nn.Sequential(
        nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 2)
    )  # fmt: skip
    net = _eval(net)
    net[1].running_mean.uniform_(-0.5, 0.5)
    net[1].running_var.uniform_(0.5, 2.0)
    report = symgrad.verify(net, _data(1, 1, 4, 4), weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 7  # the input, and the conv's, the norm's and the linear layer's 2 each


def test_hardsigmoid_imports_and_pytorchs_float32_sixth_in_its_float64_backward_shows():
    """PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32, in float64 too (3e-8 off);
    symgrad's derivative is the exact 1/6, so verify reports the gap."""
    x = torch.tensor([-1.2, 0.5, 2.2], dtype=torch.float64)
    program = from_torch(F.hardsigmoid, x)
    np.testing.assert_array_equal(program(symgrad.Tensor(x.numpy())).asnumpy(), F.hardsigmoid(x).numpy())
    leaf = x.clone().requires_grad_()
    F.hardsigmoid(leaf).sum().backward()
    assert leaf.grad[0].item() == float(np.float32(1 / 6))
    assert symgrad.grad(lambda t: program(t).sum())(symgrad.Tensor(x.numpy())).asnumpy()[0] == 1 / 6
    assert not symgrad.verify(F.hardsigmoid, x).ok


@pytest.mark.skipif("c" not in lowering.available_backends(), reason="no C compiler here (gcc, clang or $CC)")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rounding_rows_compute_alike_in_the_numpy_and_c_kernels(dtype):
    x = symgrad.placeholder("x", (8,))
    outputs = [ops.floor(x), ops.ceil(x), ops.round(x)]
    values = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.49, -2.7, 3.2], dtype)
    reference, compiled = (symgrad.kernel(outputs, [x], backend=b)(values) for b in ("numpy", "c"))
    for r, c in zip(reference, compiled):
        assert c.dtype == r.dtype
        np.testing.assert_array_equal(c, r)
    np.testing.assert_array_equal(reference[2], [0, 2, 2, 0, -2, 0, -3, 3])  # half to even
