"""LaTeX as the derivations write it, pre-rendered as MathML: formulas a browser shows with no
script, offline (a notebook's HTML without MathJax from the network).

Covers what the guide's printers write: ``\\frac``, ``\\sqrt``, sub- and superscripts,
``\\left( \\right)`` fences, ``\\cdot``, Greek letters, function names (``\\sin``,
``\\operatorname{...}``), ``\\mathrm``, ``\\text`` and spacing. :func:`mathml` with
``strict=True`` refuses any other command (the tests run it over every derivation the tour
and the tutorials print); otherwise an unknown command shows as its name.
"""

from __future__ import annotations

import html
import re

_TOKEN = re.compile(r"\\[a-zA-Z]+|\\.|\d+(?:\.\d+)?|\s+|.", re.S)

SYMBOLS = {
    **{rf"\{g}": chr(c) for g, c in [
        ("alpha", 945), ("beta", 946), ("gamma", 947), ("delta", 948), ("epsilon", 1013),
        ("varepsilon", 949), ("zeta", 950), ("eta", 951), ("theta", 952), ("iota", 953),
        ("kappa", 954), ("lambda", 955), ("mu", 956), ("nu", 957), ("xi", 958), ("pi", 960),
        ("rho", 961), ("sigma", 963), ("tau", 964), ("upsilon", 965), ("phi", 981),
        ("varphi", 966), ("chi", 967), ("psi", 968), ("omega", 969), ("Gamma", 915),
        ("Delta", 916), ("Theta", 920), ("Lambda", 923), ("Xi", 926), ("Pi", 928),
        ("Sigma", 931), ("Phi", 934), ("Psi", 936), ("Omega", 937),
    ]},
    r"\infty": "∞", r"\partial": "∂", r"\nabla": "∇", r"\ell": "ℓ",
}  # fmt: skip
OPERATORS = {
    r"\cdot": "·", r"\times": "×", r"\sum": "∑", r"\prod": "∏", r"\int": "∫", r"\pm": "±",
    r"\leq": "≤", r"\geq": "≥", r"\neq": "≠", r"\approx": "≈", r"\to": "→", r"\ldots": "…",
    r"\dots": "…", r"\cdots": "⋯", r"\{": "{", r"\}": "}", r"\|": "‖", r"\_": "_", r"\%": "%",
    r"\&": "&", r"\#": "#", r"\$": "$",
}  # fmt: skip
FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "coth", "arcsin", "arccos",
    "arctan", "exp", "log", "ln", "max", "min", "det", "lim", "sup", "inf", "arg", "sgn",
}  # fmt: skip
SPACES = {
    r"\quad": "1em",
    r"\qquad": "2em",
    r"\,": "0.167em",
    r"\;": "0.278em",
    r"\ ": "0.25em",
    r"\!": "0em",
}
INVISIBLE = {r"\displaystyle", r"\limits", r"\nolimits", r"\bigl", r"\bigr", r"\Bigl", r"\Bigr"}
TEXT_MATH = {r"$\Sigma$": "Σ", r"$\cdot$": "·", r"$^{T}$": "ᵀ", r"$@$": "@", r"$\sigma$": "σ", r"$^{2}$": "²"}
TEXT_ESCAPES = {r"\textbackslash{}": "\\", r"\^{}": "^", r"\~{}": "~"}


class MathMLError(ValueError):
    """LaTeX this converter does not know (only raised with ``strict=True``)."""


def mathml(tex: str, display: bool = True, strict: bool = False) -> str:
    """``tex`` (math mode) as a ``<math>`` element."""
    body = _Parser(tex, strict).row()
    mode = ' display="block"' if display else ""
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML"{mode}>{body}</math>'


def aligned(rows: list[str], strict: bool = False) -> str:
    """Rows ``lhs &= rhs`` (continuations ``&\\quad ...``) as one block ``<math>`` with a table
    aligned on the ``&``."""
    cells = []
    for row in rows:
        left, _, right = _split_alignment(row)
        lhs, rhs = _Parser(left, strict).row(), _Parser(right, strict).row()
        cells.append(f'<mtr><mtd style="{_CELL}right">{lhs}</mtd><mtd style="{_CELL}left">{rhs}</mtd></mtr>')
    table = f'<mtable columnalign="right left" columnspacing="0">{"".join(cells)}</mtable>'
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">{table}</math>'


_CELL = "padding:0.1em 0;text-align:"  # what columnalign says, for browsers that read only CSS


def _split_alignment(row: str) -> tuple[str, str, str]:
    for match in re.finditer(r"(?<!\\)&", row):
        return row[: match.start()], "&", row[match.end() :]
    return "", "", row


