"""Runs the guide's examples, explains each derivation and checks its numbers against the guide."""

from __future__ import annotations

import contextlib
import io
import sys
import warnings

import numpy as np

from symgrad.autodiff.recording import recording
from symgrad.explain.build import explain_episodes
from symgrad.explain.derivation import Explanation, latex_document, latex_text
from symgrad.tensor import Tensor
from symgrad.tour.guide import BY_KEY, EXAMPLES, Example

SECTIONS = [e.key for e in EXAMPLES]
FORMATS = ("text", "latex", "markdown")


def _execute(example: Example) -> tuple[dict, str, list]:
    """Execute an example: its namespace, what it printed, the differentiations it recorded."""
    namespace: dict = {"__name__": f"symgrad_tour_{example.key}"}
    printed = io.StringIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"set_context\(device_target='GPU'\)")
        with contextlib.redirect_stdout(printed), recording() as episodes:
            exec(compile(example.code, f"<guide:{example.key}>", "exec"), namespace)
    return namespace, printed.getvalue(), episodes


def run_example(example: Example) -> tuple[dict, str]:
    """Execute an example; return its namespace and what it printed (nothing is explained)."""
    namespace, printed, _ = _execute(example)
    return namespace, printed


def run_recorded(example: Example, lang: str = "en") -> tuple[dict, str, Explanation]:
    """Execute an example and explain every differentiation it performs."""
    namespace, printed, episodes = _execute(example)
    return namespace, printed, explain_episodes(episodes, lang)


def check_example(example: Example, namespace: dict) -> list[tuple[str, Tensor, np.ndarray, bool]]:
    """(name, tensor, guide value, matches) for every documented result."""
    rows = []
    for name, expected in example.expected.items():
        got = eval(name, {}, namespace)
        ok = np.allclose(np.asarray(got, dtype=np.float64), expected, rtol=1e-5, atol=example.atol)
        rows.append((name, got, np.asarray(expected), ok))
    return rows


CHECK = {
    "en": (
        "matches the guide",
        "DIFFERS from the guide",
        "all values match the guide",
        "SOME VALUES DIFFER FROM THE GUIDE",
    ),
    "zh": ("与指南一致", "与指南不一致", "所有数值均与指南一致", "部分数值与指南不一致"),
}


def run_tour(section: str | None = None, lang: str = "en", fmt: str = "text", out=None) -> bool:
    """Print the tour (all sections, or one); True if every number matches the guide.

    ``fmt="latex"`` prints a complete LaTeX document (non-LaTeX lines are comments).
    """
    if fmt == "latex":
        body = io.StringIO()
        all_ok = run_tour(section, lang, "tex-body", body)
        print(latex_document(body.getvalue().rstrip("\n")), end="", file=out or sys.stdout)
        return all_ok
    latex = fmt == "tex-body"
    fmt = "latex" if latex else fmt
    out = out or sys.stdout
    same, differs, all_same, some_differ = CHECK[lang]
    all_ok = True
    for example in [BY_KEY[section]] if section else EXAMPLES:
        namespace, _, explanation = run_recorded(example, lang)
        heading = f"{example.key}: {example.heading(lang)}"
        print(_heading(heading, fmt), file=out)
        print(getattr(explanation, fmt)(), file=out)
        checks = []
        for name, tensor, expected, ok in check_example(example, namespace):
            all_ok &= ok
            value = np.array2string(tensor.asnumpy(), precision=7, separator=", ").replace("\n", "")
            mark = same if ok else f"{differs} {expected.tolist()}"
            checks.append(f"   {name} = {value}   [{mark}]")
        if latex:
            print(
                r"\paragraph*{}" + " \\\\\n".join(latex_text(" ".join(c.split())) for c in checks), file=out
            )
        else:
            print("\n".join(checks), file=out)
        print(file=out)
    print((r"\paragraph*{}" if latex else "") + (all_same if all_ok else some_differ), file=out)
    return all_ok


def _heading(heading: str, fmt: str) -> str:
    """A section's heading: a LaTeX section, a Markdown heading, or the text's ``==`` line."""
    if fmt == "latex":
        return rf"\section*{{{latex_text(heading)}}}"
    return f"# {heading}" if fmt == "markdown" else f"== {heading}"
