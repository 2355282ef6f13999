"""``symgrad verify --against-mindspore script.py``: a MindSpore script's gradients, custom Cell.bprop
included, against symgrad's exact ones. Needs MindSpore (skipped without it), except the last test."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from symgrad.cli import main
from symgrad.verification.report import FAIL

needs_mindspore = pytest.mark.skipif(
    importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed (pip install mindspore)"
)

SCRIPT = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.5], np.float32)), name="w")
    def construct(self, x):
        return ops.sin(ops.mul(x, self.w)).sum()

class MulAdd(nn.Cell):
    def construct(self, x, y):
        return ops.add(ops.mul(x, y), x)
    def bprop(self, x, y, out, dout):
        return ops.add(ops.mul(dout, y), dout), ops.mul(dout, x)

class Square(nn.Cell):
    def construct(self, x):
        return ops.square(x)
    def bprop(self, x, out, dout):
        return (ops.mul(dout, ops.mul(x, FACTOR)),)

net = Net()
x = Tensor(np.array([0.3, 0.7], np.float32))
y = Tensor(np.array([2.0, -1.0], np.float32))
weights_grad = ops.grad(net, 0, net.trainable_params())(x)
bprop_grads = ops.GradOperation(get_all=True)(MulAdd())(x, y)
def square_sum(t):
    return Square()(t).sum()
value, square_grad = ops.value_and_grad(square_sum)(x)
"""


RIGHT, WRONG = "Tensor(np.array([2.0], np.float32))", "Tensor(np.array([1.0], np.float32))"  # Square's factor


def _script(tmp_path, factor: str):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT.replace("FACTOR", factor))
    return path


@needs_mindspore
def test_a_wrong_bprop_is_flagged_where_it_is_and_nothing_else(tmp_path):
    from symgrad.verification.mindspore_script import verify_mindspore_script

    report = verify_mindspore_script(_script(tmp_path, WRONG))
    failed = [r.derivative for r in report.rows if r.verdict == FAIL]
    assert failed == ["line 32: ops.value_and_grad[1]"], str(report)
    assert len(report.rows) == 6
    (row,) = report.failures
    assert row.got == pytest.approx(0.7) and row.reference == pytest.approx(1.4)  # the missing factor 2
    assert any("MulAdd, Square" in note for note in report.notes)
    assert any("with 50 digits" in note for note in report.notes)


@needs_mindspore
def test_the_cli_passes_a_right_script_and_leaves_both_libraries_as_they_were(tmp_path, capsys):
    import mindspore

    import symgrad

    assert main(["verify", "--against-mindspore", str(_script(tmp_path, RIGHT))]) == 0
    assert "verdict: all comparisons agree" in capsys.readouterr().out
    assert sys.modules["mindspore"] is mindspore and mindspore.ops.grad.__module__.startswith("mindspore")
    assert symgrad.ops.__spec__.name == "symgrad.ops" and symgrad.ops.grad.__module__.startswith("symgrad")


@needs_mindspore
def test_the_cli_exits_1_on_a_wrong_bprop(tmp_path, capsys):
    assert main(["verify", "--against-mindspore", str(_script(tmp_path, WRONG))]) == 1
    assert "1 comparison(s) FAILED" in capsys.readouterr().out


def test_without_mindspore_the_cli_says_what_to_install_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mindspore", None)  # import mindspore raises ImportError
    assert main(["verify", "--against-mindspore", str(_script(tmp_path, "1.0"))]) == 2
    err = capsys.readouterr().err
    assert "needs MindSpore installed" in err and "Traceback" not in err


RANDOM = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
net = nn.SequentialCell([nn.Dense(3, 4, activation="tanh"), nn.Dense(4, 1)])
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
x = Tensor(np.random.randn(5, 3).astype(np.float32))
step(x, Tensor(np.zeros((5, 1), np.float32)))
def loss(x):
    return ops.square(net(x)).sum()
grads = ops.grad(loss, 0, net.trainable_params())(x)
"""


@needs_mindspore
def test_weights_and_data_drawn_at_random_are_matched_so_there_is_no_false_alarm(tmp_path):
    """Each library initializes Dense at random its own way, and the script's data is unseeded:
    symgrad's call is made with MindSpore's weights (by name, past the optimizer's own Parameters)."""
    from symgrad.verification.mindspore_script import verify_mindspore_script

    path = tmp_path / "random.py"
    path.write_text(RANDOM)
    report = verify_mindspore_script(path)
    assert report.ok and len(report.rows) == 5, str(report)  # x, then two weights and two biases


@needs_mindspore
def test_parameters_that_cannot_be_matched_are_one_line_not_a_false_alarm(tmp_path, capsys):
    path = tmp_path / "unmatched.py"
    path.write_text(  # a layer only symgrad's run makes
        RANDOM.replace(
            "net = nn.SequentialCell",
            "extra = nn.Dense(2, 2) if ms.__name__ == 'symgrad' else None\nnet = nn.SequentialCell",
        )
    )
    assert main(["verify", "--against-mindspore", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot be matched" in err and "Traceback" not in err


@needs_mindspore
def test_the_pytest_helper_raises_with_the_report(tmp_path):
    from symgrad.testing import assert_mindspore_script_matches

    assert assert_mindspore_script_matches(_script(tmp_path, RIGHT)).ok
    with pytest.raises(AssertionError, match=r"line 32: ops.value_and_grad\[1\]"):
        assert_mindspore_script_matches(_script(tmp_path, WRONG))
