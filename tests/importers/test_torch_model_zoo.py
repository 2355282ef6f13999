"""A model zoo's ordinary PyTorch modules and functional calls imported and checked against PyTorch
(issue 41).

The reference is PyTorch itself in the same run, on float64 inputs: its forward values and
torch.autograd's derivatives. The zoo list compares values and a vector-Jacobian product with the
inputs and every Parameter, and is the record of what imports (refused cases are strict xfails).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import numpy as np
import pytest

import symgrad
from symgrad.errors import OpError
from tests.importers.torch_models import _data, _eval

if importlib.util.find_spec("torch") is not None:
    import torch
    import torch.nn.functional as F  # noqa: N812 (PyTorch's usual name)
    from torch import nn

    from symgrad.importers import from_torch

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")


def _values_and_gradients_match(program, *inputs: torch.Tensor) -> None:
    """Forward values, and the gradient of ``sum(out * c)`` (c random) with respect to every input
    and Parameter, as PyTorch computes them."""
    module = program if isinstance(program, nn.Module) else _as_module(program)
    imported = from_torch(module, *inputs)
    xs = [symgrad.Tensor(x.numpy()) for x in inputs]
    reference = module(*inputs)
    np.testing.assert_allclose(imported(*xs).asnumpy(), reference.detach().numpy(), rtol=1e-12, atol=1e-13)
    weights = np.random.default_rng(0).standard_normal(reference.shape)

    def loss(*args):
        return (imported(*args) * symgrad.Tensor(weights)).sum()

    ours_in, ours_w = symgrad.grad(loss, tuple(range(len(xs))), weights=imported.trainable_params())(*xs)
    leaves = [x.clone().requires_grad_() for x in inputs]
    module.zero_grad()
    (module(*leaves) * torch.tensor(weights)).sum().backward()
    for ours, leaf in zip(ours_in, leaves):
        np.testing.assert_allclose(ours.asnumpy(), leaf.grad.numpy(), rtol=1e-10, atol=1e-12)
    params = dict(module.named_parameters())
    for ours, name in zip(ours_w, imported._params):
        np.testing.assert_allclose(
            ours.asnumpy(), params[name].grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name
        )


def _as_module(fn: Callable) -> nn.Module:
    class Function(nn.Module):
        def forward(self, *args):
            return fn(*args)

    return Function()


# ----- a model zoo's ordinary modules and functional calls -----


def _assigned(x: torch.Tensor) -> torch.Tensor:
    """Writes by constant indices (aten.index_put): one replaced, one accumulated."""
    y = x * 2
    y[torch.tensor([0, 2])] = torch.tensor([5.0, 6.0], dtype=torch.float64) * x[1]
    z = torch.zeros(4, dtype=torch.float64).index_put((torch.tensor([1, 1, 3]),), x[:3], accumulate=True)
    return y * z


def _zoo() -> dict[str, Callable[[], tuple]]:
    """name -> () -> (a module or function, its float64 inputs)."""

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x):
            return self.mha(x, x, x)[0]  # need_weights=True: not through scaled_dot_product_attention

    class Recurrent(nn.Module):
        def __init__(self, kind: str):
            super().__init__()
            self.rnn = getattr(nn, kind)(3, 2, batch_first=True)

        def forward(self, x):
            return self.rnn(x)[0]

    d, m = _data, _eval
    target, mask = torch.tensor([2, 0, 1]), torch.tensor([True, False, True])
    return {
        "Conv1d": lambda: (m(nn.Conv1d(2, 3, 3, stride=2, padding=1)), (d(1, 2, 7),)),
        "Conv1d-same-reflect": lambda: (
            m(nn.Conv1d(2, 2, 4, padding="same", padding_mode="reflect")),
            (d(1, 2, 6),),
        ),
        "Conv2d": lambda: (m(nn.Conv2d(2, 3, 3, stride=2, padding=1, groups=1)), (d(1, 2, 5, 5),)),
        "Conv3d": lambda: (m(nn.Conv3d(2, 4, 2, stride=(1, 2, 1), padding=1, groups=2)), (d(1, 2, 3, 4, 3),)),
        "ConvTranspose1d": lambda: (
            m(nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1, output_padding=1)),
            (d(1, 2, 4),),
        ),
        "ConvTranspose2d": lambda: (m(nn.ConvTranspose2d(2, 2, 3, stride=2)), (d(1, 2, 3, 3),)),
        "ConvTranspose3d": lambda: (m(nn.ConvTranspose3d(2, 2, 2, stride=2)), (d(1, 2, 2, 2, 1),)),
        "MaxPool1d": lambda: (m(nn.MaxPool1d(3, stride=2, padding=1)), (d(1, 2, 7),)),
        "MaxPool2d": lambda: (m(nn.MaxPool2d(2)), (d(1, 2, 4, 4),)),
        "MaxPool2d-ceil-dilation": lambda: (
            m(nn.MaxPool2d(2, 2, padding=1, dilation=2, ceil_mode=True)),
            (d(1, 1, 6, 6),),
        ),
        "MaxPool3d": lambda: (m(nn.MaxPool3d(2)), (d(1, 1, 4, 4, 2),)),
        "AvgPool1d": lambda: (m(nn.AvgPool1d(3, stride=2, padding=1)), (d(1, 2, 7),)),
        "AvgPool2d": lambda: (
            m(nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)),
            (d(1, 1, 5, 5),),
        ),
        "AvgPool2d-ceil-divisor": lambda: (
            m(nn.AvgPool2d(3, 2, 1, ceil_mode=True, divisor_override=4)),
            (d(1, 1, 6, 6),),
        ),
        "AvgPool3d": lambda: (m(nn.AvgPool3d(2)), (d(1, 1, 4, 4, 2),)),
        "AdaptiveAvgPool1d": lambda: (m(nn.AdaptiveAvgPool1d(3)), (d(1, 2, 7),)),
        "AdaptiveAvgPool2d": lambda: (m(nn.AdaptiveAvgPool2d((2, 3))), (d(1, 2, 5, 6),)),
        "AdaptiveAvgPool3d": lambda: (m(nn.AdaptiveAvgPool3d((1, 2, 2))), (d(1, 1, 3, 4, 3),)),
        "AdaptiveMaxPool2d": lambda: (m(nn.AdaptiveMaxPool2d((2, 2))), (d(1, 2, 5, 4),)),
        "BatchNorm1d-eval": lambda: (m(nn.BatchNorm1d(3)), (d(4, 3),)),
        "BatchNorm2d-eval": lambda: (m(nn.BatchNorm2d(2, affine=False)), (d(2, 2, 3, 3),)),
        "LayerNorm": lambda: (m(nn.LayerNorm(4)), (d(3, 4),)),
        "GroupNorm": lambda: (m(nn.GroupNorm(2, 4)), (d(2, 4, 3),)),
        "InstanceNorm2d": lambda: (m(nn.InstanceNorm2d(2, affine=True)), (d(2, 2, 3, 3),)),
        "LocalResponseNorm": lambda: (m(nn.LocalResponseNorm(2)), (d(1, 4, 3),)),
        "Embedding": lambda: (
            lambda w: F.embedding(torch.tensor([[1, 3], [0, 1]]), w, padding_idx=0),
            (d(5, 3),),
        ),
        "Dropout-eval": lambda: (m(nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))), (d(2, 3),)),
        "GELU-SiLU-Mish": lambda: (
            lambda x: F.gelu(x) + F.silu(x) + F.mish(x) + F.gelu(x, approximate="tanh"),
            (d(6),),
        ),
        "Hardswish-ReLU6-Hardtanh": lambda: (
            lambda x: F.hardswish(x) + F.relu6(x * 4) + F.hardtanh(x),
            (d(6) * 2,),
        ),
        "Softplus-ELU-LeakyReLU": lambda: (
            lambda x: F.softplus(x, 2) + F.elu(x, 0.7) + F.leaky_relu(x, 0.1),
            (d(6),),
        ),
        "SELU-CELU-PReLU": lambda: (m(nn.Sequential(nn.SELU(), nn.CELU(0.5), nn.PReLU(3))), (d(2, 3),)),
        "Softsign-Tanhshrink-LogSigmoid": lambda: (
            lambda x: F.softsign(x) + F.tanhshrink(x) + F.logsigmoid(x),
            (d(6),),
        ),
        "pad-constant": lambda: (lambda x: F.pad(x, (1, 2, -1, 1), value=0.5), (d(1, 2, 3, 3),)),
        "pad-reflect": lambda: (lambda x: F.pad(x, (2, 1), mode="reflect"), (d(1, 2, 4),)),
        "pad-replicate": lambda: (lambda x: F.pad(x, (1, 2, 2, 0), mode="replicate"), (d(1, 2, 3, 3),)),
        "pad-circular": lambda: (lambda x: F.pad(x, (1, 2), mode="circular"), (d(1, 2, 4),)),
        "interpolate-nearest": lambda: (
            lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
            (d(1, 2, 2, 3),),
        ),
        "interpolate-bilinear": lambda: (
            lambda x: F.interpolate(x, size=(4, 5), mode="bilinear"),
            (d(1, 2, 2, 3),),
        ),
        "interpolate-bicubic-area": lambda: (
            lambda x: (
                F.interpolate(x, size=(4, 4), mode="bicubic", align_corners=True)[..., :2, :2]
                + F.interpolate(x, size=(2, 2), mode="area")
            ),
            (d(1, 1, 3, 3),),
        ),
        "PixelShuffle": lambda: (m(nn.PixelShuffle(2)), (d(1, 4, 2, 3),)),
        "flatten-unflatten": lambda: (
            lambda x: nn.Unflatten(1, (2, 3))(torch.flatten(x, 1)) * 2,
            (d(2, 3, 2),),
        ),
        "softmax-log_softmax-softmin": lambda: (
            lambda x: F.softmax(x, -1) + F.log_softmax(x, 0) + F.softmin(x, 1),
            (d(2, 3),),
        ),
        "cross_entropy": lambda: (lambda x: F.cross_entropy(x, target, label_smoothing=0.1), (d(3, 4),)),
        "nll_loss": lambda: (lambda x: F.nll_loss(F.log_softmax(x, 1), target), (d(3, 4),)),
        "mse-l1-smooth_l1-huber": lambda: (
            lambda x, y: (
                F.mse_loss(x, y) + F.l1_loss(x, y) + F.smooth_l1_loss(x, y) + F.huber_loss(x, y, delta=0.5)
            ),
            (d(3, 2), d(3, 2, seed=1)),
        ),
        "bce-with-logits-kl_div": lambda: (
            lambda x, y: (
                F.binary_cross_entropy_with_logits(x, torch.sigmoid(y))
                + F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction="batchmean")
            ),
            (d(2, 3), d(2, 3, seed=1)),
        ),
        "cosine_similarity-normalize": lambda: (
            lambda x, y: F.cosine_similarity(x, y) + F.normalize(x, dim=1).sum(1),
            (d(2, 3), d(2, 3, seed=1)),
        ),
        "max-min-values": lambda: (
            lambda x: x.max(1).values * 2 + torch.min(x, 1, keepdim=True)[0].squeeze(1),
            (d(3, 4),),
        ),
        "max-min-amin-all": lambda: (lambda x: torch.max(x) + torch.min(x) + x.amin(0).sum(), (d(2, 3),)),
        "sort-values": lambda: (lambda x: torch.sort(x, 1, descending=True).values, (d(2, 4),)),
        "topk-values": lambda: (lambda x: torch.topk(x, 2).values, (d(2, 4),)),
        "median-kthvalue": lambda: (lambda x: x.median(1).values + x.kthvalue(2, 1).values, (d(2, 5),)),
        "argmax-as-a-number": lambda: (lambda x: x * torch.argmax(x, 1, keepdim=True), (d(2, 3),)),
        "cumsum": lambda: (lambda x: torch.cumsum(x, 1), (d(2, 4),)),
        "round-floor": lambda: (lambda x: x * torch.round(x * 3) + torch.floor(x) * x, (d(5),)),
        "masked_fill-where": lambda: (
            lambda x: x.masked_fill(mask, -1.0) * torch.where(mask, x, 2 * x),
            (d(3),),
        ),
        "einsum-bmm": lambda: (
            lambda x, y: torch.einsum("bij,bjk->bik", x, y),
            (d(2, 2, 3), d(2, 3, 2, seed=1)),
        ),
        "unfold-fold": lambda: (lambda x: F.fold(F.unfold(x, 2) ** 2, (3, 3), 2), (d(1, 2, 3, 3),)),
        "index-assignment": lambda: (_assigned, (d(4),)),
        "grid_sample": lambda: (
            lambda x: F.grid_sample(
                x, torch.tensor([[[[0.1, -0.3], [0.5, 0.2]]]], dtype=torch.float64), align_corners=False
            ),
            (d(1, 1, 3, 3),),
        ),
        "chunk-split-roll-repeat": lambda: (
            lambda x: torch.cat(x.chunk(2, 1)[::-1], 1) + torch.roll(x, 1, 1) + x.repeat(2, 1)[1:3],
            (d(2, 4),),
        ),
        "tril-triu-diag-std": lambda: (
            lambda x: x.tril() + x.triu(1) * 2 + torch.diag(torch.diag(x)) + x.std(1),
            (d(3, 3),),
        ),
        "scaled_dot_product_attention": lambda: (
            lambda q: F.scaled_dot_product_attention(q, q * 2, q, is_causal=True, scale=0.3),
            (d(2, 3, 4),),
        ),
        "MultiheadAttention": lambda: (m(Attention()), (d(1, 3, 8),)),
        "TransformerEncoderLayer": lambda: (
            m(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)),
            (d(1, 3, 8),),
        ),
        "GRU": lambda: (m(Recurrent("GRU")), (d(1, 2, 3),)),
        "LSTM": lambda: (m(Recurrent("LSTM")), (d(1, 2, 3),)),
        "Bilinear": lambda: (m(nn.Bilinear(2, 3, 2)), (d(2, 2), d(2, 3, seed=1))),
        "cumprod": lambda: (lambda x: torch.cumprod(x, 1), (d(2, 3),)),
        "logcumsumexp-cummax": lambda: (
            lambda x: torch.logcumsumexp(x, 1) + torch.cummax(x, 1).values,
            (d(2, 3),),
        ),
        "det-inv": lambda: (lambda x: torch.linalg.det(x) + torch.linalg.inv(x).sum(), (d(3, 3),)),
        "solve-slogdet-cholesky-lu": lambda: (
            lambda a, b: (
                torch.linalg.solve(a, b).sum()
                + torch.linalg.slogdet(a)[1]
                + torch.linalg.cholesky(a @ a.T + 3 * torch.eye(3, dtype=torch.float64)).sum()
                + torch.linalg.lu(a)[2].sum()
                + torch.linalg.solve_triangular(a.triu() + 3 * torch.eye(3), b, upper=True).sum()
            ),
            (d(3, 3), d(3, 2, seed=1)),
        ),
        "scatter_reduce-scatter_add-masked_select": lambda: (
            lambda x, y: (
                x.scatter_reduce(0, torch.tensor([[0, 1], [0, 0]]), y, "amax").sum()
                + x.scatter_add(1, torch.tensor([[1, 1], [0, 1]]), y).sum() * 2
                + x.scatter_reduce(1, torch.tensor([[1, 1], [0, 1]]), y, "prod", include_self=False).sum()
                + torch.masked_select(x, torch.tensor([[True, False], [True, True]])).sum()
            ),
            (d(2, 2), d(2, 2, seed=1)),
        ),
        "fmax-copysign-remainder-hypot-logaddexp": lambda: (
            lambda x, y: (
                torch.fmax(x, y)
                + torch.copysign(x, y)
                + torch.remainder(x, y.abs() + 0.5)
                + torch.fmod(x, 0.7)
                + torch.hypot(x, y)
                + torch.logaddexp(x, y)
                + torch.asinh(x)
                + torch.prod(x, 1, keepdim=True)
                + torch.linalg.vector_norm(x, float("inf"))
                + torch.div(x, y, rounding_mode="trunc") * x
            ),
            (d(3, 2), d(3, 2, seed=1)),
        ),
        # refused: each names why
        "EmbeddingBag": lambda: (
            lambda w: F.embedding_bag(torch.tensor([1, 2, 4, 4, 3]), w, torch.tensor([0, 2]), mode="mean"),
            (d(5, 3),),
        ),
        "Dropout-train": lambda: (nn.Dropout(0.5).train(), (d(4),)),
    }


REFUSED = {
    "EmbeddingBag": "aten._embedding_bag_forward_only has no row",
    "Dropout-train": "random: dropout in training mode draws a mask (aten.rand_like), which a closed form cannot hold",
}
ZOO = [
    "Conv1d", "Conv1d-same-reflect", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool2d", "MaxPool2d-ceil-dilation", "MaxPool3d", "AvgPool1d", "AvgPool2d",
    "AvgPool2d-ceil-divisor", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool2d", "BatchNorm1d-eval", "BatchNorm2d-eval", "LayerNorm", "GroupNorm", "InstanceNorm2d",
    "LocalResponseNorm", "Embedding", "Dropout-eval", "GELU-SiLU-Mish", "Hardswish-ReLU6-Hardtanh",
    "Softplus-ELU-LeakyReLU", "SELU-CELU-PReLU", "Softsign-Tanhshrink-LogSigmoid", "pad-constant", "pad-reflect",
    "pad-replicate", "pad-circular", "interpolate-nearest", "interpolate-bilinear", "interpolate-bicubic-area",
    "PixelShuffle", "flatten-unflatten", "softmax-log_softmax-softmin", "cross_entropy", "nll_loss",
    "mse-l1-smooth_l1-huber", "bce-with-logits-kl_div", "cosine_similarity-normalize", "max-min-values",
    "max-min-amin-all", "sort-values", "topk-values", "median-kthvalue", "argmax-as-a-number", "cumsum",
    "round-floor", "masked_fill-where", "einsum-bmm", "unfold-fold", "index-assignment", "grid_sample", "chunk-split-roll-repeat",
    "tril-triu-diag-std", "scaled_dot_product_attention", "MultiheadAttention", "TransformerEncoderLayer", "GRU",
    "LSTM", "Bilinear", "cumprod", "logcumsumexp-cummax", "det-inv", "solve-slogdet-cholesky-lu",
    "scatter_reduce-scatter_add-masked_select", "fmax-copysign-remainder-hypot-logaddexp", *REFUSED,
]  # fmt: skip


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(raises=OpError, strict=True, reason=REFUSED[n]))
        if n in REFUSED
        else n
        for n in ZOO
    ],
)
def test_a_model_zoo_module_or_call_imports_and_matches_pytorch(name):
    program, inputs = _zoo()[name]()
    _values_and_gradients_match(program, *inputs)


def test_the_zoo_list_and_its_builders_agree():
    assert sorted(ZOO) == sorted(_zoo()) and len(set(ZOO)) == len(ZOO)
