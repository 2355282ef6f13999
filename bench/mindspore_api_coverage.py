"""How much of the MindSpore API its tutorials and MindFlow use symgrad has (issue 42).

Reads ``tests/data/mindspore_api_usage.txt`` (public names of ``mindspore``, ``mindspore.nn``,
``mindspore.ops`` and ``mindspore.numpy`` with the number of tutorial and MindFlow files using
each: ``bench/mindspore_api_scan.py`` builds it) and prints, per module, the names symgrad has
out of the names used, the share weighted by use (each name counts as often as files use it),
and the missing names, most used first.

    python bench/mindspore_api_coverage.py [--all]
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import NamedTuple

USAGE = Path(__file__).resolve().parents[1] / "tests" / "data" / "mindspore_api_usage.txt"
SYMGRAD_MODULES = {"mindspore": "symgrad", "nn": "symgrad.nn", "ops": "symgrad.ops", "numpy": "symgrad.numpy"}


class Coverage(NamedTuple):
    module: str
    used: list[tuple[str, int]]  # (name, files using it), most used first
    missing: list[tuple[str, int]]

    @property
    def weight(self) -> int:
        return sum(n for _, n in self.used)

    @property
    def weight_had(self) -> int:
        return self.weight - sum(n for _, n in self.missing)

    @property
    def percent(self) -> float:
        return 100.0 * self.weight_had / self.weight if self.weight else 100.0


def read_usage(path: Path = USAGE) -> list[tuple[str, str, int]]:
    """``(module, name, files)`` rows of the usage list, comments skipped."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            module, name, count = line.split()
            rows.append((module, name, int(count)))
    return rows


def symgrad_has(module: str, name: str) -> bool:
    return hasattr(importlib.import_module(SYMGRAD_MODULES[module]), name)


def coverage(rows: list[tuple[str, str, int]] | None = None) -> dict[str, Coverage]:
    """Per module: the names used and those symgrad lacks."""
    rows = read_usage() if rows is None else rows
    out = {}
    for module in SYMGRAD_MODULES:
        used = sorted(((n, c) for m, n, c in rows if m == module), key=lambda nc: (-nc[1], nc[0]))
        out[module] = Coverage(module, used, [(n, c) for n, c in used if not symgrad_has(module, n)])
    return out


def table(result: dict[str, Coverage], show: int | None = 12) -> str:
    lines = [
        "| module | names symgrad has / used | % weighted by use | missing (files using it) |",
        "|---|---|---|---|",
    ]
    for module, cov in result.items():
        missing = ", ".join(f"{n} ({c})" for n, c in cov.missing[:show])
        if show is not None and len(cov.missing) > show:
            missing += f", ... {len(cov.missing) - show} more"
        label = "mindspore" if module == "mindspore" else f"mindspore.{module}"
        had = len(cov.used) - len(cov.missing)
        lines.append(f"| {label} | {had} / {len(cov.used)} | {cov.percent:.1f} | {missing or '-'} |")
    weight = sum(c.weight for c in result.values())
    had = sum(c.weight_had for c in result.values())
    names = sum(len(c.used) for c in result.values())
    names_had = names - sum(len(c.missing) for c in result.values())
    lines.append(f"| all | {names_had} / {names} | {100.0 * had / weight:.1f} | |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="list every missing name")
    args = parser.parse_args()
    header = [line for line in USAGE.read_text().splitlines() if line.startswith("# ")]
    print("\n".join(header[2:]))
    print(table(coverage(), None if args.all else 12))


if __name__ == "__main__":
    main()
