"""Causal training for time-dependent problems (Wang, Sankaran & Perdikaris 2022).

A plain PINN can fit late times before early ones, so the solution it learns need not follow
from the initial condition. :class:`CausalLoss` sorts a residual's points by time into slabs and
weights slab ``i``'s loss by ``exp(-tol * (L_0 + ... + L_{i-1}))``: a slab counts only once the
slabs before it are small. The weights are numbers, not part of the derivative.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.pinn.residual_loss import ResidualLoss, point_arrays


class CausalLoss:
    """``loss`` (a :class:`ResidualLoss`) with causal weights over ``slabs`` time slabs.

    ``weights_move``: its weights change from call to call, so ``solve`` trains it with Adam only.

    A loss term like ``loss`` itself (``train``'s ``(term, points)`` pairs): called on the points,
    it gives the weighted mean of the slab losses and its gradient. ``time_input`` says which input
    is time (default: the last). ``weights`` holds the last weights; once their smallest passes
    about 0.99, every time is learned and ``tol`` may be raised (as Wang et al. do).
    For Adam's steps (``train``): the weights change from step to step.
    """

    weights_move = True

    def __init__(self, loss: ResidualLoss, slabs: int = 16, tol: float = 1.0, time_input: int = -1):
        if not isinstance(slabs, int) or isinstance(slabs, bool) or slabs < 1:
            raise ValueError(f"CausalLoss: slabs must be a whole number >= 1, got {slabs!r}")
        if isinstance(tol, bool) or not (isinstance(tol, int | float) and math.isfinite(tol) and tol >= 0):
            raise ValueError(f"CausalLoss: tol must be a finite number >= 0, got {tol!r}")
        if not isinstance(loss, ResidualLoss):
            raise TypeError(f"CausalLoss: loss must be a ResidualLoss, got {type(loss).__name__}")
        if (
            not isinstance(time_input, int)
            or isinstance(time_input, bool)
            or not -len(loss.inputs) <= time_input < len(loss.inputs)
        ):
            raise ValueError(
                f"CausalLoss: time_input {time_input!r} is not the number of one of the {len(loss.inputs)} inputs"
            )
        self.loss, self.slabs, self.tol, self.time_input = loss, slabs, float(tol), time_input
        self.name = f"{loss.name} (causal)"
        self.term_names = [self.name]
        self.last_terms: list[float] = []
        self.weights = np.ones(slabs)
        self._split: tuple[tuple, tuple] | None = None  # (the arrays given, (point arrays, slab indices))

    @property
    def backend(self) -> str:
        return self.loss.backend

    @property
    def params(self) -> list:
        """The wrapped loss's Parameters (what the gradients are for)."""
        return self.loss.params

    @property
    def compiling(self) -> bool:
        return self.loss.compiling

    def wait_until_compiled(self, timeout: float | None = None) -> str:
        return self.loss.wait_until_compiled(timeout)

    def _slabs(self, given: tuple) -> tuple[tuple, list[np.ndarray]]:
        """The point arrays and their indices in each slab, earliest first, equal counts (cached for
        the arrays given, by identity)."""
        if self._split is not None and len(given) == len(self._split[0]):
            if all(a is b for a, b in zip(self._split[0], given)):
                return self._split[1]
        points = point_arrays(given, len(self.loss.inputs), f"CausalLoss {self.name!r}", self.loss.names)
        times = np.ravel(points[self.time_input])
        if times.size < self.slabs:
            raise ValueError(f"CausalLoss {self.name!r}: {times.size} points for {self.slabs} slabs")
        slabs = np.array_split(np.argsort(times, kind="stable"), self.slabs)
        self._split = (given, (points, slabs))
        return points, slabs

    def __call__(self, *given) -> tuple[float, list[np.ndarray]]:
        points, slabs = self._slabs(given)
        values, gradients = [], []
        for index in slabs:
            value, grads = self.loss(*(np.ravel(p)[index] for p in points))
            values.append(value)
            gradients.append(grads)
        slab_losses = np.array(values)
        self.weights = np.exp(-self.tol * np.concatenate([[0.0], np.cumsum(slab_losses)[:-1]]))
        total = float(np.mean(self.weights * slab_losses))
        grads = [
            np.sum([w * g[k] for w, g in zip(self.weights, gradients)], axis=0) / self.slabs
            for k in range(len(gradients[0]))
        ]
        self.last_terms = [total]
        return total, grads


__all__ = ["CausalLoss"]
