"""The ``symgrad`` command: ``symgrad tour [section]`` and ``symgrad verify script.py``."""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

from symgrad.tour.runner import SECTIONS, run_tour


def _tour(section: str | None) -> int:
    if section and section not in SECTIONS:
        print(
            f"symgrad tour: unknown section {section!r}; choose from {', '.join(SECTIONS)}", file=sys.stderr
        )
        return 2
    return 0 if run_tour(section) else 1


def _verify(script: str) -> int:
    """Run a script, print every report its ``symgrad.verify`` calls make; 1 on a real mismatch."""
    from symgrad.verification import collect

    path = Path(script)
    if not path.is_file():
        print(f"symgrad verify: no such script {script!r}", file=sys.stderr)
        return 2
    with collect() as reports:
        runpy.run_path(str(path), run_name="__main__")
    if not reports:
        print(
            f"symgrad verify: {script} made no symgrad.verify(...) call; nothing was checked", file=sys.stderr
        )
        return 2
    for report in reports:
        print(report, end="\n\n")
    failed = sum(not r.ok for r in reports)
    print(f"{len(reports) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symgrad", description="Closed-form derivatives, MindSpore style.")
    sub = parser.add_subparsers(dest="command", required=True)
    tour = sub.add_parser("tour", help="walk through the guide's derivations and check its numbers")
    tour.add_argument("section", nargs="?", help=f"one section: {', '.join(SECTIONS)}")
    check = sub.add_parser("verify", help="run the gradient checks (symgrad.verify calls) a script declares")
    check.add_argument("script", help="a Python file that calls symgrad.verify(...)")
    args = parser.parse_args(argv)
    if args.command == "tour":
        return _tour(args.section)
    return _verify(args.script)


if __name__ == "__main__":
    sys.exit(main())
