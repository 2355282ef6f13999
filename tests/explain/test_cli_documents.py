"""The CLI's documents and conventions: a LaTeX document holds only LaTeX, any terminal encoding
prints without a traceback, and derive follows the conventions ops.grad uses (ReLU'(0) = 0)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from symgrad.cli import main
from symgrad.explain.derive import derive
from tests.conftest import ROOT


@pytest.mark.parametrize(
    "formula, at, expected_text, expected_value",
    [
        ("relu(x)", 0.0, "Heaviside(x, 0)", 0.0),  # as ops.grad(ops.relu) and PyTorch
        ("relu(x)", 2.0, "Heaviside(x, 0)", 1.0),
        ("max(0, x^2 - 1)", 1.0, "2*x*Heaviside(x**2 - 1, 0)", 0.0),
        ("e^x", 1.0, "exp(x)", 2.718281828459045),  # e is Euler's number, as students write it
        ("e^(2x)", 0.0, "2*exp(2*x)", 2.0),
    ],
)
def test_derive_uses_the_conventions_of_ops_grad(formula, at, expected_text, expected_value):
    (row,) = derive(formula, ["x"], at={"x": at})
    assert str(row.expr) == expected_text and row.value == pytest.approx(expected_value, rel=1e-15)


def test_explain_latex_is_a_document_with_the_scripts_prints_on_stderr(capsys):
    assert main(["explain", str(ROOT / "tutorials" / "04_higher_order.py"), "--latex"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("% compile with") and out.splitlines()[1] == r"\documentclass{article}"
    assert out.rstrip().endswith(r"\end{document}") and err  # the tutorial's own output went to stderr


def test_a_terminal_without_the_symbols_gets_text_not_a_traceback():
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", "tour", "sin2"], capture_output=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode("cp1252", "replace")
    assert b"Traceback" not in done.stderr and b"matches the guide" in done.stdout


def test_e_as_a_variable_is_explained():
    from symgrad.explain.derive import DeriveError

    with pytest.raises(DeriveError, match="e is Euler's number in a formula"):
        derive("e*x", ["e"])
