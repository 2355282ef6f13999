"""Whether ``solve`` takes Levenberg-Marquardt: every term has a Jacobian and a step, estimated
from the problem's size and this machine's matrix-product speed (or timed where a Jacobian kernel
is already built), fits ``min_steps`` times in the time left."""

from __future__ import annotations

import math
import time

import numpy as np

from symgrad.pinn.levenberg_marquardt import LARGEST_COMFORTABLE
from symgrad.pinn.threads import one_pool


def sizes(losses, params) -> tuple[int, int]:
    """The residual rows and the weights: the shape of a Levenberg-Marquardt Jacobian."""
    rows = sum(count_points(p) * int(getattr(t, "rows_per_point", 1)) for t, p in losses)
    return rows, sum(int(np.prod(p.shape)) for p in params)


def prepare_jacobians(losses) -> None:
    """Start building the terms' Jacobian kernels in the background, so that Levenberg-Marquardt
    does not wait on the compiler after Adam."""
    for term, _ in losses:
        prepare = getattr(getattr(term, "term", term), "prepare_jacobian", None)
        if callable(prepare):
            prepare()


def jacobian_seconds(losses) -> float | None:
    """The time one Jacobian of every term takes, where every term's Jacobian kernel is built
    (prepared during Adam); None where one is not (timing it would wait on the compiler). The
    second of two calls is timed: the first pays once for its memory (fresh pages for the Jacobian
    and the threads' scratch): DeepXDE's Klein-Gordon on 3,605 rows, 0.34-0.40 s first, then
    0.06-0.08 s a call; its Levenberg-Marquardt steps, estimated at 0.77-1.17 s from a first call,
    took 0.41-0.53 s."""
    inner = [(getattr(term, "term", term), points) for term, points in losses]
    if not all(getattr(term, "jacobian_ready", False) is True for term, _ in inner):
        return None
    with one_pool():
        for term, points in inner:
            term.jacobian(*points)
        begun = time.perf_counter()
        for term, points in inner:
            term.jacobian(*points)
        return time.perf_counter() - begun


def count_points(points) -> int:
    """How many points a term's points hold: a (dim, n) array, or one array per input."""
    if isinstance(points, np.ndarray):
        return int(points.shape[-1]) if points.ndim else 1
    if not len(points):
        return 1
    first = np.asarray(points[0])
    if len(points) == 1 and first.ndim == 2:
        return int(first.shape[1])
    return int(first.shape[0]) if first.ndim else 1


def flops_per_second() -> float:
    """This machine's dense float64 matrix product speed (the best of three 384 x 384 products)."""
    a = np.ones((384, 384))
    best = math.inf
    with one_pool():  # as Levenberg-Marquardt runs it
        for _ in range(3):
            begun = time.perf_counter()
            a @ a
            best = min(best, time.perf_counter() - begun)
    return 2 * 384**3 / max(best, 1e-6)


def use_levenberg_marquardt(
    losses,
    params,
    remaining: float,
    min_steps: int,
    evaluation: float,
    choices: list[str],
    measure: bool = True,
    largest: int = LARGEST_COMFORTABLE,
) -> bool:
    """Whether every term has a Jacobian and a Levenberg-Marquardt step, estimated without building
    one (its Jacobian costs about one loss-and-gradient evaluation per residual row per point; its
    normal equations, over the weights or where there are fewer residuals over the residuals,
    m^2 M + m^3 / 3 multiply-adds with m the smaller and M the larger of R residuals and P
    weights), fits ``min_steps`` times in ``remaining``. With ``measure``, a Jacobian already
    built is timed instead."""
    if not all(callable(getattr(term, "jacobian", None)) for term, _ in losses):
        choices.append("L-BFGS: a term has no Jacobian (Levenberg-Marquardt needs residual terms)")
        return False
    points = sum(count_points(p) for _, p in losses)
    rows, size = sizes(losses, params)
    small, large = sorted((rows, size))  # the step solves a system of the smaller of the two
    if small > largest:
        choices.append(
            f"L-BFGS: {size} weights and {rows} residuals make a dense Levenberg-Marquardt step too costly"
        )
        return False
    solving = 2 * (small**2 * large + small**3 / 3) / flops_per_second()
    measured = jacobian_seconds(losses) if measure else None
    if measured is None:
        step, how = evaluation * rows / max(points, 1) + solving, "estimated"
    else:
        step, how = measured + evaluation + solving, "its Jacobian timed"  # + the trial's loss
    if step * min_steps > remaining:
        choices.append(
            f"L-BFGS: a Levenberg-Marquardt step ({size} weights, {rows} residuals) would take about "
            f"{step:.2f} s ({how}), fewer than {min_steps} fit in the {remaining:.0f} s left"
        )
        return False
    choices.append(
        f"Levenberg-Marquardt: {size} weights, {rows} residuals, about {step:.3f} s a step ({how}), about "
        f"{int(remaining / step)} steps fit in the {remaining:.0f} s left"
    )
    return True


__all__ = ["jacobian_seconds", "count_points", "prepare_jacobians", "sizes", "use_levenberg_marquardt"]
