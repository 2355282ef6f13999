"""Learning-rate schedules: Cells called with the global step (MindSpore's ``nn.learning_rate_schedule``).

Each schedule computes in float32 with symgrad ops, as MindSpore's do, and returns a Tensor of the
step's shape. The argument checks follow MindSpore's validator: a wrong type is a TypeError
(``bool`` is not an int here), a value out of range, NaN or infinite a ValueError.
"""

from __future__ import annotations

import math

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


def check_int(value, who: str, name: str, minimum: int = 1) -> int:
    """``value`` if it is an int >= ``minimum`` (not a bool)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{who}: {name} must be an int >= {minimum}, got {value}")
    return value


def check_float(value, who: str, name: str, positive: bool = True) -> float:
    """``value`` if it is a finite float > 0 (``positive``) or >= 0; ints are refused, as MindSpore does."""
    if not isinstance(value, float):
        raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__} {value!r}")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{who}: {name} must be a finite float {'> 0' if positive else '>= 0'}, got {value}")
    return value


def check_bool(value, who: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be a bool, got {type(value).__name__} {value!r}")
    return value


class LearningRateSchedule(Cell):
    """Base class: ``construct(global_step)`` returns the learning rate of that step."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


def _steps(global_step) -> Tensor:
    return ops.cast(global_step, mstype.float32)


class _Decay(LearningRateSchedule):
    """The arguments shared by the exponential, natural-exponential and inverse decays."""

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False):
        super().__init__()
        who = type(self).__name__
        self.decay_steps = check_int(decay_steps, who, "decay_steps")
        self.learning_rate = check_float(learning_rate, who, "learning_rate")
        self.decay_rate = check_float(decay_rate, who, "decay_rate")
        self.is_stair = check_bool(is_stair, who, "is_stair")


class ExponentialDecayLR(_Decay):
    """``learning_rate * decay_rate ** p`` with ``p = step / decay_steps`` (floored if ``is_stair``)."""

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(self.decay_rate, p)


class NaturalExpDecayLR(_Decay):
    """``learning_rate * e ** (-decay_rate * p)`` with ``p = step`` (rounded down to a multiple of
    ``decay_steps`` if ``is_stair``)."""

    def construct(self, global_step):
        p = _steps(global_step)
        if self.is_stair:
            p = ops.floor_div(p, self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.pow(math.e, -self.decay_rate * p)


class InverseDecayLR(_Decay):
    """``learning_rate / (1 + decay_rate * p)`` with ``p = step / decay_steps`` (floored if ``is_stair``)."""

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """``min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) / decay_steps))``."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int):
        super().__init__()
        self.min_lr = check_float(min_lr, "CosineDecayLR", "min_lr", positive=False)
        self.max_lr = check_float(max_lr, "CosineDecayLR", "max_lr")
        self.decay_steps = check_int(decay_steps, "CosineDecayLR", "decay_steps")
        if min_lr >= max_lr:
            raise ValueError(f"CosineDecayLR: max_lr must be greater than min_lr, got {max_lr} and {min_lr}")
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = ops.cast(ops.minimum(global_step, self.decay_steps), mstype.float32)
        # MindSpore's form: 1 + sin(pi (p / n + 1/2)) is 1 + cos(pi p / n)
        return self.min_lr + self.delta * (1.0 + ops.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    """``(learning_rate - end_learning_rate) * (1 - p) ** power + end_learning_rate`` with
    ``p = min(step, decay_steps) / decay_steps``; with ``update_decay_steps`` the horizon grows to the
    next multiple of ``decay_steps`` instead of stopping there."""

    def __init__(
        self,
        learning_rate: float,
        end_learning_rate: float,
        decay_steps: int,
        power: float,
        update_decay_steps: bool = False,
    ):
        super().__init__()
        who = "PolynomialDecayLR"
        self.start_learning_rate = check_float(learning_rate, who, "learning_rate")
        self.end_learning_rate = check_float(end_learning_rate, who, "end_learning_rate", positive=False)
        self.decay_steps = check_int(decay_steps, who, "decay_steps")
        self.update_decay_steps = check_bool(update_decay_steps, who, "update_decay_steps")
        self.power = check_float(power, who, "power")
        self.diff_learning_rate = learning_rate - end_learning_rate

    def construct(self, global_step):
        step = _steps(global_step)
        horizon: Tensor | int = self.decay_steps
        if self.update_decay_steps:
            horizon = horizon * ops.maximum(ops.ceil(step / horizon), 1)
        else:
            step = ops.minimum(step, horizon)
        p = step / horizon
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``."""

    def __init__(self, learning_rate: float, warmup_steps: int):
        super().__init__()
        self.learning_rate = check_float(learning_rate, "WarmUpLR", "learning_rate", positive=False)
        self.warmup_steps = check_int(warmup_steps, "WarmUpLR", "warmup_steps")

    def construct(self, global_step):
        fraction = ops.cast(ops.minimum(global_step, self.warmup_steps), mstype.float32) / self.warmup_steps
        return self.learning_rate * fraction


__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
]
