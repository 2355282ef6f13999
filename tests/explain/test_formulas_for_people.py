"""Closed forms a person reads: typed formulas read as data, exact constants, unique names,
bounded flattening, explanations in notebooks and terminals, Chinese and LaTeX output, the CLI."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import sympy

import symgrad
from symgrad import ParameterTuple, Tensor, nn, ops
from symgrad.explain.derivation import display_width
from symgrad.explain.derive import derive
from symgrad.explain.formula import FormulaError, parse
from symgrad.explain.i18n import PHRASES
from symgrad.tour.guide import EXAMPLES
from tests.conftest import ROOT

x, y = sympy.symbols("x y", real=True)


def run_cli(*args, timeout=120, **options):
    return subprocess.run(
        [sys.executable, "-m", "symgrad.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        **options,
    )


# ----- formulas are data -----


def test_derive_runs_no_code_from_the_formula(tmp_path):
    target = tmp_path / "pwned"
    for formula in (
        f'__import__("pathlib").Path("{target}").touch()',
        f"__import__('os').system('touch {target}')",
        "().__class__.__base__.__subclasses__()",
        "(lambda: 1)()",
        "x.real",
        "x[0]",
        "open('f')",
    ):
        done = run_cli("derive", formula, "--wrt", "x")
        assert done.returncode == 2 and not target.exists(), formula
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2x^2 + 3 sin(x) y", 2 * x**2 + 3 * sympy.sin(x) * y),
        ("(x+1)(x-1)", (x + 1) * (x - 1)),
        ("x y + 2(x - y)", x * y + 2 * (x - y)),
        ("0.1x", sympy.Rational(1, 10) * x),
        ("pi x^2 / 3", sympy.pi * x**2 / 3),
        ("E^x - exp(x)", sympy.E**x - sympy.exp(x)),
        ("sqrt(2) x + ln(y)", sympy.sqrt(2) * x + sympy.log(y)),
        ("-x^-2", -(x**-2)),
        ("tanh(x) + sigmoid(y) + erf(x)", sympy.tanh(x) + 1 / (1 + sympy.exp(-y)) + sympy.erf(x)),
    ],
)
def test_formulas_are_read_as_students_type_them(text, expected):
    assert sympy.simplify(parse(text) - expected) == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("sin x", "cannot parse"),
        ("gamma(x)", "unknown function 'gamma'"),
        ("sin(x, y)", "sin takes exactly 1 argument"),
        ("x = 1", "unexpected character '='"),
        ("'x'", "unexpected character"),
        ("", "empty"),
    ],
)
def test_bad_formulas_say_what_is_wrong(text, message):
    with pytest.raises(FormulaError, match=re.escape(message)):
        parse(text)


# ----- exact and tidy closed forms -----


def test_exact_constants_stay_exact():
    rows = {f: derive(f, ["x"])[0].expr for f in ("x/3", "pi*x**2", "sqrt(2)*x", "x/3 + E^x")}
    assert rows["x/3"] == sympy.Rational(1, 3)
    assert rows["pi*x**2"] == 2 * sympy.pi * x
    assert rows["sqrt(2)*x"] == sympy.sqrt(2)
    assert rows["x/3 + E^x"] == sympy.Rational(1, 3) + sympy.exp(x)
    assert not any(e.atoms(sympy.Float) for e in rows.values())


def test_third_derivatives_come_out_simplified():
    third = derive("exp(-x^2/2)/sqrt(2 pi)", ["x"], order=3)[-1]
    assert third.wrt == ("x", "x", "x")
    reference = sympy.diff(sympy.exp(-(x**2) / 2) / sympy.sqrt(2 * sympy.pi), x, 3)
    assert sympy.simplify(third.expr - reference) == 0
    assert sympy.count_ops(third.expr) <= sympy.count_ops(sympy.factor(reference))


def test_values_use_the_exact_constants():
    (row,) = derive("x/3 + pi*x^2", ["x"], at={"x": 2.0})
    assert row.value == pytest.approx(1 / 3 + 4 * np.pi, rel=1e-15)
    assert (
        row.latex()
        == r"\frac{\partial f}{\partial x} = 2 \cdot \pi \cdot x + \frac{1}{3} = "
        + f"{1 / 3 + 4 * np.pi:.12g}"
    )


def test_derive_cli_prints_exact_forms_and_latex():
    done = run_cli("derive", "x/3 + pi x^2", "--wrt", "x", "--order", "2")
    assert done.stdout.splitlines() == ["d/dx = 2·pi·x + 1/3", "d^2/dxdx = 2·pi"]
    done = run_cli("derive", "sin(x) y^2", "--wrt", "x", "y", "--latex")
    lines = done.stdout.splitlines()
    assert lines[0] == r"f = y^{2} \cdot \sin{\left(x \right)}"
    assert lines[2] == r"\frac{\partial f}{\partial y} = 2 \cdot y \cdot \sin{\left(x \right)}"


# ----- unique names -----


def test_a_scalar_named_like_an_element_gets_its_own_symbol():
    def f(x, x1):
        return (x * x1).sum() + x1 * x1

    xs, s = Tensor(np.array([0.3, -1.2])), Tensor(np.array(0.7))
    gs = ops.grad(f, grad_position=1)(xs, s)  # x1 + x2 + 2·x1 (the scalar): every name in one graph
    names = {str(sym) for sym in gs.expr.free_symbols}
    assert names == {"x1", "x2", "x1_1"}
    values = {sympy.Symbol("x1", real=True): 0.3, sympy.Symbol("x2", real=True): -1.2}
    values[sympy.Symbol("x1_1", real=True)] = 0.7
    assert float(gs.expr.subs(values)) == pytest.approx(float(gs.asnumpy()), rel=1e-12)
    assert float(gs.asnumpy()) == pytest.approx(0.3 - 1.2 + 1.4, rel=1e-12)


# ----- flattening has a budget -----


def test_expr_refuses_a_formula_too_big_to_flatten_quickly():
    nn.set_seed(0)
    net = nn.SequentialCell(
        [nn.Dense(2, 64, activation="tanh"), nn.Dense(64, 64, activation="tanh"), nn.Dense(64, 1)]
    )
    points = Tensor(np.random.default_rng(0).random((16, 2)))
    g = ops.grad(lambda p: net(p).sum())(points)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"about 1\.\d+e\+08 operations \(limit 20000\).*symgrad\.explain"):
        g.expr  # noqa: B018
    assert time.perf_counter() - start < 5
    small = ops.grad(lambda v: (v * v).sum())(Tensor(np.array([1.0, 2.0])))
    assert list(small.expr) == [2 * sympy.Symbol("v1", real=True), 2 * sympy.Symbol("v2", real=True)]


# ----- explanations in notebooks and terminals -----


def _mlp():
    nn.set_seed(0)
    return nn.SequentialCell([nn.Dense(2, 16, activation="tanh"), nn.Dense(16, 1)])


def test_explanations_read_well_in_a_terminal_and_a_notebook():
    e = symgrad.explain(ops.grad(ops.sin), Tensor(np.array([1.0])))
    assert repr(e) == str(e) == e.text() and "Derivation(" not in repr(e)
    assert repr(e[0]).startswith("Gradient of")
    assert e._repr_html_().startswith("<h3>") and "<math" in e._repr_html_() and "\\[" not in e._repr_html_()
    assert e._repr_latex_().startswith("$") and "%" not in e._repr_latex_()


def test_weight_gradients_of_a_big_network_name_their_intermediates():
    net = _mlp()
    x = Tensor(np.array([0.1, 0.2], np.float32))
    grad_w = ops.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))
    text = symgrad.explain(grad_w, x).text()
    which = text.split("(2) Which intermediate is which derivative")[1].split("Operations")[0]
    assert re.search(r"d\(Σ output\)/d0\.weight = t\d+", which)
    assert "/dx" not in text  # only the weights were asked for
    assert text.count("d(Σ output)/d") == 8  # four weights, named then valued


def test_jvp_explanations_number_every_step():
    text = symgrad.explain(lambda v: ops.jvp(ops.exp, v, v), Tensor(np.array([1.0])))[0].text()
    assert [line for line in text.splitlines() if re.match(r"\(\d\)", line)] == [
        "(1) Tangent v",
        "(2) Jacobian-vector product",
        "(3) Computation result",
    ]


def test_tutorials_show_explanations_and_are_all_listed():
    readme = (ROOT / "tutorials" / "README.md").read_text()
    for path in sorted((ROOT / "tutorials").glob("*.py")):
        assert path.name in readme
        assert "print(symgrad.explain" not in path.read_text()


# ----- Chinese -----


def test_chinese_phrases_use_full_width_punctuation():
    for key, text in PHRASES["zh"].items():
        bare = text.replace("closed_form(..., max_ops=None)", "").replace("{fn}", "").replace("{n}", "")
        assert not re.search(r"[,:;()]", bare), (key, text)


def test_chinese_tour_headers_and_underlines():
    done = run_cli("tour", "sens", "--lang", "zh")
    lines = done.stdout.splitlines()
    assert lines[0] == "== sens: 梯度值缩放（sens_param=True）"
    assert display_width(lines[1]) == len(lines[2]) and set(lines[2]) == {"="}
    assert all(e.heading("zh") != e.title for e in EXAMPLES)


def _compiles(tex: str, engine: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "out.tex"
    path.write_text(tex, encoding="utf-8")
    return subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", path.name],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_latex_output_is_a_document_with_only_latex_in_it():
    for lang in ("en", "zh"):
        tex = run_cli("tour", "--latex", "--lang", lang).stdout
        assert (
            tex.startswith("% ") and "\\begin{document}" in tex and tex.rstrip().endswith("\\end{document}")
        )
        body = tex.split("\\begin{document}")[1]
        for line in body.splitlines():
            assert not line.startswith(("==", "Gradient", "(")), line
        for text in re.findall(r"\\text\{([^}]*)\}", tex):
            assert not re.search(r"(?<!\\)[_^&%#]", text), text
    assert "xeCJK" in run_cli("tour", "sens", "--latex", "--lang", "zh").stdout


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex (TeX Live) is not installed here")
def test_english_latex_compiles(tmp_path):
    """Sections with escaped text (stop_gradient) and sens weights; the whole tour takes a minute."""
    for section in ("stop_gradient", "sens"):
        done = _compiles(run_cli("tour", section, "--latex").stdout, "pdflatex", tmp_path)
        assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.skipif(shutil.which("xelatex") is None, reason="xelatex (TeX Live) is not installed here")
def test_chinese_latex_compiles(tmp_path):
    script = tmp_path / "big.py"
    script.write_text(
        "import numpy as np\nfrom symgrad import Tensor, nn, ops\nnn.set_seed(0)\n"
        "net = nn.SequentialCell([nn.Dense(2, 16, activation='tanh'), nn.Dense(16, 1)])\n"
        "ops.grad(lambda x: net(x).sum())(Tensor(np.array([0.1, 0.2])))\n"
    )
    for tex in (
        run_cli("tour", "Jvp", "--latex", "--lang", "zh").stdout,
        run_cli("explain", str(script), "--latex", "--lang", "zh").stdout,
    ):
        done = _compiles(tex, "xelatex", tmp_path)
        assert done.returncode == 0, done.stdout[-2000:]


# ----- the command line -----


def test_tour_into_a_pipe_that_closes_ends_quietly():
    done = subprocess.run(
        f"{sys.executable} -m symgrad.cli tour | head -2",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.count("\n") == 2 and "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_a_failing_script_shows_its_own_traceback(tmp_path):
    script = tmp_path / "checks.py"
    script.write_text("def helper():\n    raise ValueError('my bug')\n\nhelper()\n")
    for command in ("verify", "explain"):
        done = run_cli(command, str(script))
        assert done.returncode == 1
        assert f'File "{script}", line 2, in helper' in done.stderr and "ValueError: my bug" in done.stderr
        assert "runpy" not in done.stderr and "symgrad/cli.py" not in done.stderr


def test_kernel_warnings_name_the_op_and_formula():
    v = symgrad.placeholder("v")
    kernel = symgrad.kernel([ops.log(v - 1) * 2], [v])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel(np.array([1.0, 2.0]))
    (w,) = caught
    assert "divide by zero encountered in log in Log: t1 = log(t0)" in str(w.message)
    assert w.filename == __file__  # points at the caller, not at generated code


def test_readme_shows_what_derive_prints():
    readme = (ROOT / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```[a-z]*\n(.*?)```", readme, re.S) if b.startswith("d/dx = x·(x")]
    shown = block.splitlines()
    printed = run_cli(
        "derive", "x^3/3 + pi x^2 sin(y)", "--wrt", "x", "y", "--order", "2", "--at", "x=1", "y=2"
    )
    latex = run_cli("derive", "exp(-x^2/2)/sqrt(2 pi)", "--wrt", "x", "--order", "2", "--latex")
    assert shown == printed.stdout.splitlines() + latex.stdout.splitlines()
