"""A derivation: titled steps of ``lhs = rhs`` entries, rendered as text, LaTeX or Markdown."""

from __future__ import annotations

import contextlib
import html
import sys
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import sympy

from symgrad.explain import layout, mathml, notation


@dataclass
class Entry:
    """``lhs = rhs``: rhs is a SymPy expression or array, a NumPy array of numbers, or text."""

    lhs: str
    lhs_latex: str
    rhs: object
    note: str = ""


@dataclass
class Step:
    title: str
    entries: list[Entry] = field(default_factory=list)


def _text(value) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=8, separator=", ").replace("\n", "")
    if isinstance(value, sympy.Basic | sympy.NDimArray):
        return notation.text(value)
    return str(value)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&",
    "#": r"\#", "$": r"\$", "^": r"\^{}", "~": r"\~{}",
    "Σ": r"$\Sigma$", "·": r"$\cdot$", "ᵀ": r"$^{T}$", "@": r"$@$", "σ": r"$\sigma$", "²": r"$^{2}$",
}  # fmt: skip


def latex_text(text: str) -> str:
    """``text`` as LaTeX text mode: special characters escaped, math symbols in math mode."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _latex(value) -> str:
    """``value`` as one line of LaTeX: formulas in the guide's notation, arrays as nested brackets,
    numbers as the text prints them (0.51, not 0.50999999)."""
    if isinstance(value, str):
        return r"\text{" + latex_text(value) + "}"
    return layout.tex_of(value)


def _has_wide(text: str) -> bool:
    return display_width(text) != len(text)


def _rows(e: Entry, budget: float = layout.LINE) -> list[str]:
    """Rows of an aligned display for ``e``: ``lhs &= ...`` and continuation lines, then its note."""
    room = max(budget - layout.width(e.lhs_latex) - 4.0, budget / 3)
    rhs = r"\text{" + latex_text(e.rhs) + "}" if isinstance(e.rhs, str) else e.rhs
    parts = [rhs] if isinstance(rhs, str) else layout.lines(rhs, room)
    rows = [rf"{e.lhs_latex} &= {parts[0]}"] + [rf"&\quad {p}" for p in parts[1:]]
    if e.note:
        rows.append(r"&\quad \text{(" + latex_text(e.note) + ")}")
    return rows


CJK_NOTE = "% Chinese text: compile with XeLaTeX and \\usepackage{xeCJK} (or ctex)"


def latex_document(body: str) -> str:
    """A complete LaTeX document around ``body``: pdflatex for English; XeLaTeX with xeCJK
    when the body holds Chinese (the first line says so)."""
    chinese = _has_wide(body)
    preamble = [CJK_NOTE] if chinese else ["% compile with pdflatex (or xelatex)"]
    preamble += ["\\documentclass{article}", "\\usepackage{amsmath}", "\\allowdisplaybreaks"]
    preamble += ["\\usepackage[margin=1.5cm]{geometry}", "\\setlength{\\parindent}{0pt}"]
    if chinese:
        preamble.append("\\usepackage{xeCJK}")
    else:
        preamble.append("\\usepackage[utf8]{inputenc}")
    return "\n".join([*preamble, "\\begin{document}", body, "\\end{document}"]) + "\n"


@dataclass
class Derivation:
    """The guide's steps for one differentiation, in one language."""

    title: str
    steps: list[Step] = field(default_factory=list)

    def text(self) -> str:
        lines = [self.title, "=" * display_width(self.title)]
        for step in self.steps:
            lines.append(step.title)
            for e in step.entries:
                note = f"   ({e.note})" if e.note else ""
                lines.append(f"    {e.lhs} = {_text(e.rhs)}{note}")
        return "\n".join(lines)

    def latex(self) -> str:
        """LaTeX for a document body: the title as a subsection, each step's title as a paragraph and
        its entries in an ``align*`` (amsmath), long formulas broken into lines, notes as text."""
        parts = [rf"\subsection*{{{latex_text(self.title)}}}"]
        for step in self.steps:
            parts.append(rf"\paragraph*{{{latex_text(step.title)}}}")
            rows = [row for e in step.entries for row in _rows(e)]
            parts.append("\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}")
        return "\n".join(parts)

    def _aligned(self, e: Entry) -> str:
        return "\\begin{aligned}" + " \\\\ ".join(_rows(e)) + "\\end{aligned}"

    def markdown(self) -> str:
        lines = [f"### {self.title}"]
        for step in self.steps:
            lines.append(f"**{step.title}**\n")
            for e in step.entries:
                note = f" ({e.note})" if e.note else ""
                lines.append(f"$$ {self._aligned(Entry(e.lhs, e.lhs_latex, e.rhs))} $${note}\n")
        return "\n".join(lines)

    def formulas(self) -> list[tuple[str, object]]:
        """Every (lhs, rhs) of the derivation, for tests and further work."""
        return [(e.lhs, e.rhs) for s in self.steps for e in s.entries]

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        """The derivation as one aligned display (what Jupyter renders from LaTeX)."""
        rows = [rf"&\textbf{{{latex_text(self.title)}}}"]
        for step in self.steps:
            rows.append(rf"&\text{{{latex_text(step.title)}}}")
            rows += [row for e in step.entries for row in _rows(e)]
        return "$\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}$"

    def html(self) -> str:
        """HTML with the formulas pre-rendered as MathML: a browser shows them with no script,
        offline (long formulas broken into lines as in the LaTeX)."""
        parts = [f"<h3>{html.escape(self.title)}</h3>"]
        for step in self.steps:
            parts.append(f"<p><b>{html.escape(step.title)}</b></p>")
            for e in step.entries:
                note = f"<p><i>({html.escape(e.note)})</i></p>" if e.note else ""
                parts.append(f"<div>{mathml.aligned(_rows(Entry(e.lhs, e.lhs_latex, e.rhs)))}{note}</div>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.html()


@dataclass
class Explanation:
    """All derivations one call performed (a second-order call may hold several)."""

    derivations: list[Derivation]

    def text(self) -> str:
        return "\n\n".join(d.text() for d in self.derivations)

    def latex(self) -> str:
        return "\n\n".join(d.latex() for d in self.derivations)

    def markdown(self) -> str:
        return "\n\n".join(d.markdown() for d in self.derivations)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    def __iter__(self):
        return iter(self.derivations)

    def __len__(self) -> int:
        return len(self.derivations)

    def __getitem__(self, i: int) -> Derivation:
        return self.derivations[i]

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return "\n".join(d._repr_latex_() for d in self.derivations)

    def html(self) -> str:
        return "\n<hr/>\n".join(d.html() for d in self.derivations)

    def _repr_html_(self) -> str:
        return self.html()


_CAPTURES: list[list] = []  # what show() displays while a notebook is made (symgrad notebook)


@contextlib.contextmanager
def capturing_shows():
    """Collect what :func:`show` displays (in order) instead of printing it."""
    shown: list = []
    _CAPTURES.append(shown)
    try:
        yield shown
    finally:
        _CAPTURES.remove(shown)


def show(thing) -> None:
    """Display ``thing`` (an explanation, a report, ...): rendered math in a notebook, text elsewhere."""
    if _CAPTURES:
        _CAPTURES[-1].append(thing)
        return
    shell = sys.modules.get("IPython")
    if shell is not None and shell.get_ipython() is not None:
        from IPython.display import display

        display(thing)
    else:
        print(thing)
