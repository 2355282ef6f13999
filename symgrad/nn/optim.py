"""MindSpore's optimizer cells: ``Momentum``, ``SGD``, ``Adam`` and ``AdamWeightDecay``.

An optimizer is a Cell called with one gradient per Parameter of ``optimizer.parameters``, in that
order (what ``GradOperation(get_by_list=True)(net, optimizer.parameters)`` returns). Every gradient
is checked against its Parameter (count, shape, finite values) before any weight changes, so a
gradient meant for another weight is refused with both names. The update rules, the state they
keep (``global_step``, ``moment1.<name>``, ...), the learning rates (a number, a list or 1-D Tensor
with one value per step, or a ``LearningRateSchedule``), weight decay (skipped for Parameters named
``beta``/``gamma`` unless grouped), ``loss_scale`` and parameter groups are MindSpore's; they are
computed with NumPy in each Parameter's dtype from float32 hyperparameters, as its CPU kernels do.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence

import numpy as np

from symgrad.nn.cell import Cell
from symgrad.nn.learning_rate import LearningRateSchedule, check_bool
from symgrad.parameter import Parameter, ParameterTuple
from symgrad.tensor import Tensor

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")
_F32 = np.float32


def _number(value, who: str, name: str) -> float:
    """A finite number >= 0 as a float (MindSpore converts ints), else the error MindSpore raises."""
    if not isinstance(value, numbers.Real):
        if isinstance(value, str):  # MindSpore reads a str as a sequence of rates and fails on its characters
            raise ValueError(f"{who}: {name} must be a finite number >= 0, got the str {value!r}")
        raise TypeError(f"{who}: {name} must be a number, got {type(value).__name__}")
    number = float(value)
    if not (math.isfinite(number) and number >= 0):
        raise ValueError(f"{who}: {name} must be a finite number >= 0, got {value!r}")
    return number


class _RatePerStep(LearningRateSchedule):
    """One learning rate per step, from a list or a 1-D Tensor: step ``i`` takes element ``i``."""

    def __init__(self, rates: np.ndarray, name: str):
        super().__init__()
        self.learning_rate = Parameter(rates.astype(_F32), name=name)

    def construct(self, global_step):
        step = int(np.ravel(global_step.asnumpy() if isinstance(global_step, Tensor) else global_step)[0])
        rates = self.learning_rate.asnumpy()
        if not 0 <= step < rates.size:
            raise RuntimeError(
                f"{self.learning_rate.name}: the per-step learning rate has {rates.size} values, none for step "
                f"{step} (counted from 0); give a longer list or a LearningRateSchedule"
            )
        return Tensor(rates[step : step + 1])


def _learning_rate(value, name: str, who: str) -> Parameter | LearningRateSchedule:
    """MindSpore's reading of ``learning_rate``: a fixed float32 Parameter, or a schedule of the step."""
    if isinstance(value, LearningRateSchedule):
        return value
    if isinstance(value, Tensor):
        if value.ndim > 1:
            raise ValueError(f"{who}: a Tensor {name} must be a scalar or 1-D, got shape {value.shape}")
        rates = value.asnumpy().astype(_F32)
    elif isinstance(value, numbers.Real) or isinstance(value, str):
        return Parameter(np.array(_number(value, who, name), _F32), name=name)
    elif isinstance(value, Iterable):
        rates = np.array(list(value)).astype(_F32)
        if rates.ndim != 1:
            raise ValueError(
                f"{who}: a per-step {name} must be a flat list of numbers, got shape {rates.shape}"
            )
    else:
        raise TypeError(
            f"{who}: {name} must be a number, a list or Tensor of per-step rates, or a LearningRateSchedule, "
            f"got {type(value).__name__}"
        )
    if rates.ndim == 0:
        return Parameter(rates, name=name)
    if rates.size == 0:
        raise ValueError(f"{who}: the per-step {name} is empty")
    return _RatePerStep(rates, name)


def _weight_decay(value, loss_scale: float, who: str) -> float | Cell:
    """A fixed weight decay (times ``loss_scale``, as MindSpore's gradients are scaled), or a Cell of the step."""
    if isinstance(value, Cell):
        return value
    if not isinstance(value, int | float):
        raise TypeError(f"{who}: weight_decay must be a float, an int or a Cell, got {type(value).__name__}")
    return _number(value, who, "weight_decay") * loss_scale


def _parameter_list(value, who: str, what: str) -> list:
    if value is None:
        raise ValueError(f"{who}: {what} is None; pass the network's trainable_params()")
    if not isinstance(value, Iterable) or isinstance(value, str | Tensor):
        raise TypeError(
            f"{who}: {what} must be a list of Parameters or of group dicts, got {type(value).__name__}"
        )
    items = list(value)
    if not items:
        raise ValueError(f"{who}: {what} is empty; pass the network's trainable_params()")
    return items


