"""New points for ``solve`` from the domain a term's points come from, chosen by residual (RAD).

A term may be given to ``solve`` as ``(loss, points, domain)``: ``domain`` is a geometry (anything
with ``interior(n, method, seed)``: ``Box``, ``Disk``, ``SpaceTime``, ``Polygon``, constructive
geometry) or a function ``draw(n, rng)`` that returns ``n`` points in the form of ``points`` (a
(dim, n) array, or one array per input). Where solve adds points to such a term (any number of
inputs), ``CANDIDATES`` times as many as it adds are drawn from the domain and the new ones chosen
among them with probability proportional to ``|r|^k / mean(|r|^k) + c`` (``adaptive.resample``:
RAD, Wu, Zhu, Tan, Kartha & Lu 2023, k = c = 1), ``r`` the term's residual at the weights reached;
the points given are kept. A term whose residual cannot be evaluated gets uniform draws.
``Gap`` tells solve's optimizers when the points no longer represent the domain (the residual
between them ``GAP`` times that at them), so that new points are drawn before the loss converges.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.pinn.adaptive import resample, residual_sizes
from symgrad.pinn.alignment import term_label, wrapped_term
from symgrad.pinn.point_subsets import point_count

CANDIDATES = 10  # candidates drawn from the domain per point added
RAD_K, RAD_C = 1.0, 1.0  # RAD's exponent and its uniform share (Wu et al. 2023's defaults)
GAP = 10.0  # mean squared residual at fresh points of the domain over that at the points, at most
CHECK_SECONDS = 2.0  # the gap is measured at most this often
GAP_POINTS = 4096  # the gap is measured on at most this many of the points, and as many fresh ones
Draw = Callable[[int, np.random.Generator], np.ndarray]


@dataclass
class Drawn:
    """What one draw for a term did: the points added, the candidates, and the mean |r| of the
    points chosen over the candidates' (None: chosen uniformly, ``why`` says why)."""

    added: int
    candidates: int
    gain: float | None
    why: str = ""


def split_domains(losses) -> tuple[list, dict[int, Draw], dict[int, str]]:
    """``solve``'s ``losses`` (pairs (term, points) and triples (term, points, domain), each term
    callable) as (term, points) pairs, with the draw function of each term given a domain (by
    index) and the domain's description; each domain is checked by drawing two points."""
    if isinstance(losses, str | bytes) or not isinstance(losses, Sequence | Iterable):
        raise TypeError(f"solve: losses must be a list of (loss, points) pairs, got {type(losses).__name__}")
    losses = list(losses)
    if not losses:
        raise ValueError("solve: no loss terms; pass a list of (loss, points) pairs")
    pairs, draws, kinds = [], {}, {}
    for i, entry in enumerate(losses):
        if not (isinstance(entry, tuple | list) and len(entry) in (2, 3) and callable(entry[0])):
            raise TypeError(
                f"solve: losses[{i}] must be a (loss, points) pair with a callable loss (a ResidualLoss), or "
                "a (loss, points, domain) triple, "
                f"got {type(entry).__name__}{f' of {len(entry)}' if isinstance(entry, tuple | list) else ''}"
            )
        pairs.append((entry[0], entry[1]))
        if len(entry) == 3:
            draws[i], kinds[i] = drawer(entry[2], entry[0], entry[1], i)
    return pairs, draws, kinds


def drawer(domain, term, points, index: int) -> tuple[Draw, str]:
    """The function that draws ``n`` of the term's points from ``domain`` (a (dim, n) array of its
    input rows), and the domain's description; a ValueError naming the term where it cannot."""
    where = f"solve: losses[{index}] ({term_label(term, index)})"
    dim = rows(points)
    if dim is None:
        raise ValueError(
            f"{where}: to draw points from a domain its points must be a (dim, n) array or one array per "
            f"input of shape (n,) or (n, 1), got {type(points).__name__}"
        )
    interior = None if isinstance(domain, type) else getattr(domain, "interior", None)
    if callable(interior):

        def draw(n: int, rng: np.random.Generator) -> np.ndarray:
            return interior(n, "uniform", int(rng.integers(2**31)))

        kind = type(domain).__name__
    elif callable(domain) and not isinstance(domain, type):
        draw, kind = domain, getattr(domain, "__name__", type(domain).__name__)
    else:
        raise ValueError(
            f"{where}: the third element must be the domain its points come from, a geometry (with "
            f"interior(n, method, seed)) or a function draw(n, rng) returning points; got "
            f"{type(domain).__name__} {domain!r:.80}"
        )
    drawn(draw, 2, np.random.default_rng(0), dim, f"{where}: its domain ({kind})")  # fails here, not later
    return draw, kind


