"""A derivation: titled steps of ``lhs = rhs`` entries, rendered as text, LaTeX or Markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import sympy


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
        text = sympy.sstr(value)
        return re.sub(r"(?<!\*)\*(?!\*)", "·", text).replace("**", "^")
    return str(value)


def _latex(value) -> str:
    if isinstance(value, np.ndarray):
        numbers = np.vectorize(lambda v: sympy.Float(float(v), 8), otypes=[object])(value)
        return sympy.latex(numbers[()] if numbers.ndim == 0 else sympy.Array(numbers.tolist()))
    if isinstance(value, sympy.Basic | sympy.NDimArray):
        return sympy.latex(value)
    return r"\text{" + str(value) + "}"


@dataclass
class Derivation:
    """The guide's steps for one differentiation, in one language."""

    title: str
    steps: list[Step] = field(default_factory=list)

    def text(self) -> str:
        lines = [self.title, "=" * len(self.title)]
        for step in self.steps:
            lines.append(step.title)
            for e in step.entries:
                note = f"   ({e.note})" if e.note else ""
                lines.append(f"    {e.lhs} = {_text(e.rhs)}{note}")
        return "\n".join(lines)

    def latex(self) -> str:
        """LaTeX: an ``align*`` environment per step (math only; titles as \\text)."""
        parts = []
        for step in self.steps:
            rows = [rf"&\text{{{step.title}}}"]
            rows += [rf"{e.lhs_latex} &= {_latex(e.rhs)}" for e in step.entries]
            parts.append("\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}")
        return f"% {self.title}\n" + "\n".join(parts)

    def markdown(self) -> str:
        lines = [f"### {self.title}"]
        for step in self.steps:
            lines.append(f"**{step.title}**\n")
            for e in step.entries:
                note = f" ({e.note})" if e.note else ""
                lines.append(f"$$ {e.lhs_latex} = {_latex(e.rhs)} $${note}\n")
        return "\n".join(lines)

    def formulas(self) -> list[tuple[str, object]]:
        """Every (lhs, rhs) of the derivation, for tests and further work."""
        return [(e.lhs, e.rhs) for s in self.steps for e in s.entries]

    def __str__(self) -> str:
        return self.text()

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return (
            "$"
            + self.latex()
            .split("\n", 1)[1]
            .replace("\\begin{align*}", "\\begin{aligned}")
            .replace("\\end{align*}", "\\end{aligned}")
            + "$"
        )


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

    def __iter__(self):
        return iter(self.derivations)

    def __len__(self) -> int:
        return len(self.derivations)

    def __getitem__(self, i: int) -> Derivation:
        return self.derivations[i]

    def _repr_markdown_(self) -> str:
        return self.markdown()
