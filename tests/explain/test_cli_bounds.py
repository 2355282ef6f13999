"""The CLI bounds its work and never shows its own frames: formulas past the stated limits (exponent
towers, huge literals, long or deep input, high orders), binary and broken scripts. Each gives one
line on stderr and exit 2 (a script's own syntax error: Python's message and exit 1), within seconds."""

from __future__ import annotations

import contextlib
import io
import math
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import cli
from symgrad.explain import formula


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "symgrad.cli", *args], capture_output=True, text=True, timeout=timeout
    )


def _one_line_refusal(args: list[str], message: str) -> None:
    start = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()) as stderr:
        assert cli.main(args) == 2
    err = stderr.getvalue()
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert time.perf_counter() - start < 10


@settings(max_examples=30, deadline=None)
@given(base=st.integers(2, 99), middle=st.integers(2, 30), top=st.integers(1, 9))
def test_exponent_towers_are_refused_or_exact_never_slow(base, middle, top):
    tower = f"{base}^{middle}^{top}*x"  # base^(middle^top) x
    digits = middle**top * math.log10(base)
    if digits > formula.MAX_DIGITS:
        _one_line_refusal(["derive", tower, "--wrt", "x"], "exact numbers are limited")
    else:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert cli.main(["derive", tower, "--wrt", "x"]) == 0
        assert out.getvalue().strip() == f"d/dx = {base ** (middle**top)}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["derive", "1e999999*x", "--wrt", "x", "--at", "x=1"], "too long or large"),
        (["derive", "1" * 2000 + "*x", "--wrt", "x"], "too long or large"),
        (["derive", "10^400*x", "--wrt", "x", "--at", "x=1"], "beyond float64's range"),
        (["derive", "+".join(["x"] * 20001), "--wrt", "x"], "the limit"),
        (["derive", "--wrt", "x", "--", "-" * 100000 + "x"], "characters; the limit"),
        (["derive", "--wrt", "x", "--", "-" * 3000 + "x"], "nests"),
        (["derive", "(" * 500 + "x" + ")" * 500, "--wrt", "x"], "nest"),
        (["derive", "sin(x)*y", "--wrt", "x", "y", "--order", "100000"], "--order must be from 1 to"),
        (["derive", "sin(x)*y", "--wrt", "x", "--order", "0"], "--order must be from 1 to"),
        (["derive", "exp(sin(x)*cos(x^2))", "--wrt", "x", "--order", "20"], "operations (limit"),
        (["derive", "a*b*c*d*g*f", "--wrt", "a", "b", "c", "d", "g", "f", "--order", "8"], "mixed partials"),
    ],
)
def test_derive_refuses_work_past_its_bounds_in_one_line(args, message):
    _one_line_refusal(args, message)


def test_long_flat_sums_still_work():
    done = run_cli("derive", "+".join(["x"] * 1999), "--wrt", "x")
    assert done.returncode == 0 and done.stdout.strip() == "d/dx = 1999", done.stderr


def test_binary_and_broken_scripts(tmp_path):
    binary = tmp_path / "image.py"
    binary.write_bytes(bytes(range(256)) * 8)
    broken = tmp_path / "broken.py"
    broken.write_text("import symgrad\nx = (1,\n")
    for command in ("explain", "verify"):
        done = run_cli(command, str(binary))
        assert done.returncode == 2 and "not a Python script" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        done = run_cli(command, str(broken))
        assert done.returncode == 1 and "Traceback" not in done.stderr and "cli.py" not in done.stderr
        assert f'File "{broken}", line 2' in done.stderr and "SyntaxError" in done.stderr


def test_a_bug_of_symgrads_own_is_one_line_not_a_traceback(monkeypatch, capsys):
    """Any unexpected exception inside a command (a bug of ours) is one line naming the command and
    the error, exit code 3; SYMGRAD_DEBUG=1 lets the traceback through for the person fixing it."""
    from tests.conftest import ROOT

    def broken(*_args, **_kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "_explain", broken)
    monkeypatch.delenv("SYMGRAD_DEBUG", raising=False)
    assert cli.main(["explain", str(ROOT / "tutorials" / "01_first_order.py")]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "symgrad explain: internal error (KeyError: 'a bug')" in err
    monkeypatch.setenv("SYMGRAD_DEBUG", "1")
    with pytest.raises(KeyError):
        cli.main(["explain", str(ROOT / "tutorials" / "01_first_order.py")])
