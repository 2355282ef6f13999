"""The gallery's records (DeepXDE, Symgrad, Problem) and ``scripts``, the problems' symgrad sides.

Each problem's symgrad side (geometry, network, loss terms), its exact solution or reference and
its test points live in tutorials/gallery/<name>.py, a script a user can copy and run;
``scripts.<name>`` imports it (its ``main`` is not run) for the bench and the DeepXDE builders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np
from tutorial_scripts import tutorial_script


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


# ----- the scripts -----
def script(name: str) -> ModuleType:
    """tutorials/gallery/<name>.py imported as a module (``build``, ``exact``, ``test_points``, ...)."""
    return tutorial_script("gallery", name)


class _Scripts:
    """``scripts.ode_system`` is tutorials/gallery/ode_system.py, imported once."""

    def __getattr__(self, name: str) -> ModuleType:
        if name.startswith("__"):
            raise AttributeError(name)
        return script(name)


scripts = _Scripts()


def component(exact: Callable[[np.ndarray], np.ndarray], k: int) -> Callable[[np.ndarray], np.ndarray]:
    """Output ``k`` of a reference ``exact(X)`` (n, outputs), as an (n, 1) function for one of
    DeepXDE's conditions on that component."""
    return lambda X: exact(X)[:, k : k + 1]


def symgrad_side(module: ModuleType) -> Callable[[int], Symgrad]:
    """The script's ``build(seed)`` as the bench's builder: its (terms, params, u, unknowns) as a Symgrad."""
    return lambda seed: Symgrad(*module.build(seed))
