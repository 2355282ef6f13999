"""Notebooks that render offline (issue 43): ``symgrad notebook`` turns a tutorial into one HTML
page with no script and into an executed notebook, both with the derivations as MathML (which
browsers render themselves), so nothing is fetched from a CDN."""

from __future__ import annotations

import contextlib
import io
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, ops
from symgrad.cli import main
from symgrad.explain.derivation import _rows
from symgrad.explain.mathml import MathMLError, aligned, mathml
from symgrad.explain.notebook import markdown_html, read_cells
from symgrad.tour.guide import EXAMPLES
from symgrad.tour.runner import run_recorded
from tests.conftest import ROOT

MATHML = "{http://www.w3.org/1998/Math/MathML}"


def _maths(page: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<math .*?</math>", page, re.S)]


@pytest.fixture(scope="module")
def first_tutorial(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notebook")
    page, book = folder / "t01.html", folder / "t01.ipynb"
    tutorial = str(ROOT / "tutorials" / "01_first_order.py")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["notebook", tutorial, "--html", str(page), "--ipynb", str(book)]) == 0
    return page.read_text(encoding="utf-8"), json.loads(book.read_text(encoding="utf-8"))


def test_the_html_page_needs_no_script_and_shows_the_math(first_tutorial):
    page, _ = first_tutorial
    assert "<script" not in page.lower() and "<link" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page)  # nothing fetched
    maths = _maths(page)  # each formula is well-formed MathML
    assert len(maths) >= 8 and all(m.tag == f"{MATHML}math" for m in maths)
    numbers = {n.text for m in maths for n in m.iter(f"{MATHML}mn")}
    assert {"4.5099998", "2.7", "3.6000001", "21.536"} <= numbers  # as the text and the guide print them
    assert not re.search(r"\\(frac|cdot|left|mathrm|sum)\b", page)  # no LaTeX left to typeset
    assert "<h1>1. First-order derivatives of a MatMul network" in page and "<b>English.</b>" in page


def test_the_notebook_is_executed_nbformat_4_with_mathml_outputs(first_tutorial):
    _, book = first_tutorial
    assert book["nbformat"] == 4 and book["metadata"]["kernelspec"]["name"] == "python3"
    source = (ROOT / "tutorials" / "01_first_order.py").read_text(encoding="utf-8")
    assert [c["cell_type"] for c in book["cells"]] == [c.kind for c in read_cells(source)]
    shown = [o for c in book["cells"] if c["cell_type"] == "code" for o in c["outputs"] if "data" in o]
    assert len(shown) == 2  # the tutorial shows two explanations
    for output in shown:
        assert "<math" in output["data"]["text/html"] and "\\[" not in output["data"]["text/html"]
        assert output["data"]["text/plain"].startswith(("Gradient of Net", "Net 的梯度"))


def test_a_percent_script_splits_into_its_cells_with_no_line_lost():
    for path in sorted((ROOT / "tutorials").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        cells = read_cells(source)
        assert len(cells) == source.count("\n# %%") + source.startswith("# %%")
        rebuilt = []
        for c in cells:
            lines = c.source.splitlines()
            rebuilt += [f"# {line}" for line in lines] if c.kind == "markdown" else lines
        original = [line for line in source.splitlines() if not line.startswith("# %%")]
        assert _content(rebuilt) == _content(original), path.name


def _content(lines: list[str]) -> list[str]:
    return [line.rstrip() for line in lines if line.strip() not in ("", "#")]


def test_explanations_render_as_mathml_in_a_notebook():
    e = symgrad.explain(ops.grad(lambda x: ops.sin(x) * x), Tensor(np.array([0.5])))
    (math,) = _maths(e._repr_html_())[2:3]
    idents = [i.text for i in math.iter(f"{MATHML}mi")]
    assert idents.count("cos") == 1 and idents.count("sin") == 1  # x1·cos(x1) + sin(x1)


def test_every_tour_derivation_has_mathml_for_all_its_latex():
    for example in EXAMPLES:
        for lang in ("en", "zh"):
            with contextlib.redirect_stdout(io.StringIO()):
                _, _, explanation = run_recorded(example, lang)
            for d in explanation:
                for step in d.steps:
                    for e in step.entries:
                        ET.fromstring(aligned(_rows(e), strict=True))


@pytest.mark.parametrize(
    "tex, expected",
    [
        (r"\frac{a}{b}", "<mfrac><mi>a</mi><mi>b</mi></mfrac>"),
        (r"x_{1}^{2}", "<msubsup><mi>x</mi><mn>1</mn><mn>2</mn></msubsup>"),
        (r"\sqrt{2} \cdot \pi", "<msqrt><mn>2</mn></msqrt><mo>·</mo><mi>π</mi>"),
        (r"\sigma\left(x\right)", '<mi>σ</mi><mo fence="true" stretchy="true">(</mo><mi>x</mi>'),
        (r"\text{a b\_c}", "<mtext>a b_c</mtext>"),
        (r"\cosh^{2}{\left(y \right)}", "<msup><mi>cosh</mi><mn>2</mn></msup>"),
        (r"e^{- x^{2}}", "<msup><mi>e</mi><mrow><mo>-</mo><msup><mi>x</mi><mn>2</mn></msup></mrow></msup>"),
    ],
)
def test_latex_becomes_the_mathml_it_means(tex, expected):
    assert expected in mathml(tex, strict=True)


def test_unknown_latex_is_refused_when_strict_and_shown_otherwise():
    with pytest.raises(MathMLError, match=r"\\overbrace"):
        mathml(r"\overbrace{x}", strict=True)
    assert "<mtext>\\overbrace</mtext>" in mathml(r"\overbrace{x}")


def test_markdown_as_the_tutorials_write_it():
    html = markdown_html(
        "# T / 题\n\n**English.** a `x*y` b\nc\n\n- one\n- two `z`\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert html.splitlines() == [
        "<h1>T / 题</h1>",
        "<p><b>English.</b> a <code>x*y</code> b c</p>",
        "<ul><li>one</li><li>two <code>z</code></li></ul>",
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
    ]


def test_notebook_needs_a_target(capsys):
    assert main(["notebook", str(ROOT / "tutorials" / "01_first_order.py")]) == 2
    assert "--html" in capsys.readouterr().err
