"""PINN on problems nobody tuned for (issue 40): DeepXDE's example gallery, DeepXDE against symgrad's
default recipe at equal wall time, in one process.

For each problem of bench/gallery_problems.py (DeepXDE's examples/pinn_forward and
examples/pinn_inverse, each with the example's network and point counts) and each seed:

1. DeepXDE 1.15 (PyTorch backend) as shipped, float32: the example's own recipe (Adam at the
   example's learning rate and schedule for the example's steps, then L-BFGS where the example
   has it, with DeepXDE's default L-BFGS options), stopped by a callback at ``--seconds`` of wall
   time (checked after every Adam step and every 50 L-BFGS iterations). Its wall time, model
   building included, is recorded: the example's own steps may end well before the cap. (Its
   periodic test-set evaluation during Adam is turned off, so that its time goes to training;
   its L-BFGS evaluates the test set after every 50 iterations, as DeepXDE's loop does.)
2. The same in float64.
3. symgrad: the problem built with ``symgrad.pinn`` (the same network and point counts) and
   handed to ``symgrad.pinn.solve(terms, params, seconds=...)`` with no other setting, given
   exactly DeepXDE float32's wall time (building the terms included).

Errors are relative L2 on the problem's test set against the exact solution or an independent
reference (solve_ivp for the ODE systems, finite differences for the L-shape, Cole-Hopf for
Burgers); inverse problems also show each unknown's relative error. ``solve``'s choices are
summarised per run: "bal" where it balanced the terms by gradient norms, then its stages
(Adam, LM = Levenberg-Marquardt, L-BFGS) with their steps; ``--explain`` prints its reasons.

    python bench/pinn_gallery.py [--seconds 150] [--seeds 0 1] [--problems ode_system heat ...] [--no-float64]
    python bench/pinn_gallery.py --list
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import math
import os
import platform
import statistics
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gallery_problems as gallery  # noqa: E402

from symgrad.pinn import predict, solve  # noqa: E402


@dataclass
class Run:
    """One training run: its wall time, its error (nan where it failed), the unknowns' relative
    errors and per-field errors, and a note (solve's choices, or why it failed)."""

    seconds: float
    error: float = math.nan
    unknowns: dict[str, float] = field(default_factory=dict)
    fields: dict[str, float] = field(default_factory=dict)
    note: str = ""
    explain: str = ""


def relative_l2(predicted, exact) -> float:
    predicted, exact = np.asarray(predicted, np.float64), np.asarray(exact, np.float64)
    return float(np.linalg.norm(predicted - exact) / np.linalg.norm(exact))


def scored(run: Run, problem: gallery.Problem, name: str, predicted, values: dict | None) -> Run:
    """Fill in ``run``'s errors from the prediction at the test points and the unknowns' values."""
    exact = problem.exact(problem.test_points())
    predicted = np.asarray(predicted, np.float64).reshape(exact.shape)
    run.error = relative_l2(predicted, exact)
    for k, label in enumerate(gallery.FIELDS.get(name, ())):
        run.fields[label] = relative_l2(predicted[:, k], exact[:, k])
    for key, truth in problem.truth.items():
        run.unknowns[key] = abs((values or {}).get(key, math.nan) - truth) / abs(truth)
    return run


# ----- DeepXDE -----
def deepxde_module(float64: bool, seed: int):
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import deepxde as dde

        dde.config.set_default_float("float64" if float64 else "float32")
        dde.config.set_random_seed(seed)
    return dde


def run_deepxde(name: str, problem: gallery.Problem, seed: int, seconds: float, float64: bool) -> Run:
    """The example as shipped, under a wall-time cap of ``seconds``."""
    dde = deepxde_module(float64, seed)
    started = time.perf_counter()

    class WallClock(dde.callbacks.Callback):
        def on_batch_end(self):
            if time.perf_counter() - started > seconds:
                self.model.stop_training = True

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            recipe = problem.deepxde(dde)
            model, variables = recipe.model, recipe.variables or None
            model.compile(
                "adam", lr=recipe.lr, decay=recipe.decay, loss_weights=recipe.loss_weights,
                external_trainable_variables=variables,
            )  # fmt: skip
            model.train(
                iterations=recipe.iterations,
                display_every=10**9,  # no test-set evaluation every 1000 steps: the time goes to training
                verbose=0,
                callbacks=[*recipe.callbacks, WallClock()],
            )
            if recipe.lbfgs and time.perf_counter() - started < seconds:
                dde.optimizers.config.set_LBFGS_options()  # DeepXDE's defaults, as the examples use
                # the same optimizer, run in chunks of 50 iterations so that the clock is checked often
                dde.optimizers.config.LBFGS_options.update(iter_per_step=50, fun_per_step=63)
                model.compile(
                    "L-BFGS", loss_weights=recipe.loss_weights, external_trainable_variables=variables
                )
                model.train(verbose=0, callbacks=[WallClock()])
        run = Run(time.perf_counter() - started)
        points = problem.test_points()
        with contextlib.redirect_stdout(io.StringIO()):
            predicted = model.predict(points.astype(np.float64 if float64 else np.float32))
        fields = problem.exact(points[:1]).shape[-1]  # the outputs the reference covers (Beltrami: not p)
        predicted = np.asarray(predicted)[:, :fields] if np.ndim(predicted) == 2 else predicted
        return scored(run, problem, name, predicted, recipe.unknowns() if recipe.unknowns else None)
    except Exception as exc:  # noqa: BLE001 - one failed run is a row of the table, not the end of it
        return Run(time.perf_counter() - started, note=f"failed: {type(exc).__name__}: {exc}"[:160])


# ----- symgrad -----
STAGE_NAMES = {"Levenberg-Marquardt": "LM"}


def choices_summary(solution) -> str:
    """'bal; Adam 1200 > LM 85 > L-BFGS 40': balanced or not, then each stage and its steps."""
    stages = " > ".join(f"{STAGE_NAMES.get(m, m)} {n}" for m, n, _, _ in solution.stages)
    balanced = any(c.startswith("balance the terms") for c in solution.choices)
    return ("bal; " if balanced else "") + (stages or "no step")


def run_symgrad(name: str, problem: gallery.Problem, seed: int, seconds: float) -> Run:
    """The problem built with symgrad.pinn and ``solve``d within ``seconds`` (building included)."""
    started = time.perf_counter()
    try:
        built = problem.symgrad(seed)
        building = time.perf_counter() - started
        solution = solve(built.terms, built.params, seconds=max(seconds - building, 0.1))
        run = Run(
            time.perf_counter() - started,
            note=choices_summary(solution),
            explain=f"built in {building:.1f} s of {seconds:.1f} s; {solution}",
        )
        predicted = predict(built.u, problem.test_points().T)
        if isinstance(predicted, tuple):
            predicted = np.stack(predicted, axis=1)
        return scored(run, problem, name, predicted, built.unknowns() if built.unknowns else None)
    except Exception as exc:  # noqa: BLE001
        return Run(
            time.perf_counter() - started,
            note=f"failed: {type(exc).__name__}: {exc}"[:160],
            explain=traceback.format_exc(),
        )


# ----- the table -----
def cell(run: Run | None) -> str:
    if run is None:
        return f"{'-':>16s}"
    return f"{run.error:9.2e} {run.seconds:5.0f}s"


def ratio(a: float, b: float) -> str:
    return f"{a / b:8.2g}x" if math.isfinite(a) and math.isfinite(b) and b > 0 else f"{'-':>9s}"


HEADER = (
    f"{'problem':28s} {'seed':>4s}  {'DeepXDE f32':>16s}  {'DeepXDE f64':>16s}  {'symgrad':>16s}  "
    f"{'f32/symgrad':>11s}  solve's choices"
)


def print_row(name: str, seed, f32: Run | None, f64: Run | None, ours: Run) -> None:
    failed = [
        f"{label} {r.note}" for label, r in (("DeepXDE f32", f32), ("DeepXDE f64", f64)) if r and r.note
    ]
    print(
        f"{name:28s} {seed!s:>4s}  {cell(f32)}  {cell(f64)}  {cell(ours)}  "
        f"{ratio(f32.error if f32 else math.nan, ours.error):>11s}  {ours.note}",
        flush=True,
    )
    for line in failed:
        print(f"{'':34s}{line}")
    runs = [("DeepXDE f32", f32), ("DeepXDE f64", f64), ("symgrad", ours)]
    keys = [*ours.fields] + [*ours.unknowns]
    for key in keys:
        kind = "error" if key in ours.fields else "relative error"
        values = []
        for label, r in runs:
            v = (r.fields.get(key) if key in ours.fields else r.unknowns.get(key)) if r else None
            values.append(f"{label} {v:.2e}" if v is not None and math.isfinite(v) else f"{label} -")
        print(f"{'':34s}{key} {kind}: " + ", ".join(values))


def spread(runs: list[Run | None]) -> str:
    errors = [r.error for r in runs if r is not None and math.isfinite(r.error)]
    if not errors:
        return f"{'-':>16s}"
    return f"{min(errors):7.1e}..{max(errors):7.1e}"


def main() -> None:
    problems = gallery.PROBLEMS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=150.0, help="DeepXDE's wall-time cap a run (default 150)"
    )
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[0], help="seeds (networks and points), each a row"
    )
    parser.add_argument(
        "--problems", nargs="+", default=list(problems), choices=list(problems), metavar="PROBLEM"
    )
    parser.add_argument(
        "--explain", action="store_true", help="print solve's stages and the reasons for its choices"
    )
    parser.add_argument(
        "--no-float64", action="store_true", help="skip DeepXDE float64 (its column shows '-')"
    )
    parser.add_argument("--list", action="store_true", help="list the problems and their notes, then stop")
    args = parser.parse_args()
    if args.list:
        for name, p in problems.items():
            print(f"{name:28s} {p.note}")
        return
    warnings.filterwarnings("ignore", module="deepxde")
    has_deepxde = bool(importlib.util.find_spec("deepxde") and importlib.util.find_spec("torch"))
    if not has_deepxde:
        print(
            "DeepXDE with PyTorch is not installed (pip install deepxde torch): symgrad alone, --seconds each"
        )
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; DeepXDE capped at "
        f"{args.seconds:g} s a run; symgrad gets DeepXDE float32's wall time; errors: relative L2 on the test set"
    )
    print(HEADER)
    wins, ratios, explained = 0, [], []
    for name in args.problems:
        problem, rows = problems[name], []
        for seed in args.seeds:
            f32 = run_deepxde(name, problem, seed, args.seconds, float64=False) if has_deepxde else None
            f64 = (
                run_deepxde(name, problem, seed, args.seconds, float64=True)
                if has_deepxde and not args.no_float64
                else None
            )
            # DeepXDE float32's wall time; where it failed, float64's; without DeepXDE, --seconds
            finished = [r for r in (f32, f64) if r is not None and not r.note]
            budget = finished[0].seconds if finished else args.seconds
            ours = run_symgrad(name, problem, seed, budget)
            rows.append((f32, f64, ours))
            print_row(name, seed, f32, f64, ours)
            explained.append((name, seed, ours.explain))
            if f32 is not None and math.isfinite(f32.error) and math.isfinite(ours.error) and ours.error > 0:
                ratios.append(f32.error / ours.error)
                wins += ours.error < f32.error
        if len(args.seeds) > 1:
            columns = [spread([r[k] for r in rows]) for k in range(3)]
            print(
                f"{'':28s} {'all':>4s}  {columns[0]:>16s}  {columns[1]:>16s}  {columns[2]:>16s}  (min..max)"
            )
    if ratios:
        print(
            f"symgrad's error below DeepXDE float32's in {wins} of {len(ratios)} runs; median f32/symgrad "
            f"{statistics.median(ratios):.2g}x, geometric mean {math.exp(statistics.fmean(map(math.log, ratios))):.2g}x"
        )
    if args.explain:
        for name, seed, text in explained:
            print(f"\n{name}, seed {seed}:\n{text}")


if __name__ == "__main__":
    main()
