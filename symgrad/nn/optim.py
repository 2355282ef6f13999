"""MindSpore's optimizer cells: ``Momentum``, ``SGD``, ``Adam`` and ``AdamWeightDecay``.

Each is an update rule on top of ``Optimizer`` (``optimizer_base.py``: parameters, learning rates,
weight decay, loss scale, groups). A rule reads its weights and state with ``self._read`` and
writes them with ``self._set``, so the same lines compute with NumPy arrays in an eager step and
build the graph of a jitted one.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad import train_step
from symgrad.nn.learning_rate import check_bool
from symgrad.nn.optimizer_base import (
    _F32,
    Optimizer,
    _number,
    astype,
    dtype_of,
    maximum,
    sqrt,
    where,
    zeros_like,
)
from symgrad.parameter import Parameter


def _check_float(value, who: str, name: str, ints: bool) -> float:
    """MindSpore's checks of ``momentum``/``dampening``: a float (ints converted where ``ints``), >= 0."""
    if isinstance(value, bool) or not isinstance(value, float | int) or (isinstance(value, int) and not ints):
        raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__}")
    return _number(value, who, name)


class Momentum(Optimizer):
    """``p -= lr * accum`` after ``accum = momentum * accum + g``, with ``g = (grad + weight_decay * p) /
    loss_scale``. Nesterov as MindSpore 2.10's kernel computes it: ``p -= lr * (g + momentum * accum)``
    with ``accum`` from before this step's update (its documentation shows the updated one)."""

    def __init__(
        self,
        params,
        learning_rate,
        momentum: float,
        weight_decay=0.0,
        loss_scale: float = 1.0,
        use_nesterov: bool = False,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = Parameter(
            np.array(_check_float(momentum, "Momentum", "momentum", False), _F32), "momentum"
        )
        self.use_nesterov = check_bool(use_nesterov, "Momentum", "use_nesterov")
        self.moments = self._clone("moments")

    def _apply(self, grads, rates, decays):
        for p, accum, g, lr, wd in zip(self.parameters, self.moments, grads, rates, decays):
            w = self._read(p)
            g = self._prepared(w, g, wd)
            lr, mu = astype(lr, dtype_of(w)), astype(self._read(self.momentum), dtype_of(w))
            before = self._read(accum)
            a = before * mu + g
            self._set(accum, a)
            self._set(p, w - (g * lr + before * mu * lr if self.use_nesterov else a * lr))


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening and Nesterov, as MindSpore's ``SGD`` kernel:
    the first step sets ``accum = g``, later ones ``accum = momentum * accum + (1 - dampening) * g``;
    ``p -= lr * accum`` (Nesterov: ``p -= lr * (g + momentum * accum)``)."""

    def __init__(
        self,
        params,
        learning_rate=0.1,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay=0.0,
        nesterov: bool = False,
        loss_scale: float = 1.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _check_float(momentum, "SGD", "momentum", True)
        self.dampening = _check_float(dampening, "SGD", "dampening", True)
        self.nesterov = check_bool(nesterov, "SGD", "nesterov")
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(
                f"SGD: nesterov needs momentum > 0 and dampening 0, got momentum {momentum}, dampening {dampening}"
            )
        if self.dynamic_weight_decay:
            raise TypeError(
                "SGD: weight_decay must be a float or an int (a Cell is not supported, as in MindSpore)"
            )
        self.momentum = Parameter(np.array(momentum, _F32), name="momentum")
        self.accum = self._clone("accum")
        self.stat = self._clone("stat", fill=1.0)

    def _apply(self, grads, rates, decays):
        mu32 = self._read(self.momentum)
        with_momentum = bool(train_step.data(self.momentum) > 0)  # the branch MindSpore's kernel takes
        train_step.assume(lambda: bool(train_step.data(self.momentum) > 0) == with_momentum)
        for p, accum, stat, g, lr, wd in zip(self.parameters, self.accum, self.stat, grads, rates, decays):
            w = self._read(p)
            g = self._prepared(w, g, wd)
            mu = astype(mu32, dtype_of(w))
            if with_momentum:
                keep = (_F32(1) - _F32(self.dampening)).astype(dtype_of(w))
                a = where(self._read(stat) > 0, g, self._read(accum) * mu + keep * g)
                self._set(accum, a)
                self._set(stat, zeros_like(w))
                g = g + a * mu if self.nesterov else a
            self._set(p, w - astype(lr, dtype_of(w)) * g)


def _betas(who: str, beta1, beta2, eps) -> None:
    for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if not isinstance(value, float):
            raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__}")
    for name, value in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{who}: {name} must be in (0.0, 1.0), got {value}")
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"{who}: eps must be a finite float > 0, got {eps}")


class Adam(Optimizer):
    """Adam as MindSpore's kernel computes it: ``m += (1 - beta1) (g - m)``, ``v += (1 - beta2) (g^2 - v)``,
    ``p -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)``, with
    ``g = (grad + weight_decay * p) / loss_scale``; ``use_nesterov`` uses ``beta1 m + (1 - beta1) g``
    for ``m``, ``use_amsgrad`` the running maximum of ``v`` (and then no Nesterov step, as MindSpore's
    kernel). ``use_lazy`` and ``use_offload`` (keyword arguments) differ from plain Adam only for sparse
    gradients, which symgrad does not make."""

    def __init__(
        self,
        params,
        learning_rate=1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        use_locking: bool = False,
        use_nesterov: bool = False,
        weight_decay=0.0,
        loss_scale: float = 1.0,
        use_amsgrad: bool = False,
        **kwargs,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if set(kwargs) - {"use_lazy", "use_offload"}:
            raise KeyError(f"Adam: the keyword arguments are use_lazy and use_offload, got {sorted(kwargs)}")
        _betas("Adam", beta1, beta2, eps)
        flags = {"use_locking": use_locking, "use_nesterov": use_nesterov, "use_amsgrad": use_amsgrad}
        flags.update({k: kwargs.get(k, False) for k in ("use_lazy", "use_offload")})
        for name, value in flags.items():
            check_bool(value, "Adam", name)
        if flags["use_lazy"] and flags["use_offload"]:
            raise ValueError("Adam: use_lazy and use_offload cannot both be True")
        if use_amsgrad and (flags["use_lazy"] or flags["use_offload"]):
            raise ValueError("Adam: use_amsgrad cannot be combined with use_lazy or use_offload")
        self.beta1, self.beta2, self.eps = _F32(beta1), _F32(beta2), _F32(eps)
        self.use_nesterov, self.use_locking, self.use_amsgrad = use_nesterov, use_locking, use_amsgrad
        self.use_lazy, self.use_offload = flags["use_lazy"], flags["use_offload"]
        self.beta1_power = Parameter(np.array(1, _F32), name="beta1_power")
        self.beta2_power = Parameter(np.array(1, _F32), name="beta2_power")
        self.moment1 = self._clone("moment1")
        self.moment2 = self._clone("moment2")
        if use_amsgrad:
            self.vhat = self._clone("vhat")

    def _apply(self, grads, rates, decays):
        b1p = self._read(self.beta1_power) * self.beta1
        b2p = self._read(self.beta2_power) * self.beta2
        self._set(self.beta1_power, b1p)
        self._set(self.beta2_power, b2p)
        vhats = self.vhat if self.use_amsgrad else [None] * len(grads)
        for p, m1, m2, vhat, g, lr, wd in zip(
            self.parameters, self.moment1, self.moment2, vhats, grads, rates, decays
        ):
            w = self._read(p)
            g = self._prepared(w, g, wd)
            dt = dtype_of(w)
            b1, b2, eps = self.beta1.astype(dt), self.beta2.astype(dt), self.eps.astype(dt)
            lr_t = astype(lr, dt) * sqrt(1 - astype(b2p, dt)) / (1 - astype(b1p, dt))
            m = self._read(m1) + (g - self._read(m1)) * (1 - b1)
            v = self._read(m2) + (g * g - self._read(m2)) * (1 - b2)
            self._set(m1, m)
            self._set(m2, v)
            if vhat is not None:
                v = maximum(self._read(vhat), v)
                self._set(vhat, v)
            # MindSpore's amsgrad kernel (ApplyAdamWithAmsgradV2) has no Nesterov step
            top = m * b1 + (1 - b1) * g if self.use_nesterov and vhat is None else m
            self._set(p, w - lr_t * top / (sqrt(v) + eps))


class AdamWeightDecay(Optimizer):
    """Adam with decoupled weight decay and no bias correction, as MindSpore's ``AdamWeightDecay``:
    ``m += (1 - beta1) (g - m)``, ``v += (1 - beta2) (g^2 - v)``,
    ``p -= lr * (m / (sqrt(v) + eps) + weight_decay * p)``."""

    def __init__(
        self,
        params,
        learning_rate=1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-6,
        weight_decay=0.0,
    ):
        super().__init__(learning_rate, params, weight_decay)
        _betas("AdamWeightDecay", beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = _F32(beta1), _F32(beta2), _F32(eps)
        self.moments1 = self._clone("adam_m")
        self.moments2 = self._clone("adam_v")

    def _prepared(self, weight, grad, decay):
        return grad  # the decay enters the update itself, unscaled

    def _apply(self, grads, rates, decays):
        for p, m1, m2, g, lr, wd in zip(self.parameters, self.moments1, self.moments2, grads, rates, decays):
            w = self._read(p)
            dt = dtype_of(w)
            b1, b2, eps = self.beta1.astype(dt), self.beta2.astype(dt), self.eps.astype(dt)
            m = self._read(m1) + (g - self._read(m1)) * (1 - b1)
            v = self._read(m2) + (g * g - self._read(m2)) * (1 - b2)
            self._set(m1, m)
            self._set(m2, v)
            update = m / (sqrt(v) + eps)
            if wd is not None:
                update = update + astype(wd, dt) * w
            self._set(p, w - astype(lr, dt) * update)


__all__ = ["SGD", "Adam", "AdamWeightDecay", "Momentum", "Optimizer"]
