"""Every tutorial runs to the end (each asserts its own numbers)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

TUTORIALS = sorted((ROOT / "tutorials").glob("*.py"))


def test_there_is_a_tutorial_per_guide_section_and_more():
    assert len(TUTORIALS) >= 8


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.name for p in TUTORIALS])
def test_tutorial_runs(path, tmp_path):
    env = {**os.environ, "SYMGRAD_QUICK": "1", "SYMGRAD_OUT": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    text = path.read_text(encoding="utf-8")
    assert "# %% [markdown]" in text and "**中文。**" in text and "**English.**" in text


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.name for p in TUTORIALS])
def test_explain_writes_a_latex_document_of_every_tutorial(path, tmp_path):
    """``symgrad explain TUTORIAL --latex`` gives a whole document for every tutorial: the PINN
    tutorials' derivatives of symbolic placeholders (formulas, no numbers) once crashed it, and a
    script that only verifies now shows the exact gradients verify compared with; never a traceback."""
    env = {**os.environ, "SYMGRAD_QUICK": "1", "SYMGRAD_OUT": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", "explain", str(path), "--latex"],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env=env,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 0, done.stderr[-3000:]
    document = "\n".join(line for line in done.stdout.splitlines() if not line.startswith("%"))
    assert document.startswith("\\documentclass") and document.rstrip().endswith("\\end{document}")
    assert "\\begin{document}" in document and "\\subsection*{" in document