class Optimizer(Cell):
    """Base class: parameters, learning rates, weight decay and loss scale, as MindSpore's ``nn.Optimizer``.

    Subclasses define ``_apply(grads, rates, decays)``: the gradients are checked NumPy arrays, one
    per Parameter, ``rates`` the step's learning rate of each Parameter and ``decays`` its weight
    decay (None where none applies). Calling the optimizer returns one True per Parameter.
    """

    learning_rate: Parameter | Cell | tuple  # a tuple, one per Parameter, when groups set their own
    weight_decay: float | Cell | tuple

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        who = type(self).__name__
        items = _parameter_list(parameters, who, "params")
        if not (all(isinstance(p, Parameter) for p in items) or all(isinstance(p, dict) for p in items)):
            raise TypeError(f"{who}: params must all be Parameters or all be group dicts")
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float):
            raise TypeError(f"{who}: loss_scale must be a float, got {type(loss_scale).__name__}")
        if not (math.isfinite(loss_scale) and loss_scale > 0):
            raise ValueError(f"{who}: loss_scale must be a finite float > 0, got {loss_scale}")
        self.loss_scale = loss_scale
        self.global_step = Parameter(np.zeros(1, np.int32), name="global_step")
        default = _learning_rate(learning_rate, "learning_rate", who)
        self.is_group = isinstance(items[0], dict)
        if self.is_group:
            params, self._rates, self._decays, self.decay_flags = self._groups(items, default, weight_decay)
        else:
            params, decay = items, _weight_decay(weight_decay, loss_scale, who)
            self._rates, self._decays = [default] * len(params), [decay] * len(params)
            # MindSpore's rule for ungrouped parameters: no decay for BatchNorm/LayerNorm's beta and gamma
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
        self.is_group_lr = any(r is not default for r in self._rates)
        self.dynamic_lr = any(isinstance(r, Cell) for r in self._rates)
        self.dynamic_weight_decay = any(isinstance(d, Cell) for d in self._decays)
        if self.is_group_lr:
            if any(r is default for r in self._rates):  # some group has no lr of its own
                self._keep("learning_rate", default)
            rates = self._rates
            self.learning_rate = ParameterTuple(rates) if not self.dynamic_lr else tuple(rates)
        else:
            self.learning_rate = default
        if self.is_group:
            self.weight_decay = tuple(self._decays)
        else:
            self.weight_decay = self._decays[0]
        self.parameters = ParameterTuple(params)
        self._parameters = self.parameters

    def _keep(self, key: str, item) -> None:
        """Track optimizer state as this Cell's own (``get_parameters`` and checkpoints see it)."""
        if isinstance(item, Parameter):
            self._params.setdefault(key, item)
        elif isinstance(item, Cell):
            self._cells.setdefault(key, item)

    def _clone(self, prefix: str, fill: float = 0.0) -> ParameterTuple:
        """One state Parameter per weight, named ``<prefix>.<name>`` as MindSpore's ``clone`` names them."""
        clones = ParameterTuple(
            Parameter(np.full(p.shape, fill, p.dtype.np), name=f"{prefix}.{p.name}") for p in self.parameters
        )
        for p in clones:
            self._keep(p.name, p)
        return clones

    def _groups(self, groups: list, default, weight_decay) -> tuple[list, list, list, tuple]:
        """MindSpore's parameter groups: per-group ``lr`` and ``weight_decay``, ``order_params`` last."""
        who = type(self).__name__
        base_length = default.learning_rate.size if isinstance(default, _RatePerStep) else 0
        params: list[Parameter] = []
        rates: list = []
        decays: list = []
        flags: list[bool] = []
        order = None
        for number, group in enumerate(groups):
            unknown = [k for k in group if k not in _GROUP_KEYS]
            if unknown:
                raise KeyError(
                    f"{who}: group {number} has unknown keys {unknown}; the keys are {list(_GROUP_KEYS)}"
                )
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(
                        f"{who}: an order_params group must have no other key, got {list(group)}"
                    )
                if not isinstance(group["order_params"], Iterable):
                    raise TypeError(f"{who}: order_params must be a list of Parameters")
                order = list(group["order_params"])
                continue
            members = _parameter_list(group.get("params"), who, f"group {number}'s params")
            for i, p in enumerate(members):
                if not isinstance(p, Parameter):
                    raise TypeError(
                        f"{who}: group {number}'s params[{i}] is a {type(p).__name__}, not a Parameter"
                    )
            rate = default
            if "lr" in group:
                rate = _learning_rate(group["lr"], f"learning_rate_group_{number}", who)
                if isinstance(rate, _RatePerStep):
                    length = rate.learning_rate.size
                    if base_length and length != base_length:
                        raise ValueError(
                            f"{who}: group {number}'s per-step lr has {length} values, the others {base_length}"
                        )
                    base_length = base_length or length
                self._keep(f"learning_rate_group_{number}", rate)
            decay = _weight_decay(group.get("weight_decay", weight_decay), self.loss_scale, who)
            if check_bool(group.get("grad_centralization", False), who, "grad_centralization"):
                raise NotImplementedError(
                    f"{who}: grad_centralization is not supported (MindSpore 2.10 has no CPU kernel for it either)"
                )
            for p in members:
                if any(p.name == q.name for q in params):
                    raise RuntimeError(f"{who}: Parameter {p.name!r} is in more than one group")
                params.append(p)
                rates.append(rate)
                decays.append(decay)
                flags.append(isinstance(decay, Cell) or decay > 0)
        if order:
            if len(order) != len(params):
                raise ValueError(f"{who}: order_params has {len(order)} Parameters, the groups {len(params)}")
            names = [p.name for p in order]
            where = [names.index(p.name) for p in params]
            arranged = sorted(range(len(params)), key=lambda k: where[k])
            params = [params[k] for k in arranged]
            rates, decays, flags = (
                [rates[k] for k in arranged],
                [decays[k] for k in arranged],
                [flags[k] for k in arranged],
            )
        return params, rates, decays, tuple(flags)

    # ----- what MindSpore's optimizers read each step -----
    def _now(self, item) -> np.ndarray:
        """The float32 value of a rate or weight decay at the current step."""
        if isinstance(item, Parameter):
            return item.asnumpy()
        if isinstance(item, Cell):
            value = item(self.global_step)
            return np.asarray(value.asnumpy() if isinstance(value, Tensor) else value).reshape(())
        return np.asarray(item, _F32)

    def _decay_now(self, decay) -> np.ndarray:
        """A weight decay's float32 value at the current step; a Cell's is scaled by ``loss_scale`` here."""
        value = self._now(decay)
        return value * _F32(self.loss_scale) if isinstance(decay, Cell) else value

    def get_lr(self):
        """The learning rate of the current step (a tuple with one per Parameter when groups set their own)."""
        if not self.dynamic_lr:
            return self.learning_rate
        if self.is_group_lr:
            return tuple(Tensor(self._now(r)) for r in self._rates)
        return Tensor(self._now(self.learning_rate))

    def get_weight_decay(self):
        """The weight decay of the current step (a tuple with one per Parameter for groups)."""
        if self.is_group:
            return tuple(Tensor(self._decay_now(d)) for d in self._decays)
        return Tensor(self._decay_now(self._decays[0]))

    def get_lr_parameter(self, param):
        """The learning rate (Parameter or schedule) of ``param``, or a list of them for a list."""
        plist = [param] if isinstance(param, Parameter) else param
        if not isinstance(plist, list):
            raise TypeError(
                f"get_lr_parameter: param must be a Parameter or a list, got {type(param).__name__}"
            )
        ids = [id(p) for p in self.parameters]
        found = []
        for p in plist:
            if id(p) not in ids:
                raise ValueError(
                    f"get_lr_parameter: Parameter {getattr(p, 'name', p)!r} is not in this optimizer"
                )
            rate = self._rates[ids.index(id(p))]
            found.append(rate.learning_rate if isinstance(rate, _RatePerStep) else rate)
        return found if isinstance(param, list) else found[0]

    def _checked(self, gradients) -> list[np.ndarray]:
        """The gradients as arrays in their Parameters' dtypes, after checking each against its Parameter."""
        who = type(self).__name__
        if not isinstance(gradients, Sequence) or isinstance(gradients, str | Tensor):
            raise TypeError(
                f"{who}: gradients must be a tuple with one Tensor per Parameter of optimizer.parameters, "
                f"got {type(gradients).__name__}"
            )
        if len(gradients) != len(self.parameters):
            names = ", ".join(repr(p.name) for p in self.parameters)
            raise ValueError(
                f"{who}: {len(gradients)} gradients for {len(self.parameters)} parameters ({names}); "
                "gradients are matched to optimizer.parameters by position"
            )
        checked = []
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            if g is None:
                raise TypeError(f"{who}: gradient {i}, for Parameter {p.name!r}, is None")
            value = np.asarray(g.asnumpy() if isinstance(g, Tensor) else g).astype(p.dtype.np, copy=False)
            if value.shape != p.shape:
                raise ValueError(
                    f"{who}: gradient {i} has shape {value.shape}, but it is matched to Parameter {p.name!r} "
                    f"(position {i} of optimizer.parameters) of shape {p.shape}"
                )
            if not np.all(np.isfinite(value)):
                bad = np.argwhere(~np.isfinite(value))[0]
                raise FloatingPointError(
                    f"{who}: the gradient of {p.name!r} is {value[tuple(bad)]} at index "
                    f"{tuple(int(k) for k in bad)}; no weight was changed"
                )
            checked.append(value)
        return checked

    def _prepared(self, weight: np.ndarray, grad: np.ndarray, decay) -> np.ndarray:
        """MindSpore's ``decay_weight`` then ``scale_grad``: ``(grad + decay * weight) / loss_scale``."""
        if decay is not None:
            grad = weight * decay.astype(weight.dtype) + grad
        if self.loss_scale != 1.0:
            grad = grad * _F32(1.0 / self.loss_scale).astype(grad.dtype)
        return grad

    def construct(self, gradients):
        grads = self._checked(gradients)
        rates = self._each_once(self._now, self._rates)  # read before the step advances, as MindSpore
        applied = [
            d if flag and (isinstance(d, Cell) or d > 0) else None
            for d, flag in zip(self._decays, self.decay_flags)
        ]
        decays = self._each_once(self._decay_now, applied)
        self.global_step.assign(self.global_step.asnumpy() + np.int32(1))
        self._apply(grads, rates, decays)
        return (True,) * len(grads)

    @staticmethod
    def _each_once(read, items: list) -> list:
        """``read(item)`` for each item, once per distinct object (a schedule shared by all Parameters
        is called once a step); None stays None."""
        seen: dict[int, np.ndarray] = {}
        for item in items:
            if item is not None and id(item) not in seen:
                seen[id(item)] = read(item)
        return [None if item is None else seen[id(item)] for item in items]

    def _apply(self, grads: list[np.ndarray], rates: list[np.ndarray], decays: list) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _apply")


