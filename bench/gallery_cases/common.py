"""The gallery's records (DeepXDE, Symgrad, Problem) and the helpers its symgrad builders share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from symgrad import Parameter, Tensor


@dataclass
class DeepXDE:
    """A DeepXDE model and its example's training recipe: Adam (``lr``, ``decay``) for ``iterations``
    steps, then L-BFGS where ``lbfgs``; ``variables`` are an inverse problem's unknowns
    (``dde.Variable``), ``unknowns()`` their current values by name."""

    model: object
    iterations: int
    lbfgs: bool = False
    lr: float = 1e-3
    decay: tuple | None = None
    loss_weights: list | None = None
    variables: list = field(default_factory=list)
    callbacks: list = field(default_factory=list)
    unknowns: Callable[[], dict[str, float]] | None = None


@dataclass
class Symgrad:
    """The loss terms ((ResidualLoss, points) pairs) and the weights to train (a network, or a
    list of Parameters with an inverse problem's unknowns); ``u`` computes the solution's outputs
    from the coordinates (the network, or the network inside a transform), ``unknowns()`` the
    unknowns' current values by name."""

    terms: list
    params: object
    u: Callable
    unknowns: Callable[[], dict[str, float]] | None = None


@dataclass
class Problem:
    """One gallery problem: its two builders, the test points ((n, dim), as DeepXDE takes them), the
    exact solution there ((n, outputs)), the true values of unknowns, and departures from DeepXDE's
    example."""

    deepxde: Callable[..., DeepXDE]
    symgrad: Callable[[int], Symgrad]
    test_points: Callable[[], np.ndarray]
    exact: Callable[[np.ndarray], np.ndarray]
    truth: dict[str, float] = field(default_factory=dict)
    note: str = ""


# ----- helpers shared by the symgrad builders -----
def halton(geometry, n: int, seed: int, where: str = "interior") -> np.ndarray:
    """``n`` scrambled Halton points of the geometry's interior, boundary or initial slice, (dim, n)."""
    return getattr(geometry, where)(n, "halton", seed)


def at(value: float) -> np.ndarray:
    """One point of a 1-D domain, (1, 1)."""
    return np.array([[float(value)]])


def unknown(value: float, name: str) -> Parameter:
    """A scalar unknown of an inverse problem, learnt with the weights."""
    return Parameter(Tensor(np.array(float(value))), name=name)


def value_of(p: Parameter) -> float:
    return float(np.asarray(p.asnumpy()))


def grid(*axes: np.ndarray) -> np.ndarray:
    """The tensor grid of ``axes`` as (n, dim) points."""
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def _space_time_points(domain, seed, n_domain, n_boundary, n_initial):
    """DeepXDE's TimePDE points: (interior, boundary, initial), and all of them (where it puts the equation)."""
    inside = halton(domain, n_domain, seed)
    walls = halton(domain, n_boundary, seed, "boundary") if n_boundary else np.empty((2, 0))
    start = halton(domain, n_initial, seed, "initial") if n_initial else np.empty((2, 0))
    return walls, start, np.hstack([inside, walls, start])
