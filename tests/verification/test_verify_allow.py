"""verify(..., allow=[...]): custom autograd.Functions that are intended not to be derivatives (a
straight-through estimator, a gradient reversal) are reported as allowed; where they explain every
difference the program verifies clean, and a wrong rule beside them still fails, named."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.verification.report import ALLOWED, FAIL

torch = pytest.importorskip("torch", reason="PyTorch is not installed")


class RoundSTE(torch.autograd.Function):
    """round(x) forward, identity backward: a straight-through estimator."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


class GradReverse(torch.autograd.Function):
    """The identity forward, -lam times the gradient backward (domain-adversarial training)."""

    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -ctx.lam * g, None


class WrongSquare(torch.autograd.Function):
    """x^2 with a backward 1% off: a bug, not an intention."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2.02 * x * g


def model(x, w):
    return (GradReverse.apply(RoundSTE.apply(x * 3.0) * w, 0.5) ** 2).sum()


X = torch.tensor([0.2, 0.7, -1.3], dtype=torch.float64)
W = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64)


def test_without_allow_both_intended_rules_are_named_and_the_report_fails():
    report = symgrad.verify(model, X, W)
    assert not report.ok and {r.verdict for r in report.rows} == {FAIL}
    notes = "\n".join(report.notes)
    # GradReverse takes a float beside its tensor: checked alone with the float held fixed
    assert (
        "GradReverse: its backward is NOT its forward's derivative (d out / d x: backward gives -0.5 where the derivative is 1"
        in notes
    )
    assert (
        "RoundSTE: its backward is NOT its forward's derivative (d out / d x: backward gives 1 where the derivative is 0"
        in notes
    )


@pytest.mark.parametrize(
    "allow", [[RoundSTE, GradReverse], ["RoundSTE", "GradReverse"], (GradReverse, "RoundSTE")]
)
def test_allowed_rules_that_explain_every_difference_verify_clean(allow):
    report = symgrad.verify(model, X, W, allow=allow)
    assert report.ok and report.rows and {r.verdict for r in report.rows} == {ALLOWED}
    notes = "\n".join(report.notes)
    assert (
        "RoundSTE: its backward is not its forward's derivative" in notes
        and "allowed, as intended (allow=)" in notes
    )
    assert "differ from the exact ones only through the allowed rules GradReverse, RoundSTE" in notes


def test_a_rule_not_allowed_still_fails_beside_allowed_ones():
    def with_bug(x, w):
        return WrongSquare.apply(RoundSTE.apply(x * 3.0) * w).sum()

    report = symgrad.verify(with_bug, X, W, allow=[RoundSTE])
    assert not report.ok and any(r.verdict == FAIL for r in report.rows)
    assert any("WrongSquare: its backward is NOT its forward's derivative" in n for n in report.notes)
    partly = symgrad.verify(model, X, W, allow=["RoundSTE"])  # GradReverse not allowed: still a failure
    assert not partly.ok


def test_allow_is_checked_and_names_unused_rules():
    report = symgrad.verify(model, X, W, allow=[RoundSTE, GradReverse, "Missing"])
    assert any(n == "allow= names Missing, which the program does not use" for n in report.notes)
    with pytest.raises(TypeError, match="allow= takes a list of custom rules"):
        symgrad.verify(model, X, W, allow="RoundSTE")
    with pytest.raises(TypeError, match="allow= names custom autograd.Functions of a PyTorch program"):
        symgrad.verify(lambda t: (t * t).sum(), symgrad.Tensor(np.ones(2)), allow=["RoundSTE"])


def test_a_program_whose_rules_are_right_is_unchanged_by_allow():
    def clean(x, w):
        return (torch.tanh(x) * w).sum()

    assert symgrad.verify(clean, X, W, allow=[RoundSTE]).ok