def _set(p: Parameter, value: np.ndarray) -> None:
    p.assign(np.asarray(value, p.dtype.np))


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
            w = p.asnumpy()
            g = self._prepared(w, g, wd)
            lr, mu = lr.astype(w.dtype), self.momentum.asnumpy().astype(w.dtype)
            before = accum.asnumpy()
            a = before * mu + g
            _set(accum, a)
            _set(p, w - (g * lr + before * mu * lr if self.use_nesterov else a * lr))


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
        mu32 = self.momentum.asnumpy()
        for p, accum, stat, g, lr, wd in zip(self.parameters, self.accum, self.stat, grads, rates, decays):
            w = p.asnumpy()
            g = self._prepared(w, g, wd)
            mu = mu32.astype(w.dtype)
            if mu32 > 0:
                keep = (_F32(1) - _F32(self.dampening)).astype(w.dtype)
                a = np.where(stat.asnumpy() > 0, g, accum.asnumpy() * mu + keep * g)
                _set(accum, a)
                _set(stat, np.zeros_like(w))
                g = g + a * mu if self.nesterov else a
            _set(p, w - lr.astype(w.dtype) * g)


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
        b1p = self.beta1_power.asnumpy() * self.beta1
        b2p = self.beta2_power.asnumpy() * self.beta2
        _set(self.beta1_power, b1p)
        _set(self.beta2_power, b2p)
        vhats = self.vhat if self.use_amsgrad else [None] * len(grads)
        for p, m1, m2, vhat, g, lr, wd in zip(
            self.parameters, self.moment1, self.moment2, vhats, grads, rates, decays
        ):
            w = p.asnumpy()
            g = self._prepared(w, g, wd)
            dt = w.dtype
            b1, b2, eps = self.beta1.astype(dt), self.beta2.astype(dt), self.eps.astype(dt)
            lr_t = lr.astype(dt) * np.sqrt(1 - b2p.astype(dt)) / (1 - b1p.astype(dt))
            m = m1.asnumpy() + (g - m1.asnumpy()) * (1 - b1)
            v = m2.asnumpy() + (g * g - m2.asnumpy()) * (1 - b2)
            _set(m1, m)
            _set(m2, v)
            if vhat is not None:
                v = np.maximum(vhat.asnumpy(), v)
                _set(vhat, v)
            # MindSpore's amsgrad kernel (ApplyAdamWithAmsgradV2) has no Nesterov step
            top = m * b1 + (1 - b1) * g if self.use_nesterov and vhat is None else m
            _set(p, w - lr_t * top / (np.sqrt(v) + eps))


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
            w = p.asnumpy()
            dt = w.dtype
            b1, b2, eps = self.beta1.astype(dt), self.beta2.astype(dt), self.eps.astype(dt)
            m = m1.asnumpy() + (g - m1.asnumpy()) * (1 - b1)
            v = m2.asnumpy() + (g * g - m2.asnumpy()) * (1 - b2)
            _set(m1, m)
            _set(m2, v)
            update = m / (np.sqrt(v) + eps)
            if wd is not None:
                update = update + wd.astype(dt) * w
            _set(p, w - lr.astype(dt) * update)


__all__ = ["SGD", "Adam", "AdamWeightDecay", "Momentum", "Optimizer"]
