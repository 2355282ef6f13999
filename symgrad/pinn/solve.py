"""``solve``: one entry point that picks and chains the training methods for the problem and the time.

A user who is not an expert in PINN recipes gives the loss terms, the weights and a time budget;
``solve`` measures the problem and says in its result what it chose and why:

1. The terms' gradient norms at the start: where they differ by more than ``balance_ratio``, the
   terms are balanced by gradient norms during Adam and the weights kept afterwards
   (``train(balance_every=...)``, ``weighted_terms``).
2. Adam (lr 1e-3) for ``warmup`` of the time: it leaves the flat start that second-order methods
   stall on.
3. Levenberg-Marquardt where every term has a Jacobian and one step (estimated from the Adam steps'
   time and this machine's matrix-product speed, without building the Jacobian) fits at least
   ``min_steps`` times in the time left; else L-BFGS. If Levenberg-Marquardt stops early
   (no step lowers the loss), L-BFGS takes the time left.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from symgrad.parameter import parameters_of
from symgrad.pinn.adam import Adam
from symgrad.pinn.alignment import aligned, check_terms, optimized_parameters
from symgrad.pinn.lbfgs import lbfgs
from symgrad.pinn.levenberg_marquardt import LARGEST_COMFORTABLE, levenberg_marquardt
from symgrad.pinn.training import train, weighted_terms


@dataclass
class Solution:
    """What :func:`solve` did: the loss after each step of every stage, the stages (method, steps,
    seconds, final loss), the choices it made and why, and the wall time."""

    history: list[float] = field(default_factory=list)
    stages: list[tuple[str, int, float, float]] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    weights: list[float] | None = None
    seconds: float = 0.0

    @property
    def loss(self) -> float:
        return self.history[-1] if self.history else math.nan

    def __str__(self) -> str:
        lines = [f"solve: loss {self.loss:.3e} in {self.seconds:.1f} s"]
        lines += [f"  {m}: {n} steps, {s:.1f} s, loss {v:.3e}" for m, n, s, v in self.stages]
        lines += [f"  chose: {c}" for c in self.choices]
        return "\n".join(lines)


def solve(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]],
    params,
    seconds: float = 60.0,
    *,
    warmup: float = 0.15,
    balance_ratio: float = 10.0,
    min_steps: int = 40,
    progress: bool = False,
) -> Solution:
    """Minimise the sum of ``losses`` over ``params`` (Parameters or a network) within ``seconds``,
    choosing the methods as the module says. Returns a :class:`Solution`."""
    if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"solve: seconds must be a finite number > 0, got {seconds!r}")
    if not (isinstance(warmup, int | float) and 0 <= warmup < 1):
        raise ValueError(f"solve: warmup must be a fraction in [0, 1), got {warmup!r}")
    losses, params = list(losses), optimized_parameters(parameters_of(params), "solve")
    if not losses:
        raise ValueError("solve: no loss terms; pass a list of (loss, points) pairs")
    check_terms(losses, params, "solve")
    started, result = time.perf_counter(), Solution()

    def left() -> float:
        return seconds - (time.perf_counter() - started)

    balance, evaluation = _should_balance(losses, params, balance_ratio, result.choices)
    if warmup > 0 and left() > 0:
        history = train(
            losses,
            Adam(params, lr=1e-3),
            steps=10**9,
            max_seconds=max(0.0, warmup * seconds - (time.perf_counter() - started)),
            balance_every=100 if balance else None,
            progress=progress,
        )
        _stage(result, "Adam", history, history.seconds)
        if len(history) > 1:
            evaluation = history.seconds / len(history)
        if balance and history.weights:
            result.weights = history.weights[-1][1]
            losses = weighted_terms(losses, result.weights)
    if left() > 0 and _use_levenberg_marquardt(losses, params, left(), min_steps, evaluation, result.choices):
        done = levenberg_marquardt(
            losses, params, max_iterations=10**9, max_seconds=left(), progress=progress
        )
        _stage(result, "Levenberg-Marquardt", done.history, done.seconds)
        if done.message.startswith("no step lowers the loss"):
            result.choices.append(f"Levenberg-Marquardt stopped ({done.message}): L-BFGS takes the time left")
    if left() > 0.5:
        done_lbfgs = lbfgs(losses, params, max_iterations=10**9, max_seconds=left(), progress=progress)
        _stage(result, "L-BFGS", done_lbfgs.history, done_lbfgs.seconds)
    result.seconds = time.perf_counter() - started
    return result


def _stage(result: Solution, method: str, history: Sequence[float], seconds: float) -> None:
    if len(history):
        result.history += list(history)
        result.stages.append((method, len(history), seconds, float(history[-1])))


def _should_balance(losses, params, ratio: float, choices: list[str]) -> tuple[bool, float]:
    """Whether the terms' gradient norms at the start differ by more than ``ratio``, and the
    seconds one evaluation of every term took."""
    begun = time.perf_counter()
    norms = []
    for term, points in losses:
        _, grads = term(*points)
        norms.append(math.sqrt(sum(float(np.vdot(g, g)) for g in aligned(params, term, grads, "solve"))))
    evaluation = time.perf_counter() - begun
    if len(losses) < 2:
        return False, evaluation
    positive = [n for n in norms if n > 0]
    spread = max(positive) / min(positive) if positive else 1.0
    if spread > ratio:
        choices.append(f"balance the terms by gradient norms: their norms differ {spread:.0f}x (> {ratio:g})")
        return True, evaluation
    choices.append(f"no balancing: the terms' gradient norms are within {spread:.1f}x")
    return False, evaluation


def _points(points) -> int:
    """How many points a term's points hold: a (dim, n) array, or one array per input."""
    if isinstance(points, np.ndarray):
        return int(points.shape[-1]) if points.ndim else 1
    if not len(points):
        return 1
    first = np.asarray(points[0])
    if len(points) == 1 and first.ndim == 2:
        return int(first.shape[1])
    return int(first.shape[0]) if first.ndim else 1


