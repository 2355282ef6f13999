"""``fit``: one entry point for the three training methods, with one stop rule and one kind of callback.

``fit(terms, AdamMethod(lr=1e-3), params, stop=Stop(max_steps=5000, max_seconds=60))`` trains with
Adam; ``LBFGS()`` and ``LevenbergMarquardt()`` are the second-order methods. Every method takes
the same :class:`Stop` (``max_seconds`` is honoured inside an iteration too), calls the same
callbacks with a :class:`TrainState` after each step (a callback returning True stops training), and
returns the same :class:`History`. ``train``, ``lbfgs`` and ``levenberg_marquardt`` remain, with
their own arguments.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.parameter import parameters_of
from symgrad.pinn.adam import Adam
from symgrad.pinn.lbfgs import lbfgs
from symgrad.pinn.levenberg_marquardt import levenberg_marquardt
from symgrad.pinn.training import History, Stop, TrainState, term_names, term_values, train, union_parameters

Callback = Callable[[TrainState], bool | None]


@dataclass(frozen=True)
class AdamMethod:
    """Adam steps (:class:`Adam` with ``lr`` and ``betas``); with ``balance_every`` the terms are
    balanced by gradient norms as in :func:`train`."""

    lr: float | Callable[[int], float] = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    balance_every: int | None = None
    balance_alpha: float = 0.9
    name = "Adam"

    def run(self, losses, params, stop: Stop, callbacks: Sequence[Callback], progress: bool) -> History:
        if stop.max_steps is None:
            raise ValueError("fit: Adam needs stop.max_steps (a whole number >= 0)")
        return train(
            losses,
            Adam(params, lr=self.lr, betas=self.betas, eps=self.eps),
            stop.max_steps,
            progress,
            callbacks=callbacks,
            max_seconds=stop.max_seconds,
            loss_tol=stop.loss_tol,
            grad_tol=stop.grad_tol,
            balance_every=self.balance_every,
            balance_alpha=self.balance_alpha,
        )


@dataclass(frozen=True)
class LBFGS:
    """SciPy's L-BFGS-B (``ftol``, ``gtol`` and ``history_size`` as in :func:`lbfgs`)."""

    ftol: float = 1e-14
    gtol: float = 1e-9
    history_size: int = 50
    name = "L-BFGS"

    def run(self, losses, params, stop: Stop, callbacks: Sequence[Callback], progress: bool) -> History:
        return lbfgs(
            losses,
            params,
            max_iterations=5000 if stop.max_steps is None else stop.max_steps,
            ftol=self.ftol,
            gtol=self.gtol,
            history_size=self.history_size,
            max_seconds=stop.max_seconds,
            progress=progress,
            callback=_per_iteration(losses, callbacks),
            loss_tol=stop.loss_tol,
        )


@dataclass(frozen=True)
class LevenbergMarquardt:
    """Damped Gauss-Newton steps from the residuals' Jacobians (``damping`` to start with)."""

    damping: float = 1e-3
    name = "Levenberg-Marquardt"

    def run(self, losses, params, stop: Stop, callbacks: Sequence[Callback], progress: bool) -> History:
        return levenberg_marquardt(
            losses,
            params,
            max_iterations=1000 if stop.max_steps is None else stop.max_steps,
            damping=self.damping,
            max_seconds=stop.max_seconds,
            loss_tol=stop.loss_tol,
            progress=progress,
            callback=_per_iteration(losses, callbacks),
        )


Method = AdamMethod | LBFGS | LevenbergMarquardt


def _per_iteration(losses, callbacks: Sequence[Callback]) -> Callable[[int, float], bool] | None:
    """``callbacks`` as one ``callback(iteration, loss)`` of a second-order loop, each called with a
    :class:`TrainState` (its step from 0; each term's loss from the terms' last evaluation)."""
    if not callbacks:
        return None
    names, started = term_names(losses), time.perf_counter()

    def callback(iteration: int, loss: float) -> bool:
        seconds = time.perf_counter() - started
        state = TrainState(iteration - 1, loss, dict(zip(names, term_values(losses))), [], seconds, losses)
        return any([fn(state) is True for fn in callbacks])  # every callback is called

    return callback


def fit(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]],
    method: Method,
    params=None,
    *,
    stop: Stop | None = None,
    callbacks: Sequence[Callback] = (),
    progress: bool = False,
) -> History:
    """Minimise the sum of ``losses`` over ``params`` (Parameters or a network; default every
    term's) by ``method`` (:class:`AdamMethod`, :class:`LBFGS` or :class:`LevenbergMarquardt`)
    until ``stop`` (default: each method's step count). Each of ``callbacks`` gets a
    :class:`TrainState` after every step; one returning True stops training. Returns the :class:`History`."""
    if not isinstance(method, AdamMethod | LBFGS | LevenbergMarquardt):
        raise TypeError(
            f"fit: method must be AdamMethod(...), LBFGS(...) or LevenbergMarquardt(...), got {type(method).__name__}"
        )
    stop = Stop() if stop is None else stop
    if not isinstance(stop, Stop):
        raise TypeError(f"fit: stop must be a Stop(...), got {type(stop).__name__}")
    least = 0 if isinstance(method, AdamMethod) else 1
    stop.checked("fit", "stop.max_steps", least)
    if isinstance(callbacks, str | bytes) or not all(callable(fn) for fn in callbacks):
        raise TypeError(f"fit: callbacks must be a list of callables, got {callbacks!r}")
    if not isinstance(progress, bool):
        raise TypeError(f"fit: progress must be True or False, got {progress!r}")
    losses = list(losses)
    params = union_parameters(losses) if params is None else parameters_of(params)
    return method.run(losses, params, stop, list(callbacks), progress)


__all__ = ["LBFGS", "AdamMethod", "LevenbergMarquardt", "Method", "fit"]