def _text(content: str) -> str:
    """Text-mode LaTeX (as ``latex_text`` writes it) back to plain text."""
    for tex, plain in {**TEXT_MATH, **TEXT_ESCAPES}.items():
        content = content.replace(tex, plain)
    return re.sub(r"\\([_%&#${}])", r"\1", content)


class _Parser:
    def __init__(self, tex: str, strict: bool):
        self.tokens = _TOKEN.findall(tex)
        self.k = 0
        self.strict = strict
        self.tex = tex

    def peek(self) -> str | None:
        """The next token, spaces skipped (math mode)."""
        while self.k < len(self.tokens) and self.tokens[self.k].isspace():
            self.k += 1
        return self.tokens[self.k] if self.k < len(self.tokens) else None

    def take(self, spaces: bool = False) -> str:
        token = self.tokens[self.k] if spaces and self.k < len(self.tokens) else self.peek()
        if token is None:
            raise MathMLError(f"unexpected end of {self.tex!r}")
        self.k += 1
        return token

    def row(self, until: str | None = None) -> str:
        items: list[str] = []
        while (token := self.peek()) is not None and token != until:
            if token in ("^", "_"):
                self.take()
                base = items.pop() if items else "<mrow></mrow>"
                items.append(self.script(base, token))
            else:
                items.append(self.atom())
        if until is not None:
            self.take()
        return items[0] if len(items) == 1 else f"<mrow>{''.join(items)}</mrow>"

    def script(self, base: str, first: str) -> str:
        lower = upper = None
        for mark in (first, "_" if first == "^" else "^"):
            if mark == first or self.peek() == mark:
                if mark != first:
                    self.take()
                part = self.argument()
                lower, upper = (part, upper) if mark == "_" else (lower, part)
        if lower is not None and upper is not None:
            return f"<msubsup>{base}{lower}{upper}</msubsup>"
        return f"<msub>{base}{lower}</msub>" if lower is not None else f"<msup>{base}{upper}</msup>"

    def argument(self) -> str:
        if self.peek() == "{":
            self.take()
            return self.row("}")
        return self.atom()

    def raw_group(self) -> str:
        """The text of a ``{...}`` group, unparsed (``\\text``, ``\\mathrm``)."""
        if self.take() != "{":
            raise MathMLError(f"expected {{ in {self.tex!r}")
        depth, out = 1, list[str]()
        while True:
            token = self.take(spaces=True)
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth == 0:
                return "".join(out)
            out.append(token)

    def atom(self) -> str:
        token = self.take()
        if token == "{":
            return self.row("}")
        if token[0].isdigit():
            return f"<mn>{token}</mn>"
        if token.isalpha():
            return f"<mi>{html.escape(token)}</mi>"
        if token == "'":
            return "<mo>′</mo>"
        if not token.startswith("\\") or len(token) == 2 and not token[1].isalpha():
            if token in SPACES:
                return f'<mspace width="{SPACES[token]}"/>'
            symbol = OPERATORS.get(token, token.lstrip("\\") if token.startswith("\\") else token)
            return f"<mo>{html.escape(symbol)}</mo>"
        return self.command(token)

    def command(self, name: str) -> str:
        if name == r"\frac":
            return f"<mfrac>{self.argument()}{self.argument()}</mfrac>"
        if name == r"\sqrt":
            if self.peek() == "[":
                self.take()
                index = self.row("]")
                return f"<mroot>{self.argument()}{index}</mroot>"
            return f"<msqrt>{self.argument()}</msqrt>"
        if name == r"\left" or name == r"\right":
            fence = self.take()
            symbol = "" if fence == "." else OPERATORS.get(fence, fence.lstrip("\\"))
            return f'<mo fence="true" stretchy="true">{html.escape(symbol)}</mo>'
        if name in (r"\mathrm", r"\operatorname", r"\mathit", r"\mathbf"):
            variant = {r"\mathit": "italic", r"\mathbf": "bold"}.get(name, "normal")
            return f'<mi mathvariant="{variant}">{html.escape(_text(self.raw_group()))}</mi>'
        if name in (r"\text", r"\textrm", r"\textbf", r"\mbox"):
            bold = ' mathvariant="bold"' if name == r"\textbf" else ""
            return f"<mtext{bold}>{html.escape(_text(self.raw_group()))}</mtext>"
        if name in SPACES:
            return f'<mspace width="{SPACES[name]}"/>'
        if name in SYMBOLS:
            return f"<mi>{SYMBOLS[name]}</mi>"
        if name in OPERATORS:
            return f"<mo>{html.escape(OPERATORS[name])}</mo>"
        if name[1:] in FUNCTIONS:
            return f"<mi>{name[1:]}</mi>"
        if name in INVISIBLE:
            return ""
        if self.strict:
            raise MathMLError(f"no MathML for the LaTeX command {name} in {self.tex!r}")
        return f"<mtext>{html.escape(name)}</mtext>"
