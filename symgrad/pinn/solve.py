"""``solve``: one entry point that picks and chains the training methods for the problem and the time.

A user who is not an expert in PINN recipes gives the loss terms, the weights and a time budget;
``solve`` measures the problem and says in its result what it chose and why:

0. Where a network's first layer takes the points' coordinates as they are and one reaches far
   enough to saturate its units (a price in [0, 150], a time in [0, 10]: ``input_scaling``), every
   optimizer trains that layer on the input centred and scaled to [-1, 1], the same function; the
   network's own weights are written back at the end (DeepXDE's Black-Scholes, 150 s, two seeds:
   5.1e-3-6.3e-3 raw, 4.0e-5-5.4e-5 scaled).
1. The terms' gradient norms at the start: where they differ by more than ``balance_ratio``, the
   terms are balanced by gradient norms during Adam and the weights kept for L-BFGS
   (``train(balance_every=...)``, ``weighted_terms``), unless the caller weighted a term (a weight
   other than 1): those weights are the caller's balance and are kept (DeepXDE's Helmholtz with a
   hole, weights 1, 10, 100, 150 s, seeds 0-3: errors 1.5e-2, 1.01, 2.7e-2, 6.0e-3 balanced,
   1.0e-2, 5.1e-3, 1.2e-2, 2.0e-2 with the caller's weights: balanced, L-BFGS stalled on the
   plateau of u = 0 in one run of four, and in three of three before a faster kernel). The weights
   L-BFGS keeps spread at most ``SPREAD_GROWTH`` times the start's (``bounded_spread``): a term met
   during Adam has a gradient near zero and so a weight without bound (DeepXDE's Kovasznay flow,
   seed 1, 150 s: error 0.15 on weights 2.4e4x apart, 1.6e-3-3.1e-3 held to 142x).
2. Adam (lr 1e-3) for ``warmup`` of the time, and on while the C kernels still compile (up to 40%
   of the time): it leaves the flat start that second-order methods stall on, and second-order
   steps on NumPy kernels would waste their time. (Before its first evaluation ``solve`` waits
   for kernels compiling in the background, up to 40% of the time: on a busy 2-core machine one
   evaluation on the NumPy kernels took 5-15 s of a 30 s budget.)
3. Levenberg-Marquardt where every term has a Jacobian and one step (estimated from the Adam steps'
   time and this machine's matrix-product speed, without building the Jacobian; its system is over
   the weights or the residuals, the fewer) fits at least ``min_steps`` times in the time left;
   else L-BFGS. Levenberg-Marquardt minimises the terms with the caller's weights, not balanced
   ones: a Gauss-Newton step already scales each residual by its Jacobian (balancing the
   elliptic inverse field's terms, 17,640x apart, then Levenberg-Marquardt left q 47% off).
4. L-BFGS takes the time left (after a Levenberg-Marquardt that stopped early); where it stops
   before the time is up it is restarted from its last iterate, until a run lowers the loss no more.
   It has converged once 100 iterations lowered the loss by less than 1e-4 of it (``slow_loss``),
   in the loss's own units: SciPy's tests are absolute below a loss of 1 (DeepXDE's Helmholtz hole
   stopped at 6.4e-11 with 107 of 150 s left: error 2.1e-6; 1.1e-7 by the loss's own units).
   Levenberg-Marquardt also stops where by ``STALL_SHARE`` of its time its loss is still above
   ``STALL_GAIN`` of its first (``Stall``): Gauss-Newton steps that gain so little are not
   converging (PINNacle's Heat 2d-MS at 120 s: 0.97 of its first at a quarter of its time, error
   0.94 where it runs on, 0.33 where L-BFGS takes over; 2.0e-2 at 600 s). Those that converge gain
   far more by then (DeepXDE's gallery: 1e-16-0.04). Where after the stall a term's loss is still
   ``LAG_SHARE`` of its start or more, L-BFGS minimises the terms weighted by their losses relative
   to their start (over the least ratio, at most ``LAG_CAP``): the optimizers had settled where
   some terms are met and others not (PINNacle's Poisson 2d-C: Laplace's equation met by a nearly
   constant u, the boundary values missed; error 0.62 -> 1.2e-2 at 120 s).
5. Where Levenberg-Marquardt is not likely, the residual rows are more than twice the weights and
   fewer than 2,000 evaluations of every point fit in the time, Adam and L-BFGS first train on a
   random subset of each term's points (as large as those evaluations allow, at least two rows a
   weight, at most half: ``point_subsets``), and L-BFGS ends on every point for the last
   ``EVERY_POINT_SHARE`` of the time: more steps where each is slow (DeepXDE's Klein-Gordon in
   30 s: loss 4e-4-0.1 where it was 0.11-0.24). Where a Levenberg-Marquardt step does not fit on
   every point but does on ``ROWS_PER_WEIGHT`` residual rows a weight, Adam and Levenberg-Marquardt
   train on that random subset instead (``levenberg_marquardt_subset``), and the stages after it
   (new points, L-BFGS) start from it: Klein-Gordon in 150 s, 4.8e-2-6.5e-2 -> 7.6e-5-4.0e-4. At
   the end one evaluation of every point says the loss there beside the subset's (Klein-Gordon at
   60 s: 1.5e-7 on every point, 1.9e-8 on its 9.6%).
6. Where L-BFGS trains (not Levenberg-Marquardt) and a term has an input named ``t`` whose points
   span an interval, L-BFGS first trains on growing time windows for ``MARCH_SHARE`` of its time
   (``time_windows``), then on every time: fitting every time at once can miss the solution that
   follows from the initial condition (DeepXDE's Klein-Gordon, t in [0, 10]). Not where a term's
   residual divides by the solution (``poles``: ``ode_residual``): the windows leave the later
   times untrained, free to cross 0, a pole (DeepXDE's Lotka-Volterra: 0.50-0.86 with, 0.30-0.53
   without, four seeds).
7. Where the last optimizer stops lowering the loss with time left, the loss has converged at the
   fixed points: terms given as ``(loss, points, domain)`` get new points drawn from their domain
   and chosen by residual (``domain_points``: RAD), terms of one input spread over an interval
   new points between its ends (``resampling``), and the same method goes on, until the time is
   up (DeepXDE's 1-D Poisson on 16 points). Levenberg-Marquardt and the last L-BFGS also stop for
   new points once a term's mean squared residual at fresh points of its domain is
   ``domain_points.GAP`` times that at its points (Burgers on 2540 points: error 4.3e-3-1e-2 became
   2.3e-4-3.4e-3 in 30 s). The loss reported is then over the points last used.

8. Where Levenberg-Marquardt is not likely and a term holds observed values (``observations``:
   ``observes``) with at least ``FEWEST_OBSERVED`` points beside other terms, L-BFGS fits those
   terms alone first for ``OBSERVATIONS_SHARE`` of the time, and balanced weights are those of the
   start, kept: from a random start the equation can be met with unknowns far from the truth and
   the data missed (PINNacle's inverse heat problem at 120 s: L2RE 6.95 -> 3.7e-2-4.7e-2; its paper's
   vanilla PINN 1.57). Levenberg-Marquardt's Gauss-Newton steps meet data and equation together:
   there the stage cost DeepXDE's Lorenz and elliptic inverse problems 3x-4x in error at 30 s.

9. Where L-BFGS trains, every residual is affine in the output layer (the last two Parameters;
   a linear equation with linear conditions), and that layer is wide (at least ``WIDE_LAYER``
   weights), L-BFGS minimises the loss over the hidden weights with the output layer solved by
   linear least squares at every evaluation (``output_layer``: variable projection), if a trial
   of ``TRIAL_SHARE`` of its time each way from the same weights finds it lower (once a
   ``solve``). DeepXDE's Helmholtz with a hole (351 output weights, 705 rows) at 60 s: error 1.24
   (L-BFGS on the plateau of u = 0) -> 1.6e-6-6e-6; with 4x and 16x its points (2,820 and 11,280
   rows) 9.1e-7 in 37 s and 1.1e-6 in 88 s. Not where the layer is narrow: PINNacle's problems
   on [32, 32, 32] (33 output weights, 5,120-6,144 rows) at 120 s, projected in L-BFGS after a
   stalled Levenberg-Marquardt (one run each without): Poisson 2d-C 9.6e-3 -> 0.56-0.74, Wave
   1d-C 0.24 -> 0.31-0.33, Heat 2d-MS 0.21 -> 0.19-0.60 (two or three runs, one of each after a
   trial that chose the projection; in a third Poisson run the trial chose against it: 1.8e-2).

Every optimizer ends within ``seconds`` (each checks the clock inside its iterations).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from symgrad.parameter import parameters_of
from symgrad.pinn.adam import Adam
from symgrad.pinn.alignment import aligned, check_terms, optimized_parameters, term_label, wrapped_term
from symgrad.pinn.domain_points import Drawn, Gap, said, split_domains, with_domain_points
from symgrad.pinn.input_scaling import rescaled, scaled_first_layers
from symgrad.pinn.lbfgs import lbfgs
from symgrad.pinn.levenberg_marquardt import LARGEST_COMFORTABLE, levenberg_marquardt
from symgrad.pinn.lm_choice import count_points, prepare_jacobians, sizes, use_levenberg_marquardt
from symgrad.pinn.output_layer import affine_output_layer, projected_terms, race
from symgrad.pinn.point_subsets import (
    EVALUATIONS,
    ROWS_PER_WEIGHT,
    levenberg_marquardt_subset,
    subset_share,
    subset_terms,
)
from symgrad.pinn.resampling import resampleable, resampled
from symgrad.pinn.slow_loss import SLOW_GAIN, Slow
from symgrad.pinn.time_windows import time_span, window_ends, windowed
from symgrad.pinn.training import gradient_norm, loss_value, norm_weights, train, weighted_terms

WARMUP_LONGEST = 0.4  # the largest share of the time Adam takes while kernels compile
EVERY_POINT_SHARE = 0.2  # after training on a subset of the points, L-BFGS's share on every point
SUBSET_STAGE = "L-BFGS on a subset"
RESTART_GAIN = 1e-6  # L-BFGS is restarted after a run that lowered the loss by more than this (relative)
MARCH_SHARE = 0.5  # the share of L-BFGS's time that goes to growing time windows (time_windows; 0: none)
MARCH_STAGE = "L-BFGS on time windows"
ROUNDOFF = 1e-24  # Levenberg-Marquardt has converged once its loss is this share of its first
GROW = 1  # new points each draw, per point given (0: as many as given, redrawn)
SPREAD_GROWTH = 10.0  # the balanced weights L-BFGS keeps spread at most this much more than at the start
OBSERVATIONS_SHARE = 0.15  # the share of the time L-BFGS fits observed values alone, first
FEWEST_OBSERVED = 16  # fewer observed points are an anchor (a pinned value), not fitted first
OBSERVATIONS_STAGE = "L-BFGS on the observations"
STALL_SHARE = 0.25  # by this share of its time Levenberg-Marquardt's loss must have fallen ...
STALL_GAIN = 0.3  # ... to this share of its first, or L-BFGS takes the rest (a stalled Gauss-Newton)
LAG_SHARE = 0.1  # after a stall, a term whose loss is this share of its start or more lags ...
LAG_CAP = 1000.0  # ... and the terms are weighted by their loss ratios, up to this factor
PROJECT = True  # L-BFGS with the output layer solved by least squares where the residuals are affine in it
WIDE_LAYER = 128  # ... where the layer holds at least this many weights
TRIAL_SHARE = 0.1  # ... and it wins a trial of this share of L-BFGS's time each way


@dataclass
class Solution:
    """What :func:`solve` did: the loss after each step of every stage, the stages (method, steps,
    seconds, final loss), the choices it made and why, and the wall time."""

    history: list[float] = field(default_factory=list)
    stages: list[tuple[str, int, float, float]] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    weights: list[float] | None = None
    seconds: float = 0.0
    projected: bool | None = None  # L-BFGS solved the output layer by least squares (None: not tried)

    @property
    def loss(self) -> float:
        return self.history[-1] if self.history else math.nan

    def __str__(self) -> str:
        lines = [f"solve: loss {self.loss:.3e} in {self.seconds:.1f} s"]
        lines += [f"  {m}: {n} steps, {s:.1f} s, loss {v:.3e}" for m, n, s, v in self.stages]
        lines += [f"  chose: {c}" for c in self.choices]
        return "\n".join(lines)


def solve(
    losses: Sequence[tuple],
    params,
    seconds: float = 60.0,
    *,
    warmup: float = 0.15,
    balance_ratio: float = 10.0,
    min_steps: int = 40,
    progress: bool = False,
) -> Solution:
    """Minimise the sum of ``losses`` over ``params`` (Parameters or a network) within ``seconds``,
    choosing the methods as the module says. Returns a :class:`Solution`.

    Each of ``losses`` is ``(loss, points)`` or ``(loss, points, domain)``: ``domain`` (a geometry,
    or ``draw(n, rng)`` returning points in the form of ``points``) is where new points for the
    term are drawn once the loss has converged at the points given."""
    _check_arguments(seconds, warmup, balance_ratio, min_steps, progress)
    losses, draws, kinds = split_domains(losses)
    params = optimized_parameters(parameters_of(params), "solve")
    if not params:
        raise ValueError("solve: params holds no trainable Parameters; pass the network or its Parameters")
    check_terms(losses, params, "solve")
    started, result = time.perf_counter(), Solution()
    for i, (term, _) in enumerate(losses):
        written = wrapped_term(term, lambda inner: bool(getattr(inner, "formulation", "")))
        if written is not None:
            result.choices.append(f"{term_label(term, i)}: {written.formulation}")
    layers, scaled = scaled_first_layers(losses, params)
    if layers:
        losses, params = rescaled(losses, params, layers)
        result.choices.append(
            f"trained {'; '.join(scaled)} on those inputs centred and scaled to [-1, 1]: the same function, "
            "(x - c) / s @ diag(s) W + (b + c W); raw, they saturate the layer's units "
            "(DeepXDE's Black-Scholes, S in [0, 150], 150 s: 5.1e-3-6.3e-3 raw, 4.0e-5-5.4e-5 scaled)"
        )
    try:
        return _chained(
            losses,
            draws,
            kinds,
            params,
            seconds,
            (warmup, balance_ratio, min_steps, progress),
            started,
            result,
        )
    finally:
        for layer in layers:  # the network's own W, b from the trained V, a
            layer.sync()


def _chained(
    losses, draws, kinds, params, seconds: float, options: tuple, started: float, result: Solution
) -> Solution:
    """The body of :func:`solve` on its checked arguments (``options``: warmup, balance_ratio,
    min_steps, progress), timed from ``started``."""
    warmup, balance_ratio, min_steps, progress = options

    def left() -> float:
        return seconds - (time.perf_counter() - started)

    _wait_for_kernels(losses, WARMUP_LONGEST * seconds, result.choices)
    balance, evaluation, norms, starts = _should_balance(losses, params, balance_ratio, result.choices)
    moving = [
        getattr(term, "name", type(term).__name__)
        for term, _ in losses
        if getattr(term, "weights_move", False)
    ]
    if moving:  # L-BFGS's line search and Levenberg-Marquardt need one fixed objective
        result.choices.append(
            f"Adam for the whole time: the weights inside {', '.join(moving)} change from call to call "
            "(causal weights), which L-BFGS's line search and Levenberg-Marquardt cannot follow"
        )
        history = _warm_up(
            losses, params, max(left(), 0.0), max(left(), 0.0), balance, progress, result.choices
        )
        _stage(result, "Adam", history, history.seconds)
        return _finished(result, started, seconds, evaluation)
    own = newton = losses  # the terms with the caller's weights: every point; a subset for LM
    share = 1.0
    likely = left() * (1 - warmup)
    # LARGEST_COMFORTABLE is read from this module at each call, so that tests may lower it here
    if use_levenberg_marquardt(
        losses, params, likely, min_steps, evaluation, [], measure=False, largest=LARGEST_COMFORTABLE
    ):
        prepare_jacobians(losses)  # Levenberg-Marquardt is likely: its kernels compile during Adam
    elif (
        cut := levenberg_marquardt_subset(own, params, likely, min_steps, evaluation, LARGEST_COMFORTABLE)
    ) is not None:
        prepare_jacobians(losses)  # ... on a subset of the points: Adam trains on that subset too
        share, newton = cut
        losses = newton
    else:
        if _observations_first(losses, params, left, seconds, progress, result) and balance:
            # the data now sit at their noise: rebalancing by gradient norms would raise their weight
            # without bound; the start's balance is kept instead
            result.weights, balance = norm_weights(norms), False
            result.choices.append(
                "the terms keep the weights balanced at the start (by their gradient norms then): "
                "rebalancing after the observations were fitted would weight them ever more"
            )
        losses, share = _first_order_points(losses, params, left(), evaluation, result.choices)
        if result.weights is not None:
            losses = weighted_terms(losses, result.weights)
    if warmup > 0 and left() > 0:
        # its share from now: a wait for the compiler above is not Adam's time
        elapsed = seconds - left()
        warm = min(warmup * seconds, left())
        longest = max(warm, WARMUP_LONGEST * seconds - elapsed)
        history = _warm_up(losses, params, warm, longest, balance, progress, result.choices)
        _stage(result, "Adam", history, history.seconds)
        if len(history) > 1:
            evaluation = history.seconds / len(history) / share  # of every point
        if balance and history.weights:
            result.weights = bounded_spread(history.weights[-1][1], norm_weights(norms), result.choices)
            losses = weighted_terms(losses, result.weights)
    every = weighted_terms(own, result.weights) if result.weights is not None else own
    gauss_newton = False  # Levenberg-Marquardt ran (it needs no time windows)
    subset = 1.0
    newton_points = False  # ... and did not stall: it takes the new points too
    gap: Gap | None = None  # what stopped it where its points no longer represented a domain
    if left() > 0 and _levenberg_marquardt_likely(
        own, newton, share, params, left(), min_steps, evaluation, result
    ):
        if result.weights is not None:
            result.choices.append(
                "Levenberg-Marquardt on the terms' own weights, not the balanced ones: balancing evens out "
                "first-order steps, and a Gauss-Newton step already scales each residual by its Jacobian"
            )
        losses = every = newton  # every point (or LM's subset); then L-BFGS also on the caller's weights
        gauss_newton, gap, stall = True, Gap(losses, draws), Stall(left())
        subset = share  # below 1: Levenberg-Marquardt and the stages after it see a subset alone
        done = levenberg_marquardt(
            losses,
            params,
            max_iterations=10**9,
            max_seconds=left(),
            progress=progress,
            callback=_roundoff(gap, stall, start=result.history[0] if result.history else 0.0),
        )
        _stage(result, "Levenberg-Marquardt", done.history, done.seconds)
        if done.message.startswith("stopped by the callback"):
            done.message = (
                gap.fired or stall.fired or f"its loss fell to {ROUNDOFF:g} of its first: rounding errors"
            )
        newton_points = not stall.fired
        if stall.fired:
            result.choices.append(f"Levenberg-Marquardt stopped ({stall.fired}): L-BFGS takes the time left")
            lagging = _lagging_weights(newton, starts, result.choices)
            if lagging is not None:
                losses = every = weighted_terms(newton, lagging)
                result.weights = lagging
        elif gap.fired:
            result.choices.append(f"Levenberg-Marquardt stopped ({gap.fired}): new points")
        elif done.message.startswith(("no step lowers the loss", "its loss fell")):
            result.choices.append(f"Levenberg-Marquardt stopped ({done.message}): L-BFGS takes the time left")
        share = 1.0
    rest = min(0.5, 0.02 * seconds)  # time too short for another stage
    span = time_span(every)
    if span is not None and MARCH_SHARE > 0 and not gauss_newton and left() > rest:
        poles = [term_label(term, i) for i, (term, _) in enumerate(every) if _has_poles(term)]
        if poles:
            result.choices.append(
                f"no time windows: {', '.join(poles)} divides its residual by the solution, which windows "
                "would leave untrained at the later times, free to cross 0, a pole (DeepXDE's Lotka-Volterra, "
                "150 s, seeds 0-3: 0.50-0.86 with windows, 0.30-0.53 without)"
            )
        else:
            _march(losses, params, span, left, rest, progress, result)
    if share < 1 and left() > rest:
        ending = EVERY_POINT_SHARE * left()  # the end on every point
        _lbfgs_until(losses, params, lambda: left() - ending, rest, progress, result, SUBSET_STAGE)
        result.choices.append(f"L-BFGS on every point for the last {max(left(), 0.0):.1f} s")
    fresh = [i for i in resampleable(every) if i not in draws]
    then = "left: new points" if fresh or draws else "left unused"
    if not (gap and gap.fired):  # the points no longer represent the domain: new points at once
        gap = Gap(every, draws) if draws else None
        _lbfgs_until(every, params, left, rest, progress, result, "L-BFGS", then=then, gap=gap)
    if (fresh or draws) and left() > rest:
        _new_points(every, fresh, (draws, kinds, gap), params, newton_points, left, rest, progress, result)
    if subset < 1:
        _every_point_loss(own, subset, evaluation, rest, result)
    return _finished(result, started, seconds, evaluation)


def _has_poles(term) -> bool:
    """Whether ``term`` (or a term it wraps) divides its residual by the solution."""
    return wrapped_term(term, lambda inner: bool(getattr(inner, "poles", False))) is not None


def _every_point_loss(own, share: float, evaluation: float, rest: float, result: Solution) -> None:
    """After Levenberg-Marquardt on a random ``share`` of the points (the stages after it on those
    too), a choice that says the loss on every point (``own``) beside the one on the points trained
    last, from one evaluation, where that takes no longer than ``rest``."""
    trained = (
        f"Levenberg-Marquardt and the stages after it trained on a random {100 * share:.2g}% of the points"
    )
    if evaluation > rest:
        result.choices.append(
            f"{trained}; the loss on every point was not evaluated (about {evaluation:.2g} s an evaluation)"
        )
        return
    result.choices.append(
        f"{trained}: at the end the loss on every point is {loss_value(own):.3e} ({result.loss:.3e} on "
        "the points trained last)"
    )


def _levenberg_marquardt_likely(
    own, newton, share: float, params, remaining: float, min_steps: int, evaluation, result
) -> bool:
    """Whether Levenberg-Marquardt trains: on every point (``own``), or where it is a subset
    (``newton``, ``share`` of the points, chosen before Adam by ``levenberg_marquardt_subset``: on
    every point a step did not fit) on that subset; ``evaluation`` is one evaluation of every
    point. The choices say why."""
    largest = LARGEST_COMFORTABLE
    if newton is own:
        return use_levenberg_marquardt(
            own, params, remaining, min_steps, evaluation, result.choices, largest=largest
        )
    (rows, _), (every, _) = sizes(newton, params), sizes(own, params)
    result.choices.append(
        f"Adam and then Levenberg-Marquardt (if its step fits) on a random {100 * share:.2g}% of the points ({rows} of "
        f"{every} residuals, {ROWS_PER_WEIGHT} a weight): on every point fewer than {min_steps} steps would fit, "
        "and a Gauss-Newton step gains by their number (DeepXDE's Klein-Gordon in 150 s: 4.8e-2-6.5e-2 with "
        "L-BFGS on every point, 7.6e-5-4.0e-4 so)"
    )
    fits = use_levenberg_marquardt(
        newton, params, remaining, min_steps, evaluation * share, result.choices, largest=largest
    )
    if not fits:
        result.choices.append("then L-BFGS on those points, and on every point for the end")
    return fits


def _observations_first(losses, params, left: Callable[[], float], seconds: float, progress, result) -> bool:
    """L-BFGS on the terms of observed values alone (``observes``) for ``OBSERVATIONS_SHARE`` of the
    time, where there are other terms and at least ``FEWEST_OBSERVED`` observed points: the data
    say what the solution is, and the equation then says what its unknowns are."""
    picked = [i for i, (term, _) in enumerate(losses) if getattr(term, "observes", False)]
    observed = [losses[i] for i in picked]
    count = sum(count_points(points) for _, points in observed)
    if not observed or len(observed) == len(losses) or count < FEWEST_OBSERVED:
        return False
    until = left() - OBSERVATIONS_SHARE * seconds
    _lbfgs_until(observed, params, lambda: left() - until, 0.0, progress, result, OBSERVATIONS_STAGE, False)
    names = ", ".join(term_label(losses[i][0], i) for i in picked)
    result.choices.append(
        f"{OBSERVATIONS_STAGE} ({names}: {count} points) first, for {OBSERVATIONS_SHARE:.0%} of the time: "
        "fitting the equation from a random start, the network can satisfy it with unknowns far from "
        "the truth and miss the data (PINNacle's inverse heat problem at 120 s: L2RE 6.95 without, 3.7e-2-4.7e-2 with)"
    )
    return True


def _finished(result: Solution, started: float, seconds: float, evaluation: float) -> Solution:
    """``result`` with its wall time; where no optimizer step fitted in the time, a choice says so
    (its loss is then NaN: no step was taken)."""
    result.seconds = time.perf_counter() - started
    if not result.history:
        result.choices.append(
            f"no optimizer step fitted in the {seconds:g} s given: measuring the terms' gradients first "
            f"took {evaluation:.2f} s; the weights are as they were"
        )
    return result


def _march(losses, params, span, left: Callable[[], float], rest: float, progress, result) -> None:
    """L-BFGS on the points of growing time windows (``time_windows``) for ``MARCH_SHARE`` of the
    time left, each window an equal share, then every time for the rest."""
    ends = window_ends(span)
    marching = MARCH_SHARE * left()
    begun = left()

    def before(until: float) -> Callable[[], float]:
        return lambda: left() - until

    for k, end in enumerate(ends, 1):
        until = before(begun - marching * k / len(ends))
        _lbfgs_until(windowed(losses, end), params, until, rest, progress, result, MARCH_STAGE, False)
    result.choices.append(
        f"L-BFGS on {len(ends)} growing time windows (t from {span[0]:.3g} to {ends[0]:.3g}, ..., "
        f"{ends[-1]:.3g}; {marching / len(ends):.1f} s each), then every time: a term's input t spans "
        f"[{span[0]:.3g}, {span[1]:.3g}] and L-BFGS fitting every time at once can miss the solution that "
        f"follows from t = {span[0]:.3g}"
    )


def _new_points(
    losses, fresh, domains, params, gauss_newton: bool, left, rest: float, progress, result
) -> None:
    """The optimizers converged on the fixed points with time left: new points for the terms at
    ``fresh`` (``resampling``: one input, between its ends) and for those with a domain (``domains``:
    their draw functions and descriptions by index, and the ``Gap`` that stopped the optimizer, if
    one did; ``domain_points``: drawn there, chosen by residual), each draw as many as each was
    given (``GROW``), and Levenberg-Marquardt (where it ran, until the points make its step too
    costly by the rule that chose it) or L-BFGS on them, until the time is up."""
    draws, kinds, stopped = domains
    rng, rounds, gaps = np.random.default_rng(0), 0, []
    done: dict[int, list[Drawn]] = {i: [] for i in draws}
    why = "the loss had converged at the fixed points with time left"
    if stopped is not None and stopped.fired:
        why = "the points no longer represented the domain"
    first = min((count_points(losses[i][1]) for i in fresh), default=0)
    counts = {i: max(GROW, 1) * count_points(losses[i][1]) for i in draws}
    method = "Levenberg-Marquardt" if gauss_newton else "L-BFGS"
    used: list[str] = []  # the methods of the rounds, in turn
    while left() > rest:
        losses = resampled(losses, fresh, rng, GROW * first)
        losses, drawn = with_domain_points(losses, draws, counts, rng, keep=GROW > 0)
        rounds, gap = rounds + 1, Gap(losses, draws, seed=rounds + 1)
        for i, what in drawn.items():
            done[i].append(what)
        rows, size = sizes(losses, params) if gauss_newton else (0, 0)
        if min(rows, size) > LARGEST_COMFORTABLE:  # grown past the size solve chose LM by at the start
            gauss_newton, method = False, "L-BFGS"
            result.choices.append(
                f"L-BFGS from draw {rounds} of new points on: {size} weights and {rows} residuals make a dense "
                "Levenberg-Marquardt step too costly"
            )
        used += [] if method in used else [method]
        if gauss_newton:
            fit = levenberg_marquardt(
                losses,
                params,
                max_iterations=10**9,
                max_seconds=left(),
                progress=progress,
                callback=_roundoff(gap),
            )
            _stage(result, f"{method} on new points", fit.history, fit.seconds)
        else:
            _lbfgs_until(
                losses, params, left, rest, progress, result, f"{method} on new points", False, gap=gap
            )
        gaps += [gap.fired] if gap.fired else []
    draws_said = f"{rounds} draw{'s' if rounds != 1 else ''}"
    method = ", then ".join(used) or method
    if fresh:
        names = ", ".join(term_label(losses[i][0], i) for i in fresh)
        result.choices.append(
            f"{method} on new points of {names} ({draws_said}, each adding {GROW * first} points between "
            f"the ends of those given): {why}"
        )
    if gaps:
        why += f"; then {len(gaps)} time{'s' if len(gaps) > 1 else ''} the points no longer represented it: {gaps[-1]}"
    for i, each in done.items():
        name = term_label(losses[i][0], i)
        result.choices.append(
            f"{method} on new points of {name} ({draws_said}, {said(each, kinds[i], GROW > 0)}): {why}"
        )


class Stall:
    """A Levenberg-Marquardt callback's check, made once: by ``STALL_SHARE`` of its ``seconds`` its
    loss must be ``STALL_GAIN`` times its first (after one step) or less; else ``fired`` says why.
    A Gauss-Newton step that lowers the loss so little is not converging: on PINNacle's Heat 2d-MS
    (sin(20 pi x) at t = 0) 89 steps in 100 s lowered it 2.4x and left the error at 0.94, where
    L-BFGS in that time left 0.21."""

    def __init__(self, seconds: float):
        self.when = time.perf_counter() + STALL_SHARE * seconds
        self.first: float | None = None
        self.judged, self.fired = False, ""

    def __call__(self, iteration: int, loss: float) -> bool:
        self.first = loss if self.first is None else self.first
        if self.judged or time.perf_counter() < self.when:
            return False
        self.judged = True
        if loss > STALL_GAIN * self.first:
            self.fired = (
                f"after {iteration} iterations (rejected steps included), {STALL_SHARE:.0%} of its time, its "
                f"loss fell only to {loss / self.first:.2g} of its first (> {STALL_GAIN:g}): it is not converging"
            )
        return bool(self.fired)


def _roundoff(
    gap: Gap | None = None, stall: Stall | None = None, start: float = 0.0
) -> Callable[[int, float], bool]:
    """A Levenberg-Marquardt callback: stop (converged) once the loss is ``ROUNDOFF`` times its
    first, or the loss at the ``start`` of training where that is larger, or less; below that its
    steps only move rounding errors (DeepXDE's 1-D Poisson went on for 7,800 steps at 1e-30; after
    an Adam that had reached 1.8e-8 from 39, a 1-D Poisson test's Levenberg-Marquardt took 1,500
    steps at 1e-30 to the end of its time). With ``gap``, also once it fires
    (``domain_points.Gap``); with ``stall``, once it does (``Stall``)."""
    first: list[float] = []

    def converged(iteration: int, loss: float) -> bool:
        first[:] = first or [max(loss, start)]
        stalled = stall is not None and stall(iteration, loss)
        return loss <= ROUNDOFF * first[0] or (gap is not None and gap(iteration, loss)) or stalled

    return converged


def _lbfgs_until(
    losses,
    params,
    left: Callable[[], float],
    rest: float,
    progress,
    result,
    stage,
    explain: bool = True,
    then: str = "left unused",
    gap: Gap | None = None,
) -> None:
    """L-BFGS until ``left()`` is at most ``rest``: where it stops before, it is restarted from its
    last iterate while a run lowers the loss by more than ``RESTART_GAIN`` (relative; ``SLOW_GAIN``
    for a run ended as converged by ``Slow``, which replaces SciPy's absolute tests); it stops
    where ``gap`` fires. The runs are one stage of ``result``, and their restarts one line of its
    choices."""
    history: list[float] = []
    seconds, restarts, reason, stopped = 0.0, 0, "", ""
    terms, hidden, solver, trial = _projection(losses, params, left() - rest, progress, result)
    if trial is not None:  # the trial's winning run is this stage's start
        history, seconds = list(trial.history), trial.seconds
    while left() > rest:
        slow = Slow(then=gap)  # SciPy's absolute tests off: converged is a share of the loss
        done = lbfgs(
            terms, hidden, 10**9, ftol=0.0, gtol=0.0, max_seconds=left(), progress=progress, callback=slow
        )
        gain = SLOW_GAIN if slow.fired else RESTART_GAIN  # a slow run is restarted only past its own rule
        lowered = bool(done.history) and done.history[-1] < done.history[0] * (1 - gain)
        done.message = slow.fired or done.message
        if solver is not None and done.history:  # the last evaluation may have been a line search's:
            solver.solve_layer()  # the iterate's layer, and its loss without the ridge's term
            done.history[-1] = loss_value(losses)
        history += done.history
        seconds += done.seconds
        if gap is not None and gap.fired:
            stopped = f"{stage} stopped ({gap.fired}): new points"
            break
        if left() <= rest or not lowered:
            if left() > rest:
                then = then if stage == "L-BFGS" else "left, then every point"
                stopped = (
                    f"{stage} stopped ({done.message}) lowering the loss by {gain:g} (relative) or "
                    f"less: {left():.1f} s {then}"
                )
            break
        restarts, reason = restarts + 1, done.message
    _stage(result, stage, history, seconds)
    if not explain:
        return
    if restarts:
        result.choices.append(
            f"{stage} stopped before the time was up ({reason}) and was restarted from its last iterate "
            f"with a fresh curvature history, {restarts} time{'s' if restarts > 1 else ''}"
        )
    if stopped:
        result.choices.append(stopped)


def _projection(losses, params, seconds: float, progress, result: Solution):
    """``(terms, params, solver, trial)`` for L-BFGS: the loss projected onto the hidden weights
    (with its ``Projected`` solver) where every residual is affine in the output layer, the layer
    is wide (``WIDE_LAYER``) and, the first time in this ``solve``, a trial of ``TRIAL_SHARE``
    of ``seconds`` each way from the same weights found it lower; else the terms as given and None.
    ``trial`` is that trial where it ran here (the weights are at its winner's end), else None."""
    if seconds <= 0:  # no time for L-BFGS
        return losses, params, None, None
    wide = sizes(losses, params[-2:])[1] >= WIDE_LAYER
    layer = (
        affine_output_layer(losses, params) if PROJECT and wide and result.projected is not False else None
    )
    if layer is None:
        return losses, params, None, None
    terms, hidden = projected_terms(losses, layer, params)
    solver, trial = terms[0][0], None
    if result.projected is None:
        trial = race(losses, params, solver, TRIAL_SHARE * seconds, progress)
        result.projected = trial.projected
        names = f"{', '.join(p.name for p in layer)} (the output layer, {trial.size} weights)"
        race_said = (
            f"in a trial of {trial.seconds / 2:.1f} s each from the same weights, the loss fell to "
            f"{trial.with_layer:.3e} with it and to {trial.without:.3e} without"
        )
        if trial.projected:
            result.choices.append(
                f"L-BFGS on the weights but {names}, which are solved by linear least squares at every "
                f"evaluation (variable projection: every residual is affine in them): {race_said}"
            )
        else:
            result.choices.append(
                f"L-BFGS on every weight, {names} too, not solved by least squares at every evaluation "
                f"although every residual is affine in them: {race_said}"
            )
    return (terms, hidden, solver, trial) if result.projected else (losses, params, None, trial)


def _first_order_points(losses, params, remaining: float, evaluation: float, choices) -> tuple[list, float]:
    """The terms Adam and the first L-BFGS train on, and their share of the points: a random subset
    where the points are many for the weights and few evaluations of all of them fit
    (``point_subsets``), else every point."""
    rows, size = sizes(losses, params)
    fit = remaining * (1 - EVERY_POINT_SHARE) / max(evaluation, 1e-9)
    share = subset_share(rows, size, fit)
    if share >= 1:
        return losses, 1.0
    choices.append(
        f"Adam and L-BFGS on {share:.0%} of the points first: {rows} residuals for {size} weights, and "
        f"about {fit:.0f} evaluations of every point ({evaluation:.3f} s each) fit in the time, fewer than "
        f"{EVALUATIONS}"
    )
    return subset_terms(losses, share), share


def _number(value) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def _check_arguments(seconds, warmup, balance_ratio, min_steps, progress) -> None:
    if not (_number(seconds) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"solve: seconds must be a finite number > 0, got {seconds!r}")
    if not (_number(warmup) and 0 <= warmup < 1):
        raise ValueError(f"solve: warmup must be a fraction in [0, 1), got {warmup!r}")
    if not (_number(balance_ratio) and balance_ratio >= 1):  # inf: never balance
        raise ValueError(
            f"solve: balance_ratio must be a number >= 1 (inf: never balance), got {balance_ratio!r}"
        )
    if not (isinstance(min_steps, int | np.integer) and not isinstance(min_steps, bool) and min_steps >= 1):
        raise ValueError(f"solve: min_steps must be a whole number >= 1, got {min_steps!r}")
    if not isinstance(progress, bool):
        raise TypeError(f"solve: progress must be True or False, got {progress!r}")


def _wait_for_kernels(losses, longest: float, choices: list[str]) -> None:
    """Wait (up to ``longest`` seconds) for the C kernels compiling in the background: on a busy
    machine one evaluation on the NumPy kernels took 5-15 s of a 30 s budget, and the compiler
    runs faster without them beside it."""
    if not _compiling(losses):
        return
    begun = time.perf_counter()
    for term, _ in losses:
        inner = getattr(term, "term", term)
        wait = getattr(inner, "wait_until_compiled", None)
        if callable(wait):
            wait(max(0.0, longest - (time.perf_counter() - begun)))
    waited = time.perf_counter() - begun
    if waited < 0.1:
        return
    if _compiling(losses):
        choices.append(
            f"waited {waited:.1f} s for the C kernels, then went on with NumPy's while they compile"
        )
    else:
        choices.append(f"waited {waited:.1f} s for the C kernels to compile (NumPy's are far slower)")


def _compiling(losses) -> bool:
    """Whether any term's fast kernel is still compiling in the background."""
    for term, _ in losses:
        inner = getattr(term, "term", term)  # a weighted term's own
        if getattr(inner, "compiling", False) is True:
            return True
    return False


def _warm_up(losses, params, seconds: float, longest: float, balance: bool, progress: bool, choices):
    """Adam (lr 1e-3) for ``seconds``, and on while a fast kernel is still compiling, up to
    ``longest`` seconds: second-order steps on NumPy kernels would waste the time they take."""
    why: list[str] = []

    def warm(state) -> bool:
        if state.seconds < seconds:
            return False
        if _compiling(losses):
            why[:] = [
                "while the C kernels compiled (second-order steps on NumPy kernels would waste their time)"
            ]
            return False
        return True

    history = train(
        losses,
        Adam(params, lr=1e-3),
        steps=10**9,
        max_seconds=max(0.0, longest),
        balance_every=100 if balance else None,
        progress=progress,
        callbacks=[warm],
    )
    if why:
        choices.append(
            f"Adam went on past its {max(seconds, 0.0):.1f} s warm-up to {history.seconds:.1f} s ({len(history)} "
            f"steps) {why[0]}"
        )
    return history


def _stage(result: Solution, method: str, history: Sequence[float], seconds: float) -> None:
    """Record a stage's losses; a stage of the method of the one before is merged into it."""
    if len(history):
        result.history += list(history)
        if result.stages and result.stages[-1][0] == method:
            _, steps, before, _ = result.stages.pop()
            result.stages.append((method, steps + len(history), before + seconds, float(history[-1])))
        else:
            result.stages.append((method, len(history), seconds, float(history[-1])))


def _lagging_weights(losses, starts: list[float], choices: list[str]) -> list[float] | None:
    """Where a term's loss is still ``LAG_SHARE`` of its value at the start or more, weights that
    raise each term by its loss relative to its start over the least such ratio (at most
    ``LAG_CAP``); else None. The optimizer has settled where some terms are met and others not
    (PINNacle's Poisson 2d-C: Laplace's equation met to 1e-9 by a nearly constant u, the boundary
    values missed by 0.6): raising the lagging terms moves it on."""
    ratios = [
        float(term(*points)[0]) / start if start > 0 else 0.0 for (term, points), start in zip(losses, starts)
    ]
    met = [r for r in ratios if r > 0]
    if not met or max(met) < LAG_SHARE:
        return None
    least = min(met)
    weights = [min(max(r / least, 1.0), LAG_CAP) for r in ratios]
    said = ", ".join(f"{term_label(t, i)} {r:.2g}" for i, ((t, _), r) in enumerate(zip(losses, ratios)))
    choices.append(
        f"the terms' losses relative to their start ({said}): some lag, so each is weighted by that "
        f"ratio over the least (at most {LAG_CAP:g}x) for the rest"
    )
    return weights


def bounded_spread(weights: list[float], start: list[float], choices: list[str]) -> list[float]:
    """Adam's balanced ``weights`` with their spread (largest over smallest) at most ``SPREAD_GROWTH``
    times that of the ``start``'s balanced weights: a term met during Adam has a gradient near zero
    and so a weight without bound (DeepXDE's Kovasznay flow, seed 1, 150 s: the outflow pressure's
    loss 6.7e-9, its weight 2.4e4 times the least where the start's were 14x apart; L-BFGS on those
    weights crawled to an error of 0.15; held to 142x, 1.6e-3-3.1e-3; unbalanced, 2.2e-3). Relative
    to the start's spread, not a fixed cap: wave_1d's terms start 1.1e7 apart and need it."""
    least = min(weights)
    limit = SPREAD_GROWTH * max(start) / min(start) * least
    if max(weights) <= limit:
        return list(weights)
    choices.append(
        f"the balanced weights spread {max(weights) / least:.3g}x after Adam, where the terms' gradient norms "
        f"at the start were {max(start) / min(start):.3g}x apart: held to {SPREAD_GROWTH:g} times that for "
        "L-BFGS (a term met during Adam has a gradient near zero, and by it a weight without bound)"
    )
    return [min(w, limit) for w in weights]


def _should_balance(
    losses, params, ratio: float, choices: list[str]
) -> tuple[bool, float, list[float], list[float]]:
    """Whether the terms' gradient norms at the start differ by more than ``ratio``, the seconds one
    evaluation of every term took, the norms and the terms' losses."""
    begun = time.perf_counter()
    norms, starts = [], []
    for term, points in losses:
        value, grads = term(*points)
        starts.append(float(value))
        norms.append(gradient_norm(aligned(params, term, grads, "solve")))
    evaluation = time.perf_counter() - begun
    if len(losses) < 2:
        return False, evaluation, norms, starts
    positive = [n for n in norms if n > 0]
    spread = max(positive) / min(positive) if positive else 1.0
    if spread > ratio:
        weighted = [term_label(term, i) for i, (term, _) in enumerate(losses) if _weighted(term)]
        if weighted:
            choices.append(
                f"no balancing: the caller weighted {', '.join(weighted)}; those weights are kept "
                f"(the terms' gradient norms differ {spread:.0f}x)"
            )
            return False, evaluation, norms, starts
        choices.append(f"balance the terms by gradient norms: their norms differ {spread:.0f}x (> {ratio:g})")
        return True, evaluation, norms, starts
    choices.append(f"no balancing: the terms' gradient norms are within {spread:.1f}x")
    return False, evaluation, norms, starts


def _weighted(term) -> bool:
    """Whether the caller gave the term a weight other than 1 (``ResidualLoss(weight=...)``, a
    condition's ``loss(weight=...)``)."""
    return any(w != 1 for w in getattr(term, "weights", ()))


__all__ = ["Solution", "solve"]
