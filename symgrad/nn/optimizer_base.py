"""MindSpore's ``nn.Optimizer``: what every optimizer cell shares (``optim.py`` has the update rules).

An optimizer is a Cell called with one gradient per Parameter of ``optimizer.parameters``, in that
order (what ``GradOperation(get_by_list=True)(net, optimizer.parameters)`` returns). Every gradient
is checked against its Parameter (count, shape, finite values) before any weight changes, so a
gradient meant for another weight is refused with both names. The update rules, the state they
keep (``global_step``, ``moment1.<name>``, ...), the learning rates (a number, a list or 1-D Tensor
with one value per step, or a ``LearningRateSchedule``), weight decay (skipped for Parameters named
``beta``/``gamma`` unless grouped), ``loss_scale`` and parameter groups are MindSpore's; they are
computed with NumPy in each Parameter's dtype from float32 hyperparameters, as its CPU kernels do.

Inside a jitted call (``symgrad/train_step.py``) the same rules run on the call's graph Tensors
instead of arrays: the new weights and state become nodes of the traced graph, so a jitted training
step compiles into one kernel. ``_read``/``_set`` and the helpers below hide which of the two it is.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops, train_step
from symgrad.nn.cell import Cell
from symgrad.nn.learning_rate import LearningRateSchedule, check_bool
from symgrad.parameter import Parameter, ParameterTuple
from symgrad.tensor import Tensor
from symgrad.train_step import check_finite

Array = np.ndarray | Tensor  # what an update rule computes with: NumPy arrays, or graph Tensors (staged)
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
        if train_step.active() is not None and isinstance(global_step, Parameter):
            return self._staged(global_step)
        step = int(np.ravel(global_step.asnumpy() if isinstance(global_step, Tensor) else global_step)[0])
        rates = self.learning_rate.asnumpy()
        self._check(step, rates.size)
        return Tensor(rates[step : step + 1])

    def _check(self, step: int, size: int) -> None:
        if not 0 <= step < size:
            raise RuntimeError(
                f"{self.learning_rate.name}: the per-step learning rate has {size} values, none for step "
                f"{step} (counted from 0); give a longer list or a LearningRateSchedule"
            )

    def _staged(self, global_step: Parameter) -> Tensor:
        """Element ``step`` picked inside the graph (exactly: one rate times 1, the others times 0);
        a later step past the list is traced again, and then refused as above."""
        size = self.learning_rate.shape[0]
        self._check(int(train_step.data(global_step).ravel()[0]), size)
        train_step.assume(lambda: 0 <= int(train_step.data(global_step).ravel()[0]) < size)
        picked = ops.cast(ops.equal(Tensor(np.arange(size, dtype=np.int32)), global_step), mstype.float32)
        return (self.learning_rate * picked).sum().reshape((1,))


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
    def _now(self, item) -> Array:
        """The float32 value of a rate or weight decay at the current step (a graph Tensor when staged)."""
        if isinstance(item, Parameter):
            return self._read(item)
        if isinstance(item, Cell):
            value = item(self.global_step)
            if self._staged and isinstance(value, Tensor):
                return value.reshape(())
            return np.asarray(value.asnumpy() if isinstance(value, Tensor) else value).reshape(())
        return np.asarray(item, _F32)

    def _decay_now(self, decay) -> Array:
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

    def _checked(self, gradients) -> list[Array]:
        """The gradients as arrays in their Parameters' dtypes, after checking each against its Parameter
        (when staged: as graph Tensors, their values checked when the step has run)."""
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
        checked: list[Array] = []
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            if g is None:
                raise TypeError(f"{who}: gradient {i}, for Parameter {p.name!r}, is None")
            if self._staged:
                g = g if isinstance(g, Tensor) else Tensor(np.asarray(g))
                g = g if g.dtype == p.dtype else g.astype(p.dtype)
                if g.shape != p.shape:
                    raise ValueError(_mismatch(who, i, g.shape, p))
                train_step.watch_finite(who, p, g)
                checked.append(g)
                continue
            value = np.asarray(g.asnumpy() if isinstance(g, Tensor) else g).astype(p.dtype.np, copy=False)
            if value.shape != p.shape:
                raise ValueError(_mismatch(who, i, value.shape, p))
            check_finite(who, p, value)
            checked.append(value)
        return checked

    def _prepared(self, weight: Array, grad: Array, decay) -> Array:
        """MindSpore's ``decay_weight`` then ``scale_grad``: ``(grad + decay * weight) / loss_scale``."""
        if decay is not None:
            grad = weight * astype(decay, dtype_of(weight)) + grad
        if self.loss_scale != 1.0:
            grad = grad * _F32(1.0 / self.loss_scale).astype(dtype_of(grad))
        return grad

    _staged = False  # True while a jitted call is traced: the step is built as graph Tensors
    _pending: list | None = None

    def construct(self, gradients):
        object.__setattr__(self, "_staged", train_step.active() is not None)
        object.__setattr__(self, "_pending", [])
        try:
            grads = self._checked(gradients)
            rates = self._each_once(self._now, self._rates)  # read before the step advances, as MindSpore
            applied = [
                d if flag and (isinstance(d, Cell) or d > 0) else None
                for d, flag in zip(self._decays, self.decay_flags)
            ]
            decays = self._each_once(self._decay_now, applied)
            self._set(self.global_step, self._read(self.global_step) + np.int32(1))
            self._apply(grads, rates, decays)
            if self._staged:
                assert self._pending is not None
                train_step.write(self._pending)
        finally:
            object.__setattr__(self, "_staged", False)
            object.__setattr__(self, "_pending", None)
        return (True,) * len(grads)

    def _read(self, p: Parameter) -> Array:
        """A Parameter's value: its array, or (staged) the Parameter itself as a graph Tensor."""
        return p if self._staged else p.asnumpy()

    def _set(self, p: Parameter, value: Array) -> None:
        """Give ``p`` its new value now, or (staged) when the step's graph is complete."""
        if self._staged:
            assert self._pending is not None
            self._pending.append((p, value))
        else:
            p.assign(np.asarray(value, p.dtype.np))

    @staticmethod
    def _each_once(read, items: list) -> list:
        """``read(item)`` for each item, once per distinct object (a schedule shared by all Parameters
        is called once a step); None stays None."""
        seen: dict[int, np.ndarray] = {}
        for item in items:
            if item is not None and id(item) not in seen:
                seen[id(item)] = read(item)
        return [None if item is None else seen[id(item)] for item in items]

    def _apply(self, grads: list[Array], rates: list[Array], decays: list) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _apply")