def rows(points) -> int | None:
    """The number of inputs of a term's points, where they are a (dim, n) array or one array per
    input; None for any other form."""
    if point_count(points) is None:
        return None
    return int(points.shape[0]) if isinstance(points, np.ndarray) else len(points)


def as_rows(points) -> np.ndarray:
    """Points ((dim, n) array, or one array per input) as a (dim, n) float array."""
    if isinstance(points, np.ndarray):
        return np.asarray(points, float)
    return np.vstack([np.ravel(np.asarray(p, float)) for p in points])


def drawn(draw: Draw, n: int, rng: np.random.Generator, dim: int, what: str) -> np.ndarray:
    """``n`` points from ``draw`` as a (dim, n) float array, or a ValueError saying what came back."""
    got = draw(n, rng)
    try:
        array = as_rows(got)
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != (dim, n) or not np.all(np.isfinite(array)):
        shape = "not numbers" if array is None else f"shape {array.shape}"
        raise ValueError(
            f"{what}: drawing {n} points gave {type(got).__name__} of {shape}; it must give {dim} rows "
            f"(one per input) of {n} finite values, a ({dim}, {n}) array"
        )
    return array


def in_form(new: np.ndarray, points):
    """The (dim, m) array ``new`` in the form and dtype of ``points``."""
    if isinstance(points, np.ndarray):
        return new.astype(points.dtype)
    parts = [
        row.astype(np.asarray(p).dtype).reshape((-1, 1) if np.ndim(p) == 2 else (-1,))
        for row, p in zip(new, points)
    ]
    return tuple(parts) if isinstance(points, tuple) else parts


def residuals_of(term) -> Callable | None:
    """The per-point residual of a term (``ResidualLoss.residuals``), through the wrappers solve
    and the user may put around it; None where it has none."""
    found = wrapped_term(term, lambda t: callable(getattr(t, "residuals", None)))
    return None if found is None else found.residuals


def joined(points, new: np.ndarray, keep: bool):
    """``points`` with the (dim, m) ``new`` ones after them (``keep``), or ``new`` alone, in the
    form given."""
    if not keep:
        return in_form(new, points)
    return in_form(np.hstack([as_rows(points), new]), points)


def chosen_by_residual(
    candidates: np.ndarray, residuals: Callable | None, count: int, rng: np.random.Generator, what: str
) -> tuple[np.ndarray, float | None, str]:
    """The indices of ``count`` of the (dim, n) ``candidates`` drawn by RAD on ``residuals`` (|r|
    evaluated once), and the mean |r| of those over all the candidates'; uniformly, with None and
    the reason, where the residual is missing or not finite somewhere."""
    n = candidates.shape[1]
    if residuals is None:
        return rng.choice(n, count, replace=False), None, "the term has no residuals() to choose by"
    try:
        sizes = residual_sizes(candidates, residuals, what)
    except ValueError as error:  # a non-finite residual somewhere in the domain
        return rng.choice(n, count, replace=False), None, str(error)
    at = np.arange(n, dtype=float)[None, :]  # RAD picks among the candidates' indices
    index = resample(at, lambda _: sizes, count, k=RAD_K, c=RAD_C, seed=int(rng.integers(2**31)))
    index = index[0].astype(int)
    mean = sizes.mean()
    return index, float(sizes[index].mean() / mean) if mean > 0 else 1.0, ""


