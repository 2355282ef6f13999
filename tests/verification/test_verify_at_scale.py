"""``verify`` at the size of a real model: J^T v in random directions against the exact reverse sweep
in extended precision, entry by entry; planted bugs found and placed, correct models clean."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import symgrad

torch = pytest.importorskip("torch", reason="PyTorch is not installed: the model-scale PyTorch checks skip")


class ScaledTanh(torch.autograd.Function):
    """tanh with a backward off by a relative ``error`` (0: the right rule)."""

    error = 0.0

    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - y * y) * (1 + ScaledTanh.error)


class Model(torch.nn.Module):
    """[64, 512, 512, 10]: 300k weights, the custom tanh after the first layer."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = torch.nn.Linear(64, 512), torch.nn.Linear(512, 512), torch.nn.Linear(512, 10)

    def forward(self, x):
        return self.c(torch.nn.functional.gelu(self.b(ScaledTanh.apply(self.a(x)))))


@pytest.fixture
def planted():
    ScaledTanh.error = 1e-6
    yield
    ScaledTanh.error = 0.0


def model(dtype):
    torch.manual_seed(0)
    return Model().to(dtype), torch.randn(8, 64, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_a_300k_weight_model_verifies_clean_in_random_directions(dtype):
    net, x = model(dtype)
    report = symgrad.verify(net, x, weights=True)
    assert report.ok, report
    assert "301578 differentiated entries: compared J^T v for 2 random cotangent(s)" in " ".join(report.notes)
    labels = {row.derivative for row in report.rows}
    assert {"v0^T d out / d a.weight", "v1^T d out / d c.bias", "<v0, J u> = <J^T v0, u>"} <= labels


def test_a_wrong_rule_is_found_in_the_weights_it_reaches_and_nowhere_else(planted):
    net, x = model(torch.float64)
    report = symgrad.verify(net, x, weights=True)
    failed = {row.derivative.split(" / d ")[1] for row in report.failures}
    assert failed == {"x", "a.weight", "a.bias"}, report  # upstream of the custom tanh only
    worst = max(row.max_rel for row in report.failures)
    assert 5e-7 < worst < 2e-6  # the planted relative error, measured


def test_directions_agree_with_per_entry_blocks_on_a_small_model(planted):
    torch.manual_seed(1)
    small = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    x = torch.randn(2, 3, dtype=torch.float64)
    assert symgrad.verify(small, x, weights=True, directions=3).ok
    assert symgrad.verify(small, x, weights=True, directions=0).ok
    bad = lambda v: ScaledTanh.apply(v).sum()  # noqa: E731
    assert not symgrad.verify(bad, x, directions=2).ok
    assert not symgrad.verify(bad, x, directions=0).ok
    with pytest.raises(ValueError, match="directions= checks first derivatives"):
        symgrad.verify(small, x, order=2, directions=2)
    with pytest.raises(ValueError, match="directions must be a whole number"):
        symgrad.verify(small, x, directions=-1)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX is not installed")
def test_jax_custom_vjp_bug_found_in_random_directions():
    import jax
    import jax.numpy as jnp

    @jax.custom_vjp
    def softsign(x):
        return x / (1 + jnp.abs(x))

    def forward(x):
        return softsign(x), x

    def backward(x, g):
        return (g / (1 + jnp.abs(x)) ** 2 * 1.001,)  # 0.1% off

    softsign.defvjp(forward, backward)
    weights = np.random.default_rng(0).normal(size=(6, 5)) / 3

    def layer(w, x):
        return jnp.sum(softsign(x @ w) ** 2, axis=1)

    x = np.random.default_rng(1).normal(size=(4, 6)).astype(np.float32)
    report = symgrad.verify(layer, jnp.asarray(weights, jnp.float32), jnp.asarray(x), directions=2)
    assert not report.ok and {r.derivative.split(" / d ")[1] for r in report.failures} == {"w", "x"}


def test_directions_apply_to_framework_programs_only():
    with pytest.raises(TypeError, match="directions= applies to PyTorch and JAX programs"):
        symgrad.verify(lambda t: t * t, symgrad.Tensor(np.ones(2)), directions=2)


class Square(torch.autograd.Function):
    """x^2 with the right backward."""

    @staticmethod
    def forward(ctx, value):
        ctx.save_for_backward(value)
        return value * value

    @staticmethod
    def backward(ctx, g):
        (value,) = ctx.saved_tensors
        return 2 * value * g


def test_the_report_names_the_custom_function_whose_backward_is_wrong(planted):
    def program(x):
        return Square.apply(ScaledTanh.apply(x)).sum(dim=1)

    x = torch.randn(3, 4, dtype=torch.float64)
    report = symgrad.verify(program, x)
    notes = " ".join(report.notes)
    assert "custom autograd.Function ScaledTanh: its backward is NOT its forward's derivative" in notes
    assert "custom autograd.Function Square: its backward is its forward's derivative" in notes
    assert not report.rules["ScaledTanh"].ok and report.rules["Square"].ok
    alone = symgrad.verify(Square.apply, torch.randn(3, dtype=torch.float64))
    assert alone.ok and alone.title.startswith("verify Square.apply (PyTorch) at value (3,)")
