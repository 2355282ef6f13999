"""Learning rates as lists, one value per step (MindSpore's ``nn.dynamic_lr``).

Pass a list to an optimizer's ``learning_rate``: step ``i`` uses element ``i``. The values are
Python floats computed exactly as MindSpore's functions compute them; ``epoch = floor(i /
step_per_epoch)``.
"""

from __future__ import annotations

import math

from symgrad.nn.learning_rate import check_bool, check_float, check_int


def piecewise_constant_lr(milestone, learning_rates) -> list[float]:
    """``learning_rates[k]`` for the steps from ``milestone[k-1]`` up to ``milestone[k]``."""
    for name, value in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(value, tuple | list):
            raise TypeError(
                f"piecewise_constant_lr: {name} must be a tuple or list, got {type(value).__name__}"
            )
    if len(milestone) != len(learning_rates):
        raise ValueError(
            f"piecewise_constant_lr: milestone has {len(milestone)} values, learning_rates {len(learning_rates)}"
        )
    lr: list[float] = []
    last = 0
    for i, item in enumerate(milestone):
        check_int(item, "piecewise_constant_lr", f"milestone[{i}]")
        if not isinstance(learning_rates[i], float):
            raise TypeError(
                f"piecewise_constant_lr: learning_rates[{i}] must be a float, got {type(learning_rates[i]).__name__}"
            )
        if not math.isfinite(learning_rates[i]):
            raise ValueError(
                f"piecewise_constant_lr: learning_rates[{i}] must be finite, got {learning_rates[i]}"
            )
        if item < last:
            raise ValueError(
                f"piecewise_constant_lr: milestone[{i}] = {item} is smaller than milestone[{i - 1}] = {last}"
            )
        lr += [learning_rates[i]] * (item - last)
        last = item
    return lr


def _check(who: str, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair) -> None:
    check_int(total_step, who, "total_step")
    check_int(step_per_epoch, who, "step_per_epoch")
    check_int(decay_epoch, who, "decay_epoch")
    check_float(learning_rate, who, "learning_rate")
    check_float(decay_rate, who, "decay_rate")
    check_bool(is_stair, who, "is_stair")


def exponential_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """``learning_rate * decay_rate ** (epoch / decay_epoch)`` (the exponent floored if ``is_stair``)."""
    _check(
        "exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair
    )
    lr = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        lr.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return lr


def natural_exp_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """``learning_rate * e ** (-decay_rate * epoch)`` (epoch rounded down to a multiple of
    ``decay_epoch`` if ``is_stair``)."""
    _check(
        "natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair
    )
    lr = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        lr.append(learning_rate * math.e ** (-decay_rate * epoch))
    return lr


def inverse_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` (the ratio floored if ``is_stair``)."""
    _check("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    lr = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            lr.append(learning_rate / (1 + decay_rate * math.floor(epoch / decay_epoch)))
        else:
            lr.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return lr


def cosine_decay_lr(
    min_lr: float, max_lr: float, total_step: int, step_per_epoch: int, decay_epoch: int
) -> list[float]:
    """``min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch))``."""
    who = "cosine_decay_lr"
    check_float(min_lr, who, "min_lr", positive=False)
    check_float(max_lr, who, "max_lr")
    check_int(total_step, who, "total_step")
    check_int(step_per_epoch, who, "step_per_epoch")
    check_int(decay_epoch, who, "decay_epoch")
    if min_lr >= max_lr:
        raise ValueError(f"{who}: max_lr must be greater than min_lr, got {max_lr} and {min_lr}")
    delta = 0.5 * (max_lr - min_lr)
    lr = []
    for i in range(total_step):
        epoch = min(math.floor(i / step_per_epoch), decay_epoch)
        lr.append(min_lr + delta * (1 + math.cos(math.pi * epoch / decay_epoch)))
    return lr


def polynomial_decay_lr(
    learning_rate: float,
    end_learning_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    power: float,
    update_decay_epoch: bool = False,
) -> list[float]:
    """``(learning_rate - end_learning_rate) * (1 - epoch / decay_epoch) ** power + end_learning_rate``,
    the epoch capped at ``decay_epoch``; with ``update_decay_epoch`` the horizon grows to the next
    multiple of ``decay_epoch`` instead."""
    who = "polynomial_decay_lr"
    check_float(learning_rate, who, "learning_rate")
    check_float(end_learning_rate, who, "end_learning_rate", positive=False)
    check_float(power, who, "power")
    check_int(total_step, who, "total_step")
    check_int(step_per_epoch, who, "step_per_epoch")
    check_int(decay_epoch, who, "decay_epoch")
    check_bool(update_decay_epoch, who, "update_decay_epoch")
    delta = learning_rate - end_learning_rate
    lr = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if update_decay_epoch:
            horizon = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            horizon, epoch = decay_epoch, min(epoch, decay_epoch)
        lr.append(delta * (1 - epoch / horizon) ** power + end_learning_rate)
    return lr


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int) -> list[float]:
    """``learning_rate * min(epoch, warmup_epoch) / warmup_epoch``."""
    who = "warmup_lr"
    check_float(learning_rate, who, "learning_rate", positive=False)
    check_int(warmup_epoch, who, "warmup_epoch")
    check_int(total_step, who, "total_step")
    check_int(step_per_epoch, who, "step_per_epoch")
    return [
        learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
        for i in range(total_step)
    ]


__all__ = [
    "cosine_decay_lr",
    "exponential_decay_lr",
    "inverse_decay_lr",
    "natural_exp_decay_lr",
    "piecewise_constant_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]