def _flops_per_second() -> float:
    """This machine's dense float64 matrix product speed (the best of three 384 x 384 products)."""
    a = np.ones((384, 384))
    best = math.inf
    for _ in range(3):
        begun = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - begun)
    return 2 * 384**3 / max(best, 1e-6)


def _use_levenberg_marquardt(
    losses, params, remaining: float, min_steps: int, evaluation: float, choices: list[str]
) -> bool:
    """Whether every term has a Jacobian and a Levenberg-Marquardt step, estimated without building
    one (its Jacobian costs about one loss-and-gradient evaluation per residual row per point; its
    normal equations R P^2 + P^3 / 3 multiply-adds), fits ``min_steps`` times in ``remaining``."""
    size = sum(int(np.prod(p.shape)) for p in params)
    if not all(callable(getattr(term, "jacobian", None)) for term, _ in losses):
        choices.append("L-BFGS: a term has no Jacobian (Levenberg-Marquardt needs residual terms)")
        return False
    if size > LARGEST_COMFORTABLE:
        choices.append(f"L-BFGS: {size} weights make a dense Levenberg-Marquardt step too costly")
        return False
    points = sum(_points(p) for _, p in losses)
    rows = sum(_points(p) * int(getattr(t, "rows_per_point", 1)) for t, p in losses)
    step = evaluation * rows / max(points, 1) + 2 * (rows * size**2 + size**3 / 3) / _flops_per_second()
    if step * min_steps > remaining:
        choices.append(
            f"L-BFGS: a Levenberg-Marquardt step ({size} weights, {rows} residuals) would take about "
            f"{step:.2f} s, fewer than {min_steps} fit in the {remaining:.0f} s left"
        )
        return False
    choices.append(
        f"Levenberg-Marquardt: {size} weights, {rows} residuals, about {step:.3f} s a step, about "
        f"{int(remaining / step)} steps fit in the {remaining:.0f} s left"
    )
    return True


__all__ = ["Solution", "solve"]
