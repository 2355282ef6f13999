"""The ``symgrad`` command: ``tour``, ``derive``, ``explain``, ``notebook`` and ``verify``.

Errors are one line on stderr with exit status 2 (input past the bounds ``derive`` states in
``symgrad.explain.formula`` and ``symgrad.explain.derive`` included). A script that raises
under ``explain`` or ``verify`` shows its own traceback (from the script's frame on), one
that does not compile shows its SyntaxError as Python would, and both exit with 1; a file
that is not Python text (binary) is bad input: one line, exit 2.
Output piped into a program that stops reading (``symgrad tour | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import runpy
import sys
import traceback
from pathlib import Path

from symgrad.tour.runner import SECTIONS, run_tour


class UsageError(Exception):
    """A problem the user can fix; printed as one line."""


class ScriptError(Exception):
    """The user's script raised; its traceback has been printed."""


def _script(path: str) -> Path:
    """``path`` as a script that compiles; a SyntaxError is shown as Python shows it, without our frames."""
    script = Path(path)
    if not script.is_file():
        raise UsageError(f"no such script {path!r}")
    try:
        data = script.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    try:
        if b"\0" in data:
            raise ValueError("null bytes")
        source = importlib.util.decode_source(data)
    except (ValueError, SyntaxError):  # UnicodeDecodeError is a ValueError; a bad coding cookie a SyntaxError
        raise UsageError(f"{path} is not a Python script (it is binary or not valid text)") from None
    try:
        compile(source, str(script), "exec")  # compiled only, to report its syntax; runpy runs it
    except (SyntaxError, ValueError) as exc:
        print("".join(traceback.format_exception_only(type(exc), exc)), end="", file=sys.stderr)
        raise ScriptError(f"{path} is not valid Python ({type(exc).__name__} above)") from None
    return script


def _tour(args) -> int:
    if args.section and args.section not in SECTIONS:
        raise UsageError(f"unknown section {args.section!r}; choose from {', '.join(SECTIONS)}")
    fmt = "latex" if args.latex else "markdown" if args.markdown else "text"
    return 0 if run_tour(args.section, lang=args.lang, fmt=fmt) else 1


def _derive(args) -> int:
    from symgrad.explain.derive import DeriveError, derive, function_latex

    at = {}
    for item in args.at or []:
        name, sep, value = item.partition("=")
        try:
            at[name] = float(value)
        except ValueError:
            raise UsageError(f"--at takes name=number, got {item!r}") from None
        if not sep:
            raise UsageError(f"--at takes name=number, got {item!r}")
    try:
        rows = derive(args.formula, args.wrt, args.order, at or None)
    except DeriveError as exc:
        raise UsageError(str(exc)) from None
    if args.latex:
        print(function_latex(args.formula))
    for row in rows:
        print(row.latex() if args.latex else row)
    return 0


def _run_guarded(path: str, run):
    """``run(script)`` for a user's script; its errors shown as Python would, without our frames."""
    from symgrad.errors import CannotCompare, FrameworkMissing

    script = _script(path)
    try:
        return run(script)
    except (FrameworkMissing, CannotCompare) as exc:  # what to install or to change, in one line
        raise UsageError(str(exc)) from None
    except Exception as exc:  # the user's error
        _show_user_error(exc, script)
        raise ScriptError(f"{path} raised {type(exc).__name__} (traceback above)") from None


def _show_user_error(exc: BaseException, script: Path) -> None:
    tb = exc.__traceback__
    while tb is not None and Path(tb.tb_frame.f_code.co_filename).resolve() != script.resolve():
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__, file=sys.stderr)


def _run_collecting(path: str, collector) -> list:
    """Run a user's script inside ``collector`` (a context yielding a list); return what it gathered."""

    def run(script: Path) -> list:
        with collector as gathered:
            runpy.run_path(str(script), run_name="__main__")
        return gathered

    return _run_guarded(path, run)


def _explain(args) -> int:
    from symgrad.autodiff.recording import recording
    from symgrad.explain.build import explain_episodes
    from symgrad.explain.derivation import latex_document

    with contextlib.redirect_stdout(sys.stderr):  # the script's own prints stay out of the document
        episodes = _run_collecting(args.script, recording())
    if not episodes:
        raise UsageError(f"{args.script} differentiated nothing")
    explanation = explain_episodes(episodes, args.lang)
    if args.latex:
        print(latex_document(explanation.latex()), end="")
    else:
        print(explanation.markdown() if args.markdown else explanation.text())
    return 0


