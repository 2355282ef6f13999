"""The records (Built, Case) and the pieces every PINNacle case uses: the network, terms, a ball, holes."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symgrad.pinn import (
    MLP,
    Difference,
    Disk,
    ResidualLoss,
)
from symgrad.pinn.geometry import unit_cube

HIDDEN = (32, 32, 32)
PI = math.pi


@dataclass
class Built:
    """A case made ready to solve: (loss, points) terms (the equations' with their domain), the
    weights to train, and ``u``."""

    terms: list
    params: object
    u: Callable


@dataclass
class Case:
    """One PINNacle problem: its name in the paper, its builder, its reference (points (n, dim) and
    values (n, outputs), from the PINNacle checkout's ``ref/`` folder or exact), the files read."""

    title: str
    build: Callable[[int, Sequence[int], Path | None], Built]
    reference: Callable[[Path | None], tuple[np.ndarray, np.ndarray]]
    files: tuple[str, ...] = ()
    note: str = ""
    exact: Callable[[np.ndarray], np.ndarray] | None = (
        None  # an exact solution where the reference is numerical
    )


# ----- pieces every case uses -----
def network(inputs: int, outputs: int, hidden: Sequence[int], lows, highs, seed: int):
    """An MLP and ``u``: the MLP after the affine map of the box [lows, highs] onto [-1, 1]."""
    net = MLP([inputs, *hidden, outputs], "tanh", "glorot_normal", seed=seed)
    centre = [(lo + hi) / 2 for lo, hi in zip(lows, highs)]
    half = [(hi - lo) / 2 for lo, hi in zip(lows, highs)]

    def u(*xs):
        return net(*((x - c) / h for x, c, h in zip(xs, centre, half)))

    return net, u


def field(u: Callable, k: int) -> Callable:
    return lambda *xs: u(*xs)[k]


def term(condition, params, n: int, seed: int):
    return condition.loss(params), condition.sample(n, "halton", seed)


def pde_term(residual: Callable, names, params, domain, seed: int, n: int = 4096, name: str = "pde"):
    """The equation on ``n`` Halton points of ``domain``, with the domain (``solve`` draws new
    points there by residual)."""
    return ResidualLoss(residual, names, params, name=name), domain.interior(n, "halton", seed), domain


def near(a, b) -> np.ndarray:
    return np.isclose(a, b, atol=1e-9)


class Ball:
    """The ball |x - centre| <= radius in any dimension, with the geometry protocol of
    symgrad/pinn/geometry.py (symgrad has disks only; HeatND needs a 5-D ball)."""

    def __init__(self, centre: Sequence[float], radius: float):
        self.centre, self.radius, self.dim = np.asarray(centre, float), float(radius), len(centre)

    def _directions(self, cube: np.ndarray) -> np.ndarray:
        from scipy.stats import norm

        g = norm.ppf(np.clip(cube, 1e-12, 1 - 1e-12))
        return g / np.linalg.norm(g, axis=1, keepdims=True)

    def interior(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        cube = unit_cube(n, self.dim + 1, method, seed)
        r = self.radius * cube[:, -1] ** (1 / self.dim)
        return (self.centre + r[:, None] * self._directions(cube[:, :-1])).T

    def boundary(self, n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        return (self.centre + self.radius * self._directions(unit_cube(n, self.dim, method, seed))).T

    def contains(self, points: np.ndarray) -> np.ndarray:
        return np.linalg.norm(points.T - self.centre, axis=1) <= self.radius * (1 + 1e-12)

    def normals(self, points: np.ndarray) -> np.ndarray:
        offset = points.T - self.centre
        return (offset / np.linalg.norm(offset, axis=1, keepdims=True)).T

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.centre - self.radius, self.centre + self.radius

    def boundary_measure(self) -> float:
        d = self.dim
        return 2 * PI ** (d / 2) / math.gamma(d / 2) * self.radius ** (d - 1)

    def boundary_distance(self, points: np.ndarray) -> np.ndarray:
        return np.abs(np.linalg.norm(points.T - self.centre, axis=1) - self.radius)


def with_holes(outer, disks) -> Difference:
    shape = outer
    for cx, cy, r in disks:
        shape = Difference(shape, Disk((cx, cy), r))
    return shape


def on_box_edge(lows, highs) -> Callable:
    return lambda x, y: near(x, lows[0]) | near(x, highs[0]) | near(y, lows[1]) | near(y, highs[1])
