"""PINN on problems nobody tuned for (issue 40): the PINNacle benchmark (Hao et al., NeurIPS 2024).

Each problem of bench/pinnacle_problems.py (the scripts of tutorials/pinnacle/) whose reference
PINNacle's repository ships (or that has an exact solution) is built with ``symgrad.pinn`` and
handed to ``symgrad.pinn.solve(terms, params, seconds=...)`` with no other setting, within ``--seconds`` of wall time (building the
terms included); its L2RE on PINNacle's reference points (:func:`pinnacle_problems.l2re`) is
printed beside the paper's vanilla PINN and best published L2RE where they are recorded in
``PAPER`` below.

The reference files come from a PINNacle checkout (``--pinnacle PATH``, the folder that holds
``ref/``); by default the files are exported with ``git archive`` from the read-only mirror at
/work/.mirror/i207M+PINNacle/repo into a temporary folder. Without either: ``git clone --depth 1
https://github.com/i207M/PINNacle`` and pass its path. Problems with an exact solution run without it.

    python bench/pinnacle.py [--seconds 600] [--problems burgers1d wave1d ...] [--seed 0] [--explain]
    python bench/pinnacle.py --list
"""

from __future__ import annotations

import argparse
import io
import math
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pinnacle_problems as pinnacle  # noqa: E402

from symgrad.pinn import predict, solve  # noqa: E402

MIRROR = Path("/work/.mirror/i207M+PINNacle/repo")

# The paper's mean L2RE over 3 runs (arXiv 2306.08827v2, main table): (vanilla PINN, the best
# method's L2RE, its name). As extracted from the paper's LaTeX source in
# sinemsalvaersoy/when-the-winner-changes@4a48a3e7fb783f4f85ea6f79327624ef95e84433,
# data/pinnacle_published_metrics.csv (its main and appendix tables agree on 233 of 235 shared
# cells). "Best" is over every column of the main table, L-BFGS included (which has no appendix
# column). The two cells where the paper's tables disagree take the main table's (lower) value:
# PInv vPINN 1.96e-2 (appendix 2.45e-2) and HInv vPINN 1.19e-2 (appendix 4.56e-1).
PAPER: dict[str, tuple[float | None, float | None, str]] = {
    "burgers1d": (1.45e-2, 1.33e-2, "LBFGS"),
    "poisson2d_classic": (6.94e-1, 1.23e-2, "NTK"),
    "poisson_boltzmann2d": (6.36e-1, 1.43e-2, "NTK"),
    "heat_multiscale": (6.21e-2, 1.73e-2, "LBFGS"),
    "heat_longtime": (9.99e-1, 9.99e-1, "PINN (six methods tie)"),
    "ns_lid_driven": (4.70e-2, 3.60e-2, "LAAF"),
    "ns_backstep": (1.19e-1, 8.24e-2, "LAAF"),
    "wave1d": (5.88e-1, 9.79e-2, "NTK"),
    "poisson_nd": (3.04e-3, 4.58e-4, "LRA"),
    "heat_nd": (3.61e-1, 1.19e-4, "LBFGS"),
    "poisson_inv": (9.42e-2, 1.96e-2, "vPINN"),
    "heat_inv": (1.57e0, 1.19e-2, "vPINN"),
}


def export_mirror(root: Path, mirror: Path = MIRROR) -> Path:
    """PINNacle's reference files that the mirror holds, exported under ``root`` (returned)."""
    if not (mirror / "HEAD").exists() and not (mirror / ".git").exists():
        raise FileNotFoundError(
            f"no PINNacle checkout: {mirror} is absent. Run `git clone --depth 1 https://github.com/i207M/PINNacle` "
            "and pass --pinnacle PATH"
        )
    wanted = sorted({f for case in pinnacle.CASES.values() for f in case.files})
    listed = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "--name-only", "HEAD", *wanted],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for name in listed:  # one at a time: a blob the mirror lacks (>= 4 MiB) fails alone
        blob = subprocess.run(["git", "-C", str(mirror), "archive", "HEAD", name], capture_output=True)
        if blob.returncode == 0:
            with tarfile.open(fileobj=io.BytesIO(blob.stdout)) as tar:
                tar.extractall(root, filter="data")
    return root