def _notebook(args) -> int:
    """Run a tutorial (a Jupytext percent script) and write it as HTML and/or an executed notebook
    whose formulas are MathML: they render offline, with no MathJax from the network."""
    from symgrad.explain import notebook

    if not (args.html or args.ipynb):
        raise UsageError("say where to write: --html PAGE.html and/or --ipynb NOTEBOOK.ipynb")
    cells = notebook.read_cells(_script(args.script).read_text(encoding="utf-8"))
    with contextlib.redirect_stdout(sys.stderr):  # output the cells do not capture stays off stdout
        _run_guarded(args.script, lambda script: notebook.run_cells(cells, script))
    documents = [
        (args.html, notebook.to_html(cells, Path(args.script).stem)),
        (args.ipynb, notebook.to_ipynb(cells)),
    ]
    for target, text in documents:
        if target:
            try:
                notebook.write(target, text)
            except OSError as exc:
                raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
            print(f"wrote {target}")
    return 0


def _verify(args) -> int:
    """Run a script, print every report its ``symgrad.verify`` calls make; 1 on a real mismatch."""
    from symgrad.verification import collect

    if args.against_mindspore:
        from symgrad.verification.mindspore_script import verify_mindspore_script

        reports = [_run_guarded(args.script, verify_mindspore_script)]
    else:
        reports = _run_collecting(args.script, collect())
    if not reports:
        raise UsageError(f"{args.script} made no symgrad.verify(...) call; nothing was checked")
    for report in reports:
        print(report, end="\n\n")
    failed = sum(not r.ok for r in reports)
    print(f"{len(reports) - failed} passed, {failed} failed")
    return 1 if failed else 0


def _formats(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the derivation")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--latex", action="store_true", help="print LaTeX")
    group.add_argument("--markdown", action="store_true", help="print Markdown")


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="symgrad", description="Closed-form derivatives, MindSpore style.")
    sub = main.add_subparsers(dest="command", required=True)
    tour = sub.add_parser("tour", help="walk through the guide's derivations and check its numbers")
    tour.add_argument("section", nargs="?", help=f"one section: {', '.join(SECTIONS)}")
    _formats(tour)
    derive = sub.add_parser("derive", help='closed-form derivatives of a formula, e.g. "sin(x)*y**2"')
    derive.add_argument("formula")
    derive.add_argument("--wrt", nargs="+", required=True, help="variables to differentiate by")
    derive.add_argument("--order", type=int, default=1, help="highest order (all mixed partials)")
    derive.add_argument("--at", nargs="+", metavar="NAME=VALUE", help="also evaluate at this point")
    derive.add_argument("--latex", action="store_true", help="print LaTeX")
    explain = sub.add_parser("explain", help="explain every derivative a script computes")
    explain.add_argument("script")
    _formats(explain)
    notebook = sub.add_parser(
        "notebook",
        help="run a tutorial (Jupytext percent script) into HTML or a notebook that render offline",
    )
    notebook.add_argument("script", help="a Jupytext percent script, e.g. tutorials/01_first_order.py")
    notebook.add_argument("--html", metavar="PAGE", help="write one HTML page (no scripts; math as MathML)")
    notebook.add_argument("--ipynb", metavar="NOTEBOOK", help="write the executed notebook (nbformat 4)")
    verify = sub.add_parser("verify", help="run the gradient checks (symgrad.verify calls) a script declares")
    verify.add_argument("script", help="a Python file that calls symgrad.verify(...)")
    verify.add_argument(
        "--against-mindspore",
        action="store_true",
        help="run a MindSpore script on MindSpore and on symgrad and compare every gradient it computes "
        "(custom bprops included) with symgrad's exact ones",
    )
    return main


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal without Σ or 求 shows "?", not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    args = parser().parse_args(argv)
    handlers = {
        "tour": _tour,
        "derive": _derive,
        "explain": _explain,
        "notebook": _notebook,
        "verify": _verify,
    }
    handler = handlers[args.command]
    try:
        return handler(args)
    except (RecursionError, MemoryError, OverflowError) as exc:  # a bound we missed: still one line
        print(
            f"symgrad {args.command}: the input is too large or deep to handle ({type(exc).__name__})",
            file=sys.stderr,
        )
        return 2
    except UsageError as exc:
        print(f"symgrad {args.command}: {exc}", file=sys.stderr)
        return 2
    except ScriptError as exc:
        print(f"symgrad {args.command}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader (head, less) stopped: end quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit must not fail again
        return 0
    except Exception as exc:  # a bug of symgrad's own: one line, never a traceback of its frames
        if os.environ.get("SYMGRAD_DEBUG"):
            raise
        print(
            f"symgrad {args.command}: internal error ({type(exc).__name__}: {exc}); please report it "
            "with the command you ran (SYMGRAD_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":
    sys.exit(main())
