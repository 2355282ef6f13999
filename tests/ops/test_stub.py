"""The type stub of ``symgrad.ops`` is current, and a type checker sees real types through it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import symgrad.ops as ops
from symgrad.ops import stub

ROOT = Path(__file__).resolve().parents[2]


def test_the_checked_in_stub_is_what_the_op_table_gives_now():
    written = stub.STUB_PATH.read_text()
    assert written == stub.stub_text(), (
        "symgrad/ops/__init__.pyi is stale (an op or a public name was added or removed): "
        "run `python -m symgrad.ops.stub` and commit the result"
    )


def test_the_stub_declares_every_public_name_once():
    text = stub.STUB_PATH.read_text()
    declared = [
        line.split()[1].split("(")[0]
        for line in text.splitlines()
        if line.startswith(("def ", "class ")) and not line.startswith("class _")
    ]
    declared += [line.rsplit(" as ", 1)[1] for line in text.splitlines() if line.startswith("from symgrad")]
    declared += [
        line.split(" = ")[0]
        for line in text.splitlines()
        if " = " in line and not line.startswith(("_", " "))
    ]
    public = set(ops.__all__)
    assert public <= set(declared), f"names missing from the stub: {sorted(public - set(declared))}"


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_a_type_checker_sees_tensors_and_op_classes(tmp_path):
    program = tmp_path / "uses_ops.py"
    program.write_text(
        "import numpy as np\n"
        "from symgrad import Tensor, ops\n"
        "x = Tensor(np.ones(2))\n"
        "reveal_type(ops.sin(x))\n"
        "reveal_type(ops.Sin()(x))\n"
        "reveal_type(ops.grad)\n"
        "ops.sin(x, x)\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(program)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    out = result.stdout
    revealed = [line.split("Revealed type is ", 1)[1] for line in out.splitlines() if "Revealed type" in line]
    assert revealed[:2] == ['"symgrad.tensor.Tensor"', '"symgrad.tensor.Tensor"'], out
    assert "def (" in revealed[2], out  # the hand-written grad keeps its own signature
    assert 'Too many arguments for "sin"' in out, out  # and a wrong call is caught
