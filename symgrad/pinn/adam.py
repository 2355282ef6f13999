"""Optimizers over Parameters, driven by the gradient arrays a kernel returns."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from symgrad.parameter import Parameter, parameters_of
from symgrad.pinn.alignment import optimized_parameters


def _finite_number(value) -> bool:
    return isinstance(value, int | float | np.floating | np.integer) and math.isfinite(value)


class Adam:
    """Adam (Kingma & Ba), the PyTorch/MindSpore formulation with bias correction.

    ``lr`` is a number or a schedule, a function of the step count (from 0) giving the rate, e.g.
    ``lambda step: 1e-3 * 0.9 ** (step / 1000)``. The moments are kept in each weight's dtype
    (float32 weights train in float32). A gradient with a NaN or infinite entry is refused before
    any weight changes.
    """

    def __init__(
        self,
        params: Sequence[Parameter],
        lr: float | Callable[[int], float] = 1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
    ):
        self.params = optimized_parameters(parameters_of(params), "Adam")
        if not callable(lr) and not (_finite_number(lr) and lr > 0):
            raise ValueError(f"Adam: lr must be a finite number > 0 or a schedule step -> lr, got {lr!r}")
        betas = tuple(betas)
        if len(betas) != 2 or not all(_finite_number(b) and 0 <= b < 1 for b in betas):
            raise ValueError(f"Adam: betas must be two numbers in [0, 1), got {betas!r}")
        if not (_finite_number(eps) and eps > 0):
            raise ValueError(f"Adam: eps must be a finite number > 0, got {eps!r}")
        self.lr, self.betas, self.eps = lr, betas, eps
        self.step_count = 0
        # the moments of all weights as two flat vectors (one NumPy operation a step for all of them),
        # in the weights' common dtype: float32 weights train in float32
        self.sizes = [int(np.prod(p.shape)) for p in self.params]
        self.dtype = np.result_type(*(p._value().dtype for p in self.params)) if self.params else np.float64
        self.m = np.zeros(sum(self.sizes), self.dtype)
        self.v = np.zeros(sum(self.sizes), self.dtype)

    def rate(self) -> float:
        """The learning rate of the next step (the schedule's value at this step count)."""
        if not callable(self.lr):
            return self.lr
        lr = self.lr(self.step_count)
        if not (_finite_number(lr) and lr > 0):
            raise ValueError(
                f"Adam: the schedule gave lr={lr!r} at step {self.step_count}; need a finite number > 0"
            )
        return float(lr)

    def step(self, grads: Sequence[np.ndarray]) -> None:
        """Update every parameter from its gradient (same order as ``params``)."""
        if len(grads) != len(self.params):
            raise ValueError(f"Adam.step: {len(grads)} gradients for {len(self.params)} parameters")
        for p, g in zip(self.params, grads):
            if np.shape(g) != p.shape:
                raise ValueError(
                    f"Adam.step: gradient of {p.name!r} has shape {np.shape(g)}, expected {p.shape}"
                )
        g = np.concatenate([np.ravel(g) for g in grads]).astype(self.dtype, copy=False) if grads else self.m
        if not np.isfinite(g).all():
            p, bad = next((p, b) for p, b in zip(self.params, grads) if not np.isfinite(b).all())
            raise FloatingPointError(
                f"Adam.step: the gradient of {p.name!r} holds {int(np.size(bad) - np.isfinite(bad).sum())} "
                "NaN or infinite value(s); no weight was changed"
            )
        lr = self.rate()
        b1, b2 = self.betas
        self.step_count += 1
        c1, c2 = 1 - b1**self.step_count, 1 - b2**self.step_count
        self.m = b1 * self.m + (1 - b1) * g  # new arrays, never written in place: a state() stays valid
        self.v = b2 * self.v + (1 - b2) * g * g
        theta = np.concatenate([p._value().ravel() for p in self.params]) if self.params else g
        theta = theta - lr * (self.m / c1) / (np.sqrt(self.v / c2) + self.eps)  # as PyTorch orders it
        start = 0
        for p, size in zip(self.params, self.sizes):
            p.assign(theta[start : start + size].reshape(p.shape).astype(p._value().dtype, copy=False))
            start += size

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume exactly (for checkpoints). A schedule's rate is not stored:
        it is a function of the step count, which is."""
        state = {
            "adam_step": np.array(self.step_count),
            "adam_m": self.m,
            "adam_v": self.v,
            "adam_names": np.array([p.name for p in self.params], dtype=str),
        }
        if not callable(self.lr):
            state["adam_lr"] = np.array(self.lr)
        return state

    def load_state(self, state) -> None:
        """Take back what :meth:`state` gave (or a checkpoint's per-weight moments ``adam_m0``, ...),
        after checking every size."""
        if "adam_step" not in state:
            raise KeyError("Adam.load_state: no Adam state (adam_step) in what was given")
        total = sum(self.sizes)
        if "adam_m" in state:
            m, v = np.asarray(state["adam_m"]), np.asarray(state["adam_v"])
        else:  # one pair of moments per weight, as checkpoints before flat moments held them
            for i, p in enumerate(self.params):
                for kind in "mv":
                    key = f"adam_{kind}{i}"
                    if key not in state or np.shape(state[key]) != p.shape:
                        got = np.shape(state[key]) if key in state else "nothing"
                        raise ValueError(
                            f"Adam.load_state: {key} for {p.name!r} should have shape {p.shape}, got {got}"
                        )
            m = np.concatenate(
                [np.ravel(state[f"adam_m{i}"]) for i in range(len(self.params))] or [np.zeros(0)]
            )
            v = np.concatenate(
                [np.ravel(state[f"adam_v{i}"]) for i in range(len(self.params))] or [np.zeros(0)]
            )
        if m.shape != (total,) or v.shape != (total,):
            raise ValueError(
                f"Adam.load_state: moments of {m.shape[0] if m.ndim else 0} values, the weights hold {total}"
            )
        if "adam_names" in state:  # moments saved in another order of the same Parameters: matched by name
            m, v = (self._by_name([str(n) for n in np.ravel(state["adam_names"])], a) for a in (m, v))
        self.step_count = int(state["adam_step"])
        if "adam_lr" in state and not callable(self.lr):
            self.lr = float(state["adam_lr"])
        self.m, self.v = m.astype(self.dtype), v.astype(self.dtype)

    def _by_name(self, names: list[str], flat: np.ndarray) -> np.ndarray:
        """``flat`` (moments laid out in the order of the Parameters named ``names``) in this
        optimizer's order."""
        mine = [p.name for p in self.params]
        if names == mine:
            return flat
        if sorted(names) != sorted(mine) or len(set(mine)) != len(mine):
            raise ValueError(
                f"Adam.load_state: the state is for Parameters {names}, this optimizer holds {mine}"
            )
        size = {p.name: int(np.prod(p.shape)) for p in self.params}
        pieces = dict(zip(names, np.split(flat, np.cumsum([size[n] for n in names])[:-1])))
        return np.concatenate([pieces[name] for name in mine])