def with_domain_points(
    losses: Sequence,
    draws: dict[int, Draw],
    counts: dict[int, int],
    rng: np.random.Generator,
    keep: bool = True,
) -> tuple[list, dict[int, Drawn]]:
    """``losses`` with ``counts[i]`` points drawn from term i's domain and chosen by RAD added to
    its points (``keep``; else in their place), and what each draw did."""
    out, done = list(losses), {}
    for i, draw in draws.items():
        term, points = out[i]
        count, dim = counts[i], rows(points)
        assert dim is not None  # split_domains checked the form
        what = f"solve: losses[{i}] ({term_label(term, i)}): its domain"
        candidates = drawn(draw, CANDIDATES * count, rng, dim, what)
        index, gain, why = chosen_by_residual(candidates, residuals_of(term), count, rng, what)
        chosen = candidates[:, index]
        out[i] = (term, joined(points, chosen, keep))
        done[i] = Drawn(count, candidates.shape[1], gain, why)
    return out, done


def _range(values: Sequence[float]) -> str:
    low, high = f"{min(values):.2g}", f"{max(values):.2g}"
    return low if low == high else f"{low}-{high}"


class Gap:
    """A Levenberg-Marquardt or L-BFGS callback: True (stop) once, for a term with a domain, the
    mean squared residual at fresh points drawn there (as many as it has, up to ``GAP_POINTS``,
    drawn once) is over ``GAP`` times that at its points (as many of them): the loss still falls at
    the points but no longer in the domain (Burgers' shock on 2540 points: 1e-5 at the points, 80x
    that between them), so new points are worth more than more steps. Measured at most every
    ``CHECK_SECONDS``; ``fired`` says what it found."""

    def __init__(self, losses: Sequence, draws: dict[int, Draw], seed: int = 1):
        rng, self.fired, self.last = np.random.default_rng(seed), "", time.perf_counter()
        self.checks: list[tuple[str, Callable, np.ndarray, np.ndarray]] = []
        for i, draw in draws.items():
            term, points = losses[i]
            residuals, dim, n, name = (
                residuals_of(term),
                rows(points),
                point_count(points),
                term_label(term, i),
            )
            if residuals is not None and dim is not None and n:
                fresh = drawn(draw, min(n, GAP_POINTS), rng, dim, f"solve: losses[{i}] ({name}): its domain")
                at = as_rows(points)
                if n > GAP_POINTS:
                    at = at[:, np.sort(rng.choice(n, GAP_POINTS, replace=False))]
                self.checks.append((name, residuals, at, fresh))

    def __call__(self, iteration: int, loss: float) -> bool:
        if self.fired or time.perf_counter() - self.last < CHECK_SECONDS:
            return bool(self.fired)
        for name, residuals, points, fresh in self.checks:
            try:
                at = float(np.mean(residual_sizes(points, residuals, "gap") ** 2))
                between = float(np.mean(residual_sizes(fresh, residuals, "gap") ** 2))
            except ValueError:  # a non-finite residual: the optimizer says so itself
                continue
            if between > GAP * at:
                self.fired = (
                    f"{name}'s mean squared residual at fresh points of its domain, {between:.1e}, was "
                    f"{between / max(at, 1e-300):.0f}x that at its points"
                )
                break
        self.last = time.perf_counter()
        return bool(self.fired)


def said(each: Sequence[Drawn], kind: str, added: bool = True) -> str:
    """How one term's new points were drawn from its domain (``kind``), for ``solve``'s choices."""
    count, candidates = each[0].added, each[0].candidates
    verb = "adding" if added else "redrawing"
    gains = [d.gain for d in each if d.gain is not None]
    if len(gains) < len(each):
        why = next(d.why for d in each if d.gain is None)
        return f"each {verb} {count} of {candidates} points drawn uniformly in its domain ({kind}): {why}"
    return (
        f"each {verb} {count} points chosen by residual (RAD, k = {RAD_K:g}, c = {RAD_C:g}) among {candidates} "
        f"drawn uniformly in its domain ({kind}); their mean |r| was {_range(gains)}x the candidates'"
    )


__all__ = [
    "CANDIDATES",
    "RAD_C",
    "RAD_K",
    "Drawn",
    "GAP",
    "Gap",
    "drawer",
    "in_form",
    "residuals_of",
    "said",
    "split_domains",
    "with_domain_points",
]
