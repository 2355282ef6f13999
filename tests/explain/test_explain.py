"""Derivations: golden text for the guide in English and Chinese, LaTeX that parses, the CLI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy

import lowering
import symgrad
from symgrad import Tensor, nn, ops
from symgrad.autodiff.recording import recording
from symgrad.explain import graph_dot, render_graph
from symgrad.explain.derivation import _latex
from symgrad.tour.guide import BY_KEY, EXAMPLES
from symgrad.tour.runner import run_recorded
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("SYMGRAD_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.key for e in EXAMPLES])
def test_guide_derivations_match_golden_text(example, lang):
    """The derivation of every guide example, word for word (SYMGRAD_UPDATE_GOLDEN=1 rewrites)."""
    _, _, explanation = run_recorded(example, lang)
    text = explanation.text() + "\n"
    path = GOLDEN / f"{example.key}.{lang}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_derivation_steps_follow_the_guide():
    _, _, explanation = run_recorded(BY_KEY["input"])
    (d,) = explanation
    titles = [s.title for s in d.steps]
    assert titles == ["Forward result", "(1) Sum formula", "(2) Derivative formula", "(3) Computation result"]
    (derivative,) = d.steps[2].entries
    y1, y2, y3, z = sympy.symbols("y1 y2 y3 z", real=True)
    assert derivative.lhs == "d(Σ output)/dx" and derivative.rhs[0, 0] == z * (y1 + y2 + y3)
    assert np.allclose(d.steps[3].entries[0].rhs[0], [4.51, 2.7, 3.6])


def test_stop_gradient_and_cross_terms_are_explained():
    _, _, stop = run_recorded(BY_KEY["stop_gradient"])
    assert "stop_gradient" in [s.title for s in stop[0].steps]
    assert "derivative is zero" in stop[0].text()
    assert "stop_gradient" not in [s.title for s in stop[1].steps]  # the run without it
    _, _, cross = run_recorded(BY_KEY["cross"], "zh")
    assert len(cross) == 2
    assert "dx = [2·x1·y1]" in cross[0].text() and "保留" in cross[0].text() and "舍去" in cross[0].text()


def test_every_formula_parses_as_latex():
    mathtext = pytest.importorskip("matplotlib.mathtext", reason="matplotlib is not installed")
    parser = mathtext.MathTextParser("path")
    count = 0
    for example in EXAMPLES:
        _, _, explanation = run_recorded(example)
        for d in explanation:
            assert "\\begin{align*}" in d.latex()
            for step in d.steps:
                for e in step.entries:
                    if isinstance(e.rhs, sympy.NDimArray):
                        parts = [_latex(v) for v in sympy.flatten(e.rhs.tolist())]
                    elif isinstance(e.rhs, np.ndarray):
                        parts = [_latex(np.asarray(v)) for v in e.rhs.ravel()]
                    else:
                        parts = [_latex(e.rhs)]
                    for tex in [e.lhs_latex, *parts]:
                        parser.parse(f"${tex}$")
                        count += 1
    assert count > 300


def test_explain_functional_and_jupyter_forms():
    x = Tensor(np.array([0.5, 1.0]))
    d = symgrad.explain(ops.grad(lambda x: ops.sin(x) * x), x)[0]
    assert "x1·cos(x1) + sin(x1)" in d.text()
    assert d._repr_markdown_().startswith("### Gradient of <lambda>") and "$$" in d._repr_markdown_()
    assert d._repr_latex_().startswith("$") and "\\begin{aligned}" in d._repr_latex_()
    jv = symgrad.explain(lambda x: ops.jvp(ops.exp, x, x), x)[0]
    assert "J·v = [v1·exp(x1), v2·exp(x2)]" in jv.text()


def test_big_networks_show_named_intermediates_and_sizes():
    nn.set_seed(0)
    net = nn.SequentialCell(
        [nn.Dense(2, 16, activation="tanh"), nn.Dense(16, 16, activation="tanh"), nn.Dense(16, 1)]
    )
    x = Tensor(np.array([0.1, 0.2], np.float32))
    text = symgrad.explain(ops.grad(net), x)[0].text()
    assert "t2 = tanh(t1)" in text and "Operations per derivative order" in text
    assert len(text) < 5000
    # the derivation's names are the kernel's: every tanh/sech² line reads the same in both
    with recording() as episodes:
        ops.grad(net)(x)
    e = episodes[0]
    source = lowering.compile_kernel(e.outputs + e.results).source
    shown = re.findall(r"(t\d+) = (tanh|sech²)\((t\d+)\)", text)
    assert len(shown) == 4
    spelled = {"tanh": "np.tanh", "sech²": "rt.sech2"}
    for name, op, arg in shown:
        assert f"{name} = {spelled[op]}({arg})" in source


def test_explain_needs_something_that_differentiates():
    with pytest.raises(ValueError, match="differentiated nothing"):
        symgrad.explain(ops.sin, Tensor(np.array([1.0])))
    with pytest.raises(ValueError, match="unsupported language 'fr'"):
        symgrad.explain(ops.grad(ops.sin), Tensor(np.array([1.0])), lang="fr")


def test_graph_marks_the_stop_gradient_cut(tmp_path):
    x = symgrad.placeholder("x", (2,))
    y = ops.sin(x) + ops.stop_gradient(x * x)
    dot = graph_dot(
        y, ops.grad(lambda x: (ops.sin(x) + ops.stop_gradient(x * x)).sum())(x), labels=["output", "gradient"]
    )
    assert dot.startswith("digraph symgrad {") and 'label="stop_gradient"' in dot
    assert 'style=dashed, color=red, label="no gradient"' in dot and 'label="gradient"' in dot
    if shutil.which("dot"):
        assert render_graph(y, path=tmp_path / "g.svg").read_text().lstrip().startswith("<?xml")
    else:
        with pytest.raises(RuntimeError, match="needs Graphviz's 'dot' program.*apt-get install graphviz"):
            render_graph(y, path=tmp_path / "g.svg")


def run_cli(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "symgrad.cli", *args], capture_output=True, text=True, timeout=timeout
    )


def test_derive_command():
    done = run_cli("derive", "sin(x)*y**2", "--wrt", "x", "y", "--order", "2", "--at", "x=1", "y=2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"d/dx = y^2·cos(x) = {4 * np.cos(1):.12g}"
    assert lines[3] == f"d^2/dxdy = 2·y·cos(x) = {4 * np.cos(1):.12g}"
    assert len(lines) == 5


@pytest.mark.parametrize(
    "args, message",
    [
        (("derive", "sin(x", "--wrt", "x"), "cannot parse"),
        (("derive", "sin(x)", "--wrt", "q"), "unknown variable 'q'"),
        (("derive", "gamma(x)", "--wrt", "x"), "unknown function 'gamma'"),
        (("derive", "x*y", "--wrt", "x", "--at", "x=1"), "missing: y"),
        (("explain", "no_such_script.py"), "no such script"),
        (("tour", "nope"), "unknown section 'nope'"),
    ],
)
def test_cli_errors_are_one_line_with_status_2(args, message):
    done = run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_explain_command_and_tour_formats(tmp_path):
    script = tmp_path / "mine.py"
    script.write_text(
        textwrap.dedent("""
        import numpy as np
        from symgrad import Tensor, ops
        ops.grad(lambda a, b: a * ops.exp(b), (0, 1))(Tensor(np.array(2.0)), Tensor(np.array(0.0)))
    """)
    )
    done = run_cli("explain", str(script), "--lang", "zh")
    assert done.returncode == 0, done.stderr
    assert "求导公式" in done.stdout and "exp(b)" in done.stdout
    md = run_cli("tour", "sin2", "--markdown")
    assert md.returncode == 0 and "### Gradient of Grad" in md.stdout and "$$" in md.stdout
    tex = run_cli("tour", "Vjp", "--latex")
    assert tex.returncode == 0 and "\\begin{align*}" in tex.stdout


def test_taylor_mode_and_the_laplacian_are_explained_with_their_formulas():
    f = lambda x, t: ops.sin(x * t) * ops.exp(x)  # noqa: E731
    x, t = Tensor(np.array([0.3])), Tensor(np.array([1.5]))
    (d,) = symgrad.explain(symgrad.derivatives(f, 0, 3), x, t)
    assert d.title.startswith("Higher derivatives along a path (Taylor mode)")
    assert [s.title for s in d.steps][1:] == [
        "(1) The path x(t): its derivatives at t = 0",
        "(2) Derivatives along the path (one Taylor-mode sweep)",
        "Computation result",
    ]
    x1, t1 = sympy.symbols("x1 t1", real=True)
    meaning = sympy.sin(x1 * t1) * sympy.exp(x1)
    formulas, numbers = d.steps[2].entries, d.steps[3].entries
    assert [e.lhs for e in formulas] == ["d output/dt", "d^2 output/dt^2", "d^3 output/dt^3"]
    for k, (formula, number) in enumerate(zip(formulas, numbers), start=1):
        assert sympy.simplify(formula.rhs[0] - sympy.diff(meaning, x1, k)) == 0
        exact = float(sympy.diff(meaning, x1, k).subs({x1: 0.3, t1: 1.5}))
        assert np.isclose(number.rhs[0], exact, rtol=1e-12)
    (lap,) = symgrad.explain(
        symgrad.laplacian(lambda v: (ops.sin(v) * v).sum()), Tensor(np.array([0.3, 0.4])), lang="zh"
    )
    assert lap.title.endswith("的拉普拉斯算子")
    (formula,) = lap.steps[1].entries
    v1, v2 = sympy.symbols("v1 v2", real=True)  # named after the lambda's parameter
    field = v1 * sympy.sin(v1) + v2 * sympy.sin(v2)
    assert sympy.simplify(formula.rhs - sympy.diff(field, v1, 2) - sympy.diff(field, v2, 2)) == 0


def test_every_guide_derivative_formula_is_the_derivative_of_its_sum_formula():
    """The kind of bug of the stop_gradient derivation (its sum formula gave twice its derivative):
    in every guide section, sympy.diff of the shown sum formula is the shown derivative formula."""
    import sympy

    from symgrad.closed_form import symbol_names
    from symgrad.tour.guide import BY_KEY
    from symgrad.tour.runner import run_recorded

    checked = set()
    for key, example in BY_KEY.items():
        _, _, explanation = run_recorded(example)
        for derivation in explanation:
            formulas = [(lhs, rhs) for lhs, rhs in derivation.formulas() if isinstance(rhs, sympy.Basic)]
            sums = [rhs for lhs, rhs in formulas if lhs.startswith("Σ ")]
            if len(sums) != 1:
                continue
            total = sums[0]
            by_name = {s.name: s for s in total.free_symbols}
            for lhs, rhs in formulas:
                if not lhs.startswith("d(Σ "):
                    continue
                name = lhs.rsplit(")/d", 1)[1]
                shown = sympy.Array(rhs) if isinstance(rhs, sympy.NDimArray) else sympy.Array([rhs])
                for plain in (True, False):
                    names = symbol_names(name, shown.shape if shown.shape != (1,) else (), plain)
                    if all(n in by_name for n in names):
                        break
                else:
                    continue  # a derivative by symbols the sum does not show (a constant input)
                expected = [sympy.diff(total, by_name[n]) for n in names]
                assert [sympy.simplify(e - g) for e, g in zip(expected, sympy.flatten(shown.tolist()))] == [
                    0
                ] * len(names), (
                    key,
                    lhs,
                )
                checked.add(key)
    assert {"stop_gradient", "input", "weight"} <= checked, checked


def test_a_verified_function_is_explained_by_the_gradient_verify_compared_with():
    """symgrad.verify records the exact gradient it compares with (a scalar output's first-order
    blocks), so `symgrad explain` of a script that only verifies shows a derivation."""
    import numpy as np

    from symgrad.explain.build import explain_episodes

    def layer(x, w):
        return symgrad.ops.tanh(symgrad.ops.matmul(w, x)).sum()

    x, w = np.array([0.5, -1.0, 2.0]), np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]])
    with recording() as episodes:
        assert symgrad.verify(layer, symgrad.Tensor(x), symgrad.Tensor(w)).ok
    assert [e.kind for e in episodes] == ["grad"]
    text = explain_episodes(episodes, "en").text()
    dx = (1 - np.tanh(w @ x) ** 2) @ w
    assert "Gradient of layer" in text and "d(Σ output)/dw" in text
    assert np.array2string(dx, precision=8, separator=", ") in text