def _mismatch(who: str, i: int, shape: tuple, p: Parameter) -> str:
    return (
        f"{who}: gradient {i} has shape {shape}, but it is matched to Parameter {p.name!r} "
        f"(position {i} of optimizer.parameters) of shape {p.shape}"
    )


# ----- the update rules compute on NumPy arrays, or on graph Tensors inside a jitted call -----


def dtype_of(x: Array) -> np.dtype:
    return x.dtype.np if isinstance(x, Tensor) else x.dtype


def astype(x: Array, dtype: np.dtype) -> Array:
    if isinstance(x, Tensor):
        return x if x.dtype.np == dtype else x.astype(dtype)
    return x.astype(dtype)


def sqrt(x: Array) -> Array:
    return ops.sqrt(x) if isinstance(x, Tensor) else np.sqrt(x)


def maximum(x: Array, y: Array) -> Array:
    return ops.maximum(x, y) if isinstance(x, Tensor) or isinstance(y, Tensor) else np.maximum(x, y)


def where(condition: Array, x: Array, y: Array) -> Array:
    if any(isinstance(v, Tensor) for v in (condition, x, y)):
        return ops.select(condition, x, y)
    return np.where(condition, x, y)


def zeros_like(x: Array) -> Array:
    return ops.zeros_like(x) if isinstance(x, Tensor) else np.zeros_like(x)