def run(key: str, case: pinnacle.Case, root: Path | None, seconds: float, seed: int, hidden) -> dict:
    """Build, solve and score one case; a failure is a row of the table, not the end of it."""
    started = time.perf_counter()
    row: dict = {"key": key, "error": math.nan, "seconds": 0.0, "note": "", "explain": ""}
    try:
        points, reference = case.reference(root)
        built = case.build(seed, hidden, root)
        building = time.perf_counter() - started
        solution = solve(built.terms, built.params, seconds=max(seconds - building, 0.1))
        row["seconds"] = time.perf_counter() - started
        predicted = predict(built.u, points.T)
        predicted = np.column_stack(predicted if isinstance(predicted, tuple) else [predicted])
        row["error"] = pinnacle.l2re(predicted, reference)
        stages = " > ".join(
            f"{'LM' if m == 'Levenberg-Marquardt' else m} {n}" for m, n, _, _ in solution.stages
        )
        balanced = any(c.startswith("balance") for c in solution.choices)
        row["note"] = ("bal; " if balanced else "") + (stages or "no step")
        fields = ""
        if reference.shape[1] > 1:  # each output's own L2RE too (u, v, p; or u and the coefficient a)
            fields = "; per output: " + ", ".join(
                f"{pinnacle.l2re(predicted[:, k], reference[:, k]):.2e}" for k in range(reference.shape[1])
            )
        if case.exact is not None:  # the same prediction against the exact solution
            row["note"] += f"; vs exact {pinnacle.l2re(predicted, case.exact(points)):.2e}"
        row["explain"] = f"built in {building:.1f} s{fields}; {solution}"
    except FileNotFoundError as exc:
        row["note"], row["seconds"] = f"skipped: {exc}", time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001
        row["seconds"] = time.perf_counter() - started
        row["note"], row["explain"] = f"failed: {type(exc).__name__}: {exc}"[:160], traceback.format_exc()
    return row


def figure(value: float | None) -> str:
    return f"{value:9.2e}" if value is not None and math.isfinite(value) else f"{'-':>9s}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pinnacle", type=Path, default=None, help="a PINNacle checkout (the folder with ref/)"
    )
    parser.add_argument("--seconds", type=float, default=600.0, help="wall time a problem (default 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--hidden", type=int, nargs="+", default=list(pinnacle.HIDDEN), help="hidden layer widths"
    )
    parser.add_argument("--problems", nargs="+", default=list(pinnacle.CASES), choices=list(pinnacle.CASES))
    parser.add_argument("--explain", action="store_true", help="print solve's stages and reasons")
    parser.add_argument(
        "--list", action="store_true", help="list the problems, the ones not ported, and stop"
    )
    args = parser.parse_args()
    if args.list:
        for key, case in pinnacle.CASES.items():
            print(f"{key:22s} {case.title:15s} {', '.join(case.files) or 'exact solution'}  {case.note}")
        for title, why in pinnacle.NOT_PORTED.items():
            print(f"{'(not ported)':22s} {title:15s} {why}")
        return
    with tempfile.TemporaryDirectory(prefix="pinnacle-") as scratch:
        root = args.pinnacle
        if root is None:
            try:
                root = export_mirror(Path(scratch))
            except (FileNotFoundError, subprocess.CalledProcessError) as exc:
                print(f"reference data unavailable ({exc}); problems with exact solutions only")
        table(args, root)


def table(args: argparse.Namespace, root: Path | None) -> None:
    """Solve and print every problem asked for."""
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; symgrad.pinn.solve, "
        f"{args.seconds:g} s a problem; MLP hidden {args.hidden}; seed {args.seed}; L2RE on PINNacle's reference"
    )
    print(
        f"{'problem':16s} {'symgrad':>9s} {'seconds':>7s}  {'paper PINN':>10s} {'paper best':>10s}  solve's choices"
    )
    rows = []
    for key in args.problems:
        case = pinnacle.CASES[key]
        row = run(key, case, root, args.seconds, args.seed, args.hidden)
        vanilla, best, method = PAPER.get(key, (None, None, ""))
        rows.append(row)
        print(
            f"{case.title:16s} {figure(row['error'])} {row['seconds']:7.0f}  {figure(vanilla):>10s} "
            f"{figure(best):>10s}{(' ' + method) if method else ''}  {row['note']}",
            flush=True,
        )
    if args.explain:
        for row in rows:
            print(f"\n{row['key']}:\n{row['explain']}")


if __name__ == "__main__":
    main()
