"""Notebooks from the tutorials (Jupytext percent scripts) that render offline.

``read_cells`` splits a percent script into Markdown and code cells; ``run_cells`` runs the
script the user named, cell after cell in one namespace as ``python script.py`` would, keeping
each cell's printed output and what it showed with :func:`symgrad.explain.show`. ``to_html``
writes one page with no script at all (derivations as MathML, which browsers render
themselves) and ``to_ipynb`` an executed notebook (nbformat 4) whose derivations are MathML
too, so Jupyter and an HTML export of it need no MathJax from the network.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from symgrad.explain.derivation import capturing_shows
from symgrad.files import atomic_file


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: str
    printed: str = ""
    shown: list = field(default_factory=list)


def read_cells(source: str) -> list[Cell]:
    """The cells of a Jupytext percent script (``# %%`` and ``# %% [markdown]`` markers)."""
    cells: list[Cell] = []
    kind: str | None = None
    lines: list[str] = []  # text before the first marker is the script's header: not a cell
    for line in source.splitlines() + ["# %%"]:
        if line.startswith("# %%"):
            text = "\n".join(lines).strip("\n")
            if kind is not None and text.strip():
                cells.append(Cell(kind, _uncommented(text) if kind == "markdown" else text))
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        else:
            lines.append(line)
    return cells


def _uncommented(text: str) -> str:
    return "\n".join(re.sub(r"^# ?", "", line) for line in text.splitlines())


def run_cells(cells: list[Cell], path: Path) -> None:
    """Run the code cells of the script at ``path`` in order, in one namespace (its own
    ``__main__``), recording each cell's printed text and shown objects."""
    namespace = {"__name__": "__main__", "__file__": str(path)}
    for cell in cells:
        if cell.kind != "code":
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), capturing_shows() as shown:
            code = compile(cell.source, str(path), "exec")  # the script the user asked to run
            exec(code, namespace)  # noqa: S102 - as `python script.py` runs it, one cell at a time
        cell.printed, cell.shown = printed.getvalue(), list(shown)


def _html_of(thing) -> str:
    rich = getattr(thing, "_repr_html_", None)
    return rich() if callable(rich) else f"<pre>{html.escape(str(thing))}</pre>"


STYLE = """body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.5}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto}pre.out{background:#fff;border-left:3px solid #ccc}
code{background:#f6f8fa}math[display=block]{margin:.4em 0;overflow-x:auto}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em}"""


def to_html(cells: list[Cell], title: str) -> str:
    """One self-contained page: Markdown as HTML, code, printed output, derivations as MathML."""
    body = []
    for cell in cells:
        if cell.kind == "markdown":
            body.append(markdown_html(cell.source))
            continue
        body.append(f"<pre><code>{html.escape(cell.source)}</code></pre>")
        if cell.printed:
            body.append(f'<pre class="out">{html.escape(cell.printed)}</pre>')
        body += [_html_of(thing) for thing in cell.shown]
    return (
        f'<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f"<style>\n{STYLE}\n</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def to_ipynb(cells: list[Cell]) -> str:
    """The executed notebook as nbformat 4 JSON (shown derivations as MathML HTML and text)."""
    out: list[dict] = []
    count = 0
    for cell in cells:
        lines = cell.source.splitlines(keepends=True)
        if cell.kind == "markdown":
            out.append({"cell_type": "markdown", "metadata": {}, "source": lines})
            continue
        count += 1
        outputs: list[dict] = []
        if cell.printed:
            outputs.append({"output_type": "stream", "name": "stdout", "text": cell.printed})
        for thing in cell.shown:
            data = {"text/plain": str(thing), "text/html": _html_of(thing)}
            outputs.append({"output_type": "display_data", "data": data, "metadata": {}})
        out.append({
            "cell_type": "code", "execution_count": count, "metadata": {}, "outputs": outputs, "source": lines,
        })  # fmt: skip
    meta = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    notebook: dict[str, object] = {"nbformat": 4, "nbformat_minor": 4, "metadata": meta, "cells": out}
    return json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"


# ----- the Markdown the tutorials write: headings, paragraphs, lists, tables, **bold**, `code` -----

_INLINE = [  # outside code spans
    (re.compile(r"\*\*(.+?)\*\*"), r"<b>\1</b>"),
    (re.compile(r"(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])"), r"<i>\1</i>"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), r'<a href="\2">\1</a>'),
]


def inline(text: str) -> str:
    """Inline Markdown as HTML (the text escaped first; code spans left as written)."""
    parts = re.split(r"(`[^`]+`)", html.escape(text, quote=False))
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{part[1:-1]}</code>")
            continue
        for pattern, replacement in _INLINE:
            part = pattern.sub(replacement, part)
        out.append(part)
    return "".join(out)


def markdown_html(text: str) -> str:
    """Block Markdown as HTML: ``#`` headings, ``-``/``*``/``1.`` lists, ``|`` tables, paragraphs."""
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    rows: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(f"<p>{inline(' '.join(paragraph))}</p>")
        if items:
            blocks.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>")
        if rows:
            cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
            cells = [r for r in cells if not all(re.fullmatch(r":?-+:?", c) for c in r)]
            head, *rest = cells
            table = "<tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr>"
            table += "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rest)
            blocks.append(f"<table>{table}</table>")
        for gathered in (paragraph, items, rows):
            gathered.clear()

    for line in text.splitlines():
        heading = re.match(r"(#{1,6})\s+(.*)", line)
        item = re.match(r"\s*(?:[-*]|\d+\.)\s+(.*)", line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            level = len(heading.group(1))
            blocks.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif line.lstrip().startswith("|"):
            if paragraph or items:
                flush()
            rows.append(line)
        elif item:
            if paragraph or rows:
                flush()
            items.append(item.group(1))
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        else:
            if items or rows:
                flush()
            paragraph.append(line.strip())
    flush()
    return "\n".join(blocks)


def write(path: str | Path, text: str) -> None:
    """``text`` as UTF-8 at ``path``, whole or not at all, readable as files usually are (umask)."""
    umask = os.umask(0)
    os.umask(umask)
    with atomic_file(path) as file:
        file.write(text.encode("utf-8"))
        os.fchmod(file.fileno(), 0o666 & ~umask)  # mkstemp's 0600 would hide a page from a web server
