"""MindSpore's ``nn.RMSProp`` as an update rule on ``Optimizer`` (``optimizer_base.py``), written like
the rules of ``optim.py`` so it runs eagerly and inside a jitted step.

MindSpore's kernels (``ApplyRMSProp``, ``ApplyCenteredRMSProp``), with ``g = (grad + weight_decay * p) /
loss_scale`` and ``mean_square`` starting at ones::

    ms = decay * ms + (1 - decay) * g^2
    mg = decay * mg + (1 - decay) * g                       (centered only)
    moment = momentum * moment + lr * g / sqrt(ms + eps)    (centered: sqrt(ms - mg^2 + eps))
    p -= moment
"""

from __future__ import annotations

from symgrad.nn.learning_rate import check_bool
from symgrad.nn.optimizer_base import _F32, Optimizer, astype, dtype_of, sqrt


def _float(value, name: str, positive: bool) -> float:
    if not isinstance(value, float):
        raise TypeError(f"RMSProp: {name} must be a float, got {type(value).__name__}")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"RMSProp: {name} must be {'> 0' if positive else '>= 0'}, got {value}")
    return value


class RMSProp(Optimizer):
    """``RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
    centered=False, loss_scale=1.0, weight_decay=0.0)``."""

    def __init__(self, params, learning_rate=0.1, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 loss_scale: float = 1.0, weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = _float(decay, "decay", False)
        self.momentum = _float(momentum, "momentum", False)
        self.epsilon = _float(epsilon, "epsilon", True)
        self.use_locking = check_bool(use_locking, "RMSProp", "use_locking")
        self.centered = check_bool(centered, "RMSProp", "centered")
        if centered:
            self.mg = self._clone("mean_grad")
        self.ms = self._clone("mean_square", fill=1.0)
        self.moment = self._clone("moment")

    def _apply(self, grads, rates, decays):
        mgs = self.mg if self.centered else [None] * len(grads)
        for p, mg, ms, mom, g, lr, wd in zip(
            self.parameters, mgs, self.ms, self.moment, grads, rates, decays
        ):
            w = self._read(p)
            g = self._prepared(w, g, wd)
            dt = dtype_of(w)
            rho, mu, eps = (
                _F32(self.decay).astype(dt),
                _F32(self.momentum).astype(dt),
                _F32(self.epsilon).astype(dt),
            )
            square = self._read(ms) * rho + g * g * (1 - rho)
            self._set(ms, square)
            if mg is not None:
                mean = self._read(mg) * rho + g * (1 - rho)
                self._set(mg, mean)
                square = square - mean * mean
            step = self._read(mom) * mu + astype(lr, dt) * g / sqrt(square + eps)
            self._set(mom, step)
            self._set(p, w - step)


__all__ = ["RMSProp"]
