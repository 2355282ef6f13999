"""Issue 43 items 2, 3 and 7: LaTeX documents a teacher hands out: titles, sens notes and the
stop_gradient note kept; long formulas broken into lines (no overfull line where TeX is installed,
every display line within the measured width where it is not); numbers as the text prints them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from symgrad.explain import layout
from symgrad.tour.guide import BY_KEY
from symgrad.tour.runner import run_recorded
from tests.conftest import ROOT


def cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("section", ["cross", "sens", "stop_gradient"])
def test_latex_keeps_titles_sens_notes_and_the_stop_gradient_note(section):
    text, latex = cli("tour", section), cli("tour", section, "--latex")
    for word in ("kept", "dropped", "weighted", "derivative is zero"):
        assert latex.count(word) == text.count(word), word
    assert text.count("kept") + text.count("weighted") + text.count("derivative is zero") > 0
    _, _, explanation = run_recorded(BY_KEY[section])
    for d in explanation:
        assert rf"\subsection*{{{d.title}}}" in latex
        for step in d.steps:
            assert step.title.replace("_", r"\_") in latex
    assert latex.count(r"\section*{") == 1 and "matches the guide" in latex


def test_markdown_and_html_keep_titles_and_notes():
    _, _, explanation = run_recorded(BY_KEY["cross"])
    for rendered in (explanation.markdown(), explanation._repr_html_()):
        assert rendered.count("kept") == 2 and rendered.count("dropped") == 2
        assert rendered.count("Sum formula") == 2


def test_latex_and_html_print_the_guides_numbers():
    latex = cli("tour", "sens", "--latex")
    assert "0.51" in latex and "0.50999999" not in latex and "2.211" in latex
    _, _, explanation = run_recorded(BY_KEY["sens"])
    html = explanation._repr_html_()
    assert "0.51" in html and "0.50999999" not in html


def _display_lines(tex: str) -> list[str]:
    rows = []
    for block in re.findall(r"\\begin\{align\*\}\n(.*?)\n\\end\{align\*\}", tex, re.S):
        rows += [row.split("&", 1)[-1] for row in block.split(" \\\\\n")]
    return rows


def test_long_formulas_are_broken_into_lines_that_fit():
    tex = cli("tour", "--latex")
    rows = _display_lines(tex)
    assert len(rows) > 100
    widest = max(layout.width(r) for r in rows)
    assert widest <= layout.LINE + 12, max(rows, key=layout.width)  # the = sign and lhs take the rest
    assert "breqn" not in tex and "dmath" not in tex
    long_sum = [r for r in rows if r.lstrip().startswith(r"\quad {}+")]
    assert long_sum, "a long sum continues on a line that starts with its + sign"


def _overfull(tex: str, engine: str, tmp_path) -> tuple[int, list[str]]:
    path = tmp_path / "doc.tex"
    path.write_text(tex, encoding="utf-8")
    done = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", path.name],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "doc.log").read_text(errors="replace")
    return log.count("Overfull \\hbox"), re.findall(r"Overfull \\hbox \(([\d.]+)pt", log)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex (TeX Live) is not installed here")
def test_the_tour_pdf_has_no_overfull_line(tmp_path):
    count, sizes = _overfull(cli("tour", "--latex"), "pdflatex", tmp_path)
    assert count == 0, sizes


@pytest.mark.skipif(shutil.which("xelatex") is None, reason="xelatex (TeX Live) is not installed here")
def test_the_chinese_tour_pdf_has_no_overfull_line(tmp_path):
    count, sizes = _overfull(cli("tour", "--latex", "--lang", "zh"), "xelatex", tmp_path)
    assert count == 0, sizes


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex (TeX Live) is not installed here")
@pytest.mark.parametrize("name", ["01_first_order.py", "03_stop_gradient.py", "04_higher_order.py"])
def test_tutorial_explanations_compile_without_overfull_lines(name, tmp_path):
    count, sizes = _overfull(cli("explain", str(ROOT / "tutorials" / name), "--latex"), "pdflatex", tmp_path)
    assert count == 0, sizes
