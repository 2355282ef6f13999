"""The ``symgrad`` command: ``symgrad tour [section]``."""

from __future__ import annotations

import argparse
import sys

from symgrad.tour.runner import SECTIONS, run_tour


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symgrad", description="Closed-form derivatives, MindSpore style.")
    sub = parser.add_subparsers(dest="command", required=True)
    tour = sub.add_parser("tour", help="walk through the guide's derivations and check its numbers")
    tour.add_argument("section", nargs="?", help=f"one section: {', '.join(SECTIONS)}")
    args = parser.parse_args(argv)
    if args.command == "tour":
        if args.section and args.section not in SECTIONS:
            print(
                f"symgrad tour: unknown section {args.section!r}; choose from {', '.join(SECTIONS)}",
                file=sys.stderr,
            )
            return 2
        return 0 if run_tour(args.section) else 1
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
