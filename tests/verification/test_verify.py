"""symgrad.verify must catch planted bugs, pass correct code, and explain kinks instead of failing."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from symgrad.testing import assert_grads_match
from symgrad.verification.report import FAIL, KINK, OK

HAS_TORCH = importlib.util.find_spec("torch") is not None


def f(x, y):
    return ops.sin(x) * y**2 + x[0] * x[1] * y


X = Tensor(np.array([0.3, 1.1]))
Y = Tensor(np.array(0.7))


def hand_gradient(x, y):
    x, y = x.asnumpy(), float(y.asnumpy())
    dx = np.diag(np.cos(x) * y**2) + np.array([[x[1] * y, x[0] * y], [x[1] * y, x[0] * y]])
    dy = 2 * y * np.sin(x) + x[0] * x[1]
    return dx, dy


def rows(report, method):
    return [r for r in report.rows if r.method == method]


def test_correct_code_passes_every_comparison_to_third_order():
    report = symgrad.verify(f, X, Y, order=3, expected=None)
    assert report.ok, str(report)
    methods = {r.method for r in report.rows}
    assert {"kernel float64", "finite differences", "jvp vs vjp"} <= methods
    assert len(report.blocks) == 2 + 4 + 8


def test_a_correct_hand_written_gradient_passes():
    report = symgrad.verify(f, X, Y, expected=hand_gradient)
    assert report.ok and all(r.verdict == OK for r in rows(report, "yours (expected=)"))


def test_a_wrong_hand_written_gradient_fails():
    def wrong(x, y):
        dx, dy = hand_gradient(x, y)
        return dx, dy * 2  # forgot that y**2 differentiates to 2y only once

    report = symgrad.verify(f, X, Y, expected=wrong)
    assert not report.ok
    (bad,) = report.failures
    assert bad.derivative == "d out / d y" and bad.method == "yours (expected=)"
    assert "FAILED" in str(report)


def test_a_sign_error_in_one_element_is_located():
    def one_sign_wrong(x, y):
        dx, dy = hand_gradient(x, y)
        dx = dx.copy()
        dx[1, 0] = -dx[1, 0]
        return dx, dy

    report = symgrad.verify(f, X, Y, expected=one_sign_wrong)
    (bad,) = report.failures
    assert bad.where == (1, 0) and np.isclose(bad.got, -bad.reference)


def test_a_wrong_cross_term_only_fails_its_own_block():
    def g(x, y):
        return ops.sin(x) * ops.exp(y)

    a, b = Tensor(np.array(0.4)), Tensor(np.array(-0.3))
    sx, cx, ey = np.sin(0.4), np.cos(0.4), np.exp(-0.3)
    # blocks in report order: xx, xy, yx, yy; the planted bug: d2/dx dy forgets the cos
    planted = [-sx * ey, sx * ey, cx * ey, sx * ey]
    report = symgrad.verify(g, a, b, order=2, expected=planted)
    (bad,) = report.failures
    assert bad.derivative == "d2 out / d x d y"
    assert all(r.verdict == OK for r in report.rows if r.method != "yours (expected=)")


def test_a_missing_sens_factor_in_a_hand_written_vjp_fails():
    def g(x):
        return ops.tanh(x) * 3

    def vjp_ignoring_v(v, x):
        return (3 * (1 - np.tanh(x.asnumpy()) ** 2),)

    def vjp_correct(v, x):
        return (v.asnumpy() * 3 * (1 - np.tanh(x.asnumpy()) ** 2),)

    x = Tensor(np.array([0.2, -0.5, 1.0]))
    assert not symgrad.verify(g, x, vjp=vjp_ignoring_v).ok
    assert symgrad.verify(g, x, vjp=vjp_correct).ok


@pytest.mark.parametrize(
    "fn, point",
    [
        (ops.relu, [0.0, 1.5, -2.0]),
        (ops.abs, [0.0, -1.0]),
        (lambda x: ops.maximum(x, 0.5 * x + 0.25), [0.5, 2.0]),  # a tie at 0.5
    ],
    ids=["relu", "abs", "maximum-tie"],
)
def test_kinks_are_explained_not_failed(fn, point):
    report = symgrad.verify(fn, Tensor(np.array(point)))
    assert report.ok, str(report)
    assert any(n.startswith("kink:") for n in report.notes)
    assert rows(report, "kernel float64")[0].verdict == OK  # the kernel has no excuse


def test_relu_at_zero_differs_from_finite_differences_and_is_explained():
    report = symgrad.verify(ops.relu, Tensor(np.array([0.0, 1.5])))
    (fd,) = rows(report, "finite differences")
    assert fd.verdict == KINK and fd.where == (0, 0) and np.isclose(fd.got, 0.5) and fd.reference == 0
    assert report.ok


def test_float32_comparisons_say_what_their_tolerance_means():
    x32 = Tensor(np.array([0.3, 1.1], np.float32))
    report = symgrad.verify(f, x32, Tensor(np.array(0.7, np.float32)))
    assert report.ok
    assert any("float32 inputs" in n and "not meaningful" in n for n in report.notes)
    assert rows(report, "kernel float32")[0].rtol == 1e-4


def test_weights_of_a_cell_are_verified():
    symgrad.nn.set_seed(3)
    net = nn.SequentialCell([nn.Dense(2, 3, activation="tanh"), nn.Dense(3, 1, activation="sigmoid")])
    report = symgrad.verify(
        net, Tensor(np.array([0.5, -1.0], np.float32)), weights=net.trainable_params(), order=2
    )
    assert report.ok, str(report)
    assert any("0.weight" in b.label for b in report.blocks)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed (pip install torch)")
def test_pytorch_autograd_is_an_independent_check():
    def mlp(x):
        w = Tensor(np.array([[0.3, -1.2], [0.8, 0.5]]))
        return ops.tanh(ops.matmul(w, ops.sigmoid(x))).sum() * ops.atan(x[0])

    report = symgrad.verify(mlp, Tensor(np.array([0.1, -0.4])), order=3)
    torch_rows = rows(report, "torch autograd")
    assert len(torch_rows) == 3  # one input: one block per order
    assert all(r.verdict == OK and r.max_abs < 1e-12 for r in torch_rows), str(report)


def test_assert_grads_match_raises_with_the_report():
    with pytest.raises(AssertionError, match="gradient check failed(.|\n)*yours"):
        assert_grads_match(f, X, Y, expected=lambda x, y: (np.zeros((2, 2)), np.zeros(2)))
    assert assert_grads_match(f, X, Y, order=2).ok


def test_grad_check_fixture(grad_check):
    grad_check(ops.sigmoid, Tensor(np.array([0.25, -3.0])), order=2)


def test_verify_command(tmp_path):
    script = tmp_path / "checks.py"
    script.write_text(
        textwrap.dedent("""
        import numpy as np, symgrad
        from symgrad import ops, Tensor
        x = Tensor(np.array([0.5, 1.0]))
        symgrad.verify(ops.sin, x, order=2)
        symgrad.verify(ops.sin, x, expected=[np.diag(-np.cos(x.asnumpy()))])  # sign error
    """)
    )
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", "verify", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "1 passed, 1 failed" in done.stdout and FAIL in done.stdout
    empty = tmp_path / "none.py"
    empty.write_text("x = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", "verify", str(empty)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "nothing was checked" in done.stderr


def test_an_input_the_output_ignores_has_a_zero_derivative():
    report = symgrad.verify(lambda x, y: ops.sin(x), Tensor(np.array([0.2, 0.4])), Tensor(np.array(1.0)))
    assert report.ok
    (zero,) = [r for r in report.rows if r.derivative == "d out / d y" and r.method == "kernel float64"]
    assert zero.reference == 0 and zero.max_abs == 0


def test_a_select_on_a_condition_decided_at_the_point_has_an_exact_reference():
    # the derivative of where(c, a, b) multiplies by the condition as a number; at a point the
    # 50-digit evaluation decides c (True/False), which must become 1/0, not a logical value
    def softplus_with_threshold(x):
        return ops.where(x > 20, x, ops.log1p(ops.exp(x)))

    report = symgrad.verify(softplus_with_threshold, Tensor(np.array([25.0, 0.5])), order=2)
    assert report.ok, str(report)
    exact = report.blocks[0].node
    assert exact.shape == (2, 2)
