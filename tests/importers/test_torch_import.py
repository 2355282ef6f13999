"""PyTorch programs imported into symgrad's graph, and verify() checking torch.autograd against them.

The references are PyTorch itself (values and autograd derivatives of correct programs, float64),
sympy.diff of formulas written by hand, and planted bugs in custom autograd Functions.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import sympy

import symgrad
from symgrad.core.registry import OPS, imports_of
from symgrad.errors import OpError
from symgrad.importers.common import import_table
from symgrad.verification.report import FAIL, KINK

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")

if importlib.util.find_spec("torch") is not None:
    import torch
    import torch.nn.functional as F  # noqa: N812 (PyTorch's usual name)
    from torch.func import hessian, vmap

    from symgrad.importers import from_torch


def _mlp(widths, activation=None):
    torch.manual_seed(0)
    layers = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i < len(widths) - 2:
            layers.append(activation() if activation else torch.nn.Tanh())
    return torch.nn.Sequential(*layers).double()


def _function(forward, backward):
    """A custom autograd Function: ``backward(g, *inputs)`` is the rule under test."""

    class Custom(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            ctx.save_for_backward(*xs)
            return forward(*xs)

        @staticmethod
        def backward(ctx, g):
            return backward(g, *ctx.saved_tensors)

    return lambda *xs: Custom.apply(*xs).sum()


X3 = (
    None if importlib.util.find_spec("torch") is None else torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)
)


# ----- importing -----


@pytest.mark.parametrize(
    "activation", ["Tanh", "SiLU", "GELU", "Softplus", "ReLU", "ELU", "Sigmoid", "LeakyReLU"]
)
def test_an_imported_mlp_computes_what_pytorch_computes_and_differentiates_alike(activation):
    net = _mlp([2, 8, 8, 3], getattr(torch.nn, activation))
    x = torch.rand(5, 2, dtype=torch.float64) * 4 - 2
    program = from_torch(net, x)
    value = program(symgrad.Tensor(x.numpy()))
    np.testing.assert_allclose(value.asnumpy(), net(x).detach().numpy(), rtol=1e-13, atol=1e-14)

    def loss(inp):
        return (program(inp) ** 2).sum()

    ours = symgrad.grad(loss, weights=program.trainable_params())(symgrad.Tensor(x.numpy()))
    xs = x.clone().requires_grad_()
    (net(xs) ** 2).sum().backward()
    np.testing.assert_allclose(ours[0].asnumpy(), xs.grad.numpy(), rtol=1e-11, atol=1e-13)
    for p, (name, tp) in zip(ours[1], net.named_parameters()):
        np.testing.assert_allclose(p.asnumpy(), tp.grad.numpy(), rtol=1e-11, atol=1e-13, err_msg=name)


def test_parameters_keep_their_pytorch_names_and_formulas_show_them_as_identifiers():
    net = _mlp([2, 1])
    program = from_torch(net, torch.zeros(1, 2, dtype=torch.float64))
    assert sorted(program._params) == ["0.bias", "0.weight"]
    assert program.parameter("0.weight").name == "layer0_weight"
    with pytest.raises(KeyError, match="has no Parameter '1.weight'"):
        program.parameter("1.weight")
    gradient = symgrad.grad(program)(symgrad.Tensor(np.array([[0.3, 0.5]])))
    assert [str(e) for e in gradient.expr[0]] == ["layer0_weight1", "layer0_weight2"]  # a linear layer


def test_the_closed_form_of_a_small_pytorch_module_matches_sympy_diff():
    def f(x, y):
        return torch.tanh(x[0] * y) + torch.sin(x[1]) * torch.exp(-y)

    x, y = torch.tensor([0.4, 1.3], dtype=torch.float64), torch.tensor(0.7, dtype=torch.float64)
    program = from_torch(f, x, y)
    dx = symgrad.grad(program)(symgrad.Tensor(x.numpy()), symgrad.Tensor(y.numpy()))
    symbols = {s.name: s for s in dx.expr.free_symbols}
    assert sorted(symbols) == ["x1", "x2", "y"]
    x1, x2, yy = symbols["x1"], symbols["x2"], symbols["y"]
    formula = sympy.tanh(x1 * yy) + sympy.sin(x2) * sympy.exp(-yy)
    for i, xi in enumerate((x1, x2)):
        assert sympy.simplify(dx.expr[i] - sympy.diff(formula, xi)) == 0


def test_detach_and_no_grad_stop_the_derivative_as_in_pytorch():
    def f(x):
        with torch.no_grad():
            z = x * 3
        return (x.detach() * x).sum() + (z * x).sum()

    x = torch.tensor([0.5, -1.5], dtype=torch.float64)
    program = from_torch(f, x)
    ours = symgrad.grad(program)(symgrad.Tensor(x.numpy())).asnumpy()
    xs = x.clone().requires_grad_()
    f(xs).backward()
    np.testing.assert_allclose(ours, xs.grad.numpy())  # x + 3x, not 2x + 6x
    np.testing.assert_allclose(ours, 4 * x.numpy())


def test_ops_without_a_row_are_decomposed_by_pytorch_and_imported_piece_by_piece():
    def f(x, y):
        return (
            F.mse_loss(x, y) + F.softplus(x, beta=2).sum() + torch.cat([x, y]).pow(2).sum() + x[1:].sum()
            + torch.stack([x, y], 1).sum() + x.unsqueeze(0).expand(3, 3).mean() + torch.linalg.norm(x)
            + torch.clamp(x, -0.5, 0.5).sum() + torch.rsqrt(y).sum() + torch.log2(y).sum()
            + F.gelu(x, approximate="tanh").sum() + torch.where(x > 0, x, -x).sum()
        )  # fmt: skip

    x = torch.tensor([0.2, -0.4, 0.9], dtype=torch.float64)
    y = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    report = symgrad.verify(f, x, y, order=2)
    assert report.ok, str(report)
    assert len(report.rows) == 6  # d/dx, d/dy, and the four second-order blocks


def test_an_op_with_no_row_and_no_decomposition_is_named_with_the_supported_list():
    program = from_torch(lambda x: torch.igamma(x, x).sum(), torch.ones(3))
    with pytest.raises(
        OpError, match=r"the PyTorch op aten\.igamma\.default, decomposed .* has no row.*addmm.*tanh"
    ):
        program(symgrad.Tensor(np.ones(3, np.float32)))


def test_a_program_is_called_with_the_shapes_it_was_traced_for():
    program = from_torch(lambda x: (x * x).sum(), torch.ones(3, dtype=torch.float64))
    with pytest.raises(OpError, match=r"input 'x' has shape \(4,\); the program was traced for \(3,\)"):
        program(symgrad.Tensor(np.ones(4)))
    with pytest.raises(TypeError, match="takes 1 tensor input"):
        program(symgrad.Tensor(np.ones(3)), symgrad.Tensor(np.ones(3)))


def test_batch_norm_in_training_mode_differentiates_through_the_batch_statistics():
    net = (
        torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.Tanh()).double().train()
    )
    points = torch.rand(5, 2, dtype=torch.float64)
    report = symgrad.verify(net, points, weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 5  # the input, the linear layer's 2 and the norm's 2 Parameters


def test_values_changed_in_place_through_a_view_are_followed():
    def f(x):
        y = x * 2
        y.add_(1)
        y[0:2].mul_(3)  # changes y through a view
        return (y * y).sum()

    x = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    program = from_torch(f, x)
    assert float(program(symgrad.Tensor(x.numpy())).asnumpy()) == pytest.approx(float(f(x)), rel=1e-14)
    assert symgrad.verify(f, x, order=2).ok


def test_float32_programs_stay_float32_with_pytorchs_promotion():
    def f(x):
        return x * torch.tensor(2.0, dtype=torch.float64) + 1  # a 0-d float64 tensor does not promote

    program = from_torch(f, torch.ones(2))
    assert program(symgrad.Tensor(np.ones(2, np.float32))).asnumpy().dtype == np.float32


def test_the_aten_spellings_are_real_pytorch_ops_claimed_by_one_row_each():
    imports_of("aten")  # raises if two rows claim one name
    table = import_table("aten")  # and if a composition claims a row's name
    for name in table:
        packet, _, overload = name.partition(".")
        op = getattr(torch.ops.aten, packet, None) or getattr(torch.ops.prims, packet)  # prims share names
        assert not overload or overload in op.overloads(), name
    public = {n for n, op in OPS.items() if not op.api.internal}
    imported = {op.name for op, _ in table.values() if op is not None}
    # softplus and silu come through PyTorch's own decompositions (so softplus's threshold is PyTorch's)
    assert public - imported == {"softplus", "silu"}


# ----- verify on PyTorch programs -----


def test_a_correct_custom_function_passes_to_second_order_and_a_kink_is_explained():
    relu = _function(torch.relu, lambda g, x: g * (x > 0))
    report = symgrad.verify(relu, torch.tensor([0.0, -0.7, 1.1], dtype=torch.float64), order=2)
    assert report.ok
    assert any("kink" in n for n in report.notes)
    assert all(r.verdict in ("ok", KINK) for r in report.rows)


@pytest.mark.parametrize(
    "name, backward, order, failing",
    [
        ("wrong sign", lambda g, x: -g * torch.cos(x), 1, [0]),
        ("relative error 1e-6", lambda g, x: g * torch.cos(x) * (1 + 1e-6), 1, [0]),
        ("only at second order", lambda g, x: g * torch.cos(x).detach(), 2, [1]),
    ],
)
def test_planted_bugs_in_a_custom_backward_are_found_where_they_are(name, backward, order, failing):
    report = symgrad.verify(_function(torch.sin, backward), X3, order=order)
    assert [i for i, r in enumerate(report.rows) if r.verdict == FAIL] == failing, str(report)


def test_a_wrong_reduction_over_a_broadcast_axis_is_found():
    def backward(g, x, r):
        return g * r, (g * x).mean(0, keepdim=True)  # should be a sum

    product = _function(torch.mul, backward)

    def program(x, r):
        return product(x, r)

    wide, row = torch.rand(4, 3, dtype=torch.float64), torch.rand(1, 3, dtype=torch.float64)
    report = symgrad.verify(program, wide, row)
    assert [r.derivative for r in report.failures] == ["d out / d r"]


def test_an_error_only_float32_shows_is_found_in_float32_and_correct_float32_passes():
    overflowing = _function(F.softplus, lambda g, x: g * torch.exp(x) / (1 + torch.exp(x)))
    stable = _function(F.softplus, lambda g, x: g * torch.sigmoid(x))
    x = torch.tensor([100.0, -3.0, 0.5])
    assert not symgrad.verify(overflowing, x).ok
    assert symgrad.verify(overflowing, x.double()).ok
    assert symgrad.verify(stable, x, order=2).ok


def test_a_backward_that_raises_is_a_failed_row_with_the_reason_not_a_crash():
    def backward(g, x):
        raise RuntimeError("planted")

    report = symgrad.verify(_function(torch.sin, backward), X3)
    assert not report.ok
    assert any("planted" in n for n in report.notes)


def test_weights_of_a_module_are_verified_by_name():
    net = _mlp([2, 4, 1])
    report = symgrad.verify(
        net, torch.tensor([[0.3, -0.2]], dtype=torch.float64), weights=["0.weight", "2.bias"]
    )
    assert [r.derivative for r in report.rows] == [
        "d out / d input",
        "d out / d 0.weight",
        "d out / d 2.bias",
    ]
    assert report.ok
    with pytest.raises(ValueError, match="'3.weight', which is not a Parameter"):
        symgrad.verify(net, torch.zeros(1, 2, dtype=torch.float64), weights=["3.weight"])


def test_a_pinn_residual_written_with_torch_func_is_verified_end_to_end():
    net = _mlp([2, 16, 1])

    def residual(points):
        second = vmap(hessian(lambda p: net(p).squeeze()))(points)
        return (second[:, 0, 0] + second[:, 1, 1]).pow(2).mean()

    points = torch.rand(4, 2, dtype=torch.float64)
    report = symgrad.verify(residual, points, order=1)
    assert report.ok, str(report)


def test_a_torch_func_program_that_stops_gradients_is_refused_not_misread():
    net = _mlp([2, 4, 1])

    def residual(points):
        second = vmap(hessian(lambda p: net(p).squeeze()))(points)
        return (second.detach() * points.sum()).sum()

    with pytest.raises(OpError, match="stops gradients"):
        from_torch(residual, torch.rand(3, 2, dtype=torch.float64))


def test_an_mlp_hessian_of_a_64_wide_network_is_verified_in_float64_and_float32():
    net = _mlp([2, 64, 64, 64, 1])
    point = torch.tensor([[0.3, 0.5]], dtype=torch.float64)
    assert symgrad.verify(net, point, order=2).ok
    assert symgrad.verify(net.float(), point.float(), order=2).ok


def test_symgrad_only_arguments_are_refused_for_pytorch_programs():
    with pytest.raises(TypeError, match="expected= apply to symgrad programs"):
        symgrad.verify(lambda x: x.sum(), X3, expected=[np.ones(3)])


def test_the_pytest_helper_takes_pytorch_programs_and_carries_the_report():
    from symgrad.testing import assert_grads_match

    assert_grads_match(_function(torch.sin, lambda g, x: g * torch.cos(x)), X3, order=2)
    with pytest.raises(AssertionError, match=r"d out / d xs_0 .*FAIL"):
        assert_grads_match(_function(torch.sin, lambda g, x: g * torch.sin(x)), X3)


def test_a_small_convolutional_network_imports_and_verifies_with_its_weights():
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(2, 3, 3, padding=1), torch.nn.Tanh(), torch.nn.Conv2d(3, 1, 2, stride=2, groups=1)
    ).double()
    report = symgrad.verify(net, torch.rand(1, 2, 6, 6, dtype=torch.float64), weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 5


@pytest.mark.parametrize(
    "options",
    [dict(stride=2, padding=1, output_padding=1), dict(stride=1), dict(stride=2, dilation=2, groups=2)],
)
def test_transposed_convolutions_import_and_verify_with_their_weights(options):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.ConvTranspose2d(2, 4, 3, **options), torch.nn.Tanh()).double()
    report = symgrad.verify(net, torch.rand(1, 2, 3, 3, dtype=torch.float64), weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 3  # the input, the weight and the bias


def test_embeddings_and_gathers_by_constant_indices_import_and_verify_with_their_weights():
    """aten.embedding (the padding row gets no gradient, as in PyTorch), index.Tensor,
    index_select (indices sliced from a buffer), gather, cumsum and flip, to second order."""
    torch.manual_seed(0)

    class Picks(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(5, 3, padding_idx=2).double()
            self.register_buffer("tokens", torch.tensor([[4, 2], [2, 0]]))
            self.register_buffer("table", torch.tensor([[0, 1, 1], [2, 0, 1]]))

        def forward(self, x):
            e = torch.sin(self.emb(self.tokens)).sum(1)  # (2, 3)
            s = torch.index_select(x, 0, self.table[1])  # (3, 3)
            t = torch.gather(x, 0, self.table)  # (2, 3)
            return (
                (e * x[torch.tensor([0, 2])]).sum() + (s * s).sum() + (t**3).sum()
                + (torch.cumsum(x, 1) * x).sum() + (torch.flip(x, (0,)) * x).sum()
            )  # fmt: skip

    report = symgrad.verify(Picks(), torch.rand(3, 3, dtype=torch.float64), order=2, weights=True)
    assert report.ok, str(report)
    assert len(report.rows) == 6


def test_boolean_masks_and_column_picks_of_buffers_import_and_verify():
    """x[mask] has a size PyTorch leaves symbolic (torch.export's sym_size and its asserts);
    with a constant mask symgrad knows it."""

    class Masked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", torch.tensor([[True, False, True], [False, True, True]]))
            self.register_buffer("cols", torch.tensor([2, 0]))

        def forward(self, x):
            return (x[self.mask] ** 2).sum() + (x[:, self.cols] * x[:, :2]).sum()

    report = symgrad.verify(Masked(), torch.rand(2, 3, dtype=torch.float64), order=2)
    assert report.ok, str(report)


def test_a_scatter_that_sets_at_indices_computed_from_the_inputs_is_refused_by_name():
    def f(x):  # gathers and sums at computed indices import (test_torch_computed_indices.py)
        return torch.zeros(3, dtype=x.dtype).scatter(0, torch.argsort(x), x).sum()

    with pytest.raises(OpError, match="aten.scatter: reduce='set' at indices computed from the inputs"):
        symgrad.verify(f, X3)
    with pytest.raises(OpError, match="indices must be integer constants|depends on data"):
        symgrad.verify(lambda x: (x[x > 0] ** 2).sum(), X3)


def test_softmax_log_softmax_logsumexp_and_amax_import_through_a_chain_of_maximums():
    def f(x):
        return (
            (torch.softmax(x, 1) ** 2).sum() + torch.log_softmax(x, 0).sum() * 0.3
            + torch.logsumexp(x, 1).sum() + x.amax(1).sum()
        )  # fmt: skip

    x = torch.tensor([[0.5, -2.0, 3.0], [1.0, 0.2, -0.3]], dtype=torch.float64)
    assert symgrad.verify(f, x, order=2).ok  # logsumexp's graph holds an infinite constant


def test_a_sort_too_long_for_a_compare_and_swap_network_is_refused_at_once():
    """Sorting n elements builds n^2/2 compare-and-swap nodes: a long sort is refused by name, in
    milliseconds, instead of building a graph until the memory runs out."""
    import time

    from symgrad.importers.aten_arithmetic import SORT_LENGTH_LIMIT

    def program(x):
        return torch.sort(x, dim=1).values.sum()

    start = time.perf_counter()
    with pytest.raises(OpError, match=rf"aten.sort: {SORT_LENGTH_LIMIT + 1} elements along dim 1"):
        from_torch(program, torch.zeros(2, SORT_LENGTH_LIMIT + 1, dtype=torch.float64))(
            symgrad.Tensor(np.zeros((2, SORT_LENGTH_LIMIT + 1)))
        )
    assert time.perf_counter() - start < 5


def test_angle_of_a_real_tensor_matches_pytorch_with_no_derivative():
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.inf, -np.inf, np.nan, -1e-300])
    program = from_torch(torch.angle, torch.tensor(x))
    np.testing.assert_array_equal(program(symgrad.Tensor(x)).asnumpy(), torch.angle(torch.tensor(x)).numpy())
    finite = x[np.isfinite(x)]
    grad = symgrad.grad(lambda t: (from_torch(torch.angle, torch.tensor(finite))(t) * t).sum())(
        symgrad.Tensor(finite)
    )
    np.testing.assert_array_equal(
        grad.asnumpy(), torch.angle(torch.tensor(finite)).numpy()
    )  # d/dt (angle(t) t)
