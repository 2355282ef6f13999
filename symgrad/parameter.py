"""``Parameter`` and ``ParameterTuple``: named weights that are free variables of every graph."""

from __future__ import annotations

import numpy as np

from symgrad import observed
from symgrad.core.graph import Var
from symgrad.tensor import Tensor, _to_array


class Parameter(Tensor):
    """A named, updatable weight. In formulas it appears under its name."""

    _node: Var  # a Parameter is a variable of the graph

    def __init__(self, default_input, name: str | None = None, requires_grad: bool = True, **_ignored):
        data = _to_array(default_input, None)
        self.name = name or "Parameter"
        self.requires_grad = requires_grad
        self._data = data
        self._node = Var(self.name, data.shape, data.dtype, param=self)
        self._cache = None

    @property  # Tensor's _env is set where a tensor is made; a Parameter's follows its data
    def _env(self) -> dict:  # type: ignore[override]
        return {self._node: self._data}

    def _value(self) -> np.ndarray:
        observed.note_read((self._node,))
        return self._data

    def set_data(self, data) -> Parameter:
        """Replace the value (same shape); tensors built earlier keep the old value."""
        new = _to_array(data, None).astype(self._data.dtype)
        if new.shape != self._data.shape:
            raise ValueError(
                f"Parameter {self.name!r}: set_data got shape {new.shape}, expected {self._data.shape}"
            )
        self._data = new
        observed.note_state_change()
        return self

    def assign(self, array: np.ndarray) -> None:
        """Take ``array`` as the new value without copying it (the training loops' fast path): it must
        have this Parameter's shape and dtype, and nobody may write into it afterwards."""
        if (
            type(array) is not np.ndarray
            or array.shape != self._data.shape
            or array.dtype != self._data.dtype
        ):
            self.set_data(array)  # converts, or says what is wrong
            return
        self._data = array
        observed.note_state_change()

    def __setitem__(self, index, value) -> None:
        """``w[index] = value`` writes into the weight's value, as MindSpore does (not a
        differentiable step); tensors built earlier keep the old value."""
        parts = index if isinstance(index, tuple) else (index,)
        key = tuple(p.asnumpy() if isinstance(p, Tensor) else p for p in parts)
        new = self._data.copy()
        try:
            new[key if isinstance(index, tuple) else key[0]] = np.asarray(value)
        except (IndexError, ValueError) as exc:
            shape = np.shape(value)
            raise ValueError(
                f"Parameter {self.name!r}: cannot set index {index!r} of shape {self._data.shape} "
                f"to a value of shape {shape} ({exc})"
            ) from None
        self._data = new
        observed.note_state_change()

    @property
    def data(self) -> Parameter:
        return self

    def value(self) -> Tensor:
        """The current value as a plain Tensor (MindSpore's ``Parameter.value()``)."""
        return Tensor(self._data)

    def __repr__(self) -> str:
        return f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, requires_grad={self.requires_grad})"

    __hash__ = object.__hash__


class ParameterTuple(tuple):
    """A tuple of Parameters (what ``GradOperation(get_by_list=True)`` differentiates)."""

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple: every element must be a Parameter, got {type(p).__name__}")
        return super().__new__(cls, items)


def parameters_of(net) -> list[Parameter]:
    """The trainable Parameters of a network: a Cell's ``trainable_params()``, an object's ``params``,
    or a sequence of Parameters as given."""
    if callable(getattr(net, "trainable_params", None)):  # an nn.Cell
        return list(net.trainable_params())
    if isinstance(net, Parameter):
        return [net]
    params = getattr(net, "params", net)
    try:
        params = list(params)
    except TypeError:
        raise TypeError(
            f"expected a network (an nn.Cell, or an object with .params) or a sequence of Parameters, "
            f"got {type(net).__name__}"
        ) from None
    for i, p in enumerate(params):
        if not isinstance(p, Parameter):
            raise TypeError(f"params[{i}] is a {type(p).__name__}, not a Parameter")
    return params


def all_parameters(net) -> list[Parameter]:
    """Every Parameter of a network, trainable or not (a Fourier matrix too): what checkpoints save and
    ``predict`` reads; a sequence of Parameters as given."""
    if callable(getattr(net, "get_parameters", None)):  # an nn.Cell
        return list(net.get_parameters())
    return parameters_of(net)


def flatten(params) -> np.ndarray:
    """All weights as one float64 vector, in order (W1 row-major, b1, W2, ...)."""
    return np.concatenate([np.asarray(p.asnumpy(), np.float64).ravel() for p in params])


def unflatten(params, theta: np.ndarray) -> None:
    """Load ``theta`` (as :func:`flatten` lays it out) into ``params``, each keeping its dtype."""
    params = list(params)
    total = sum(p._data.size for p in params)
    if total != theta.size:
        raise ValueError(f"unflatten: the parameters hold {total} values, got {theta.size}")
    start = 0
    for p in params:
        data = p._data
        stop = start + data.size
        p.assign(theta[start:stop].reshape(data.shape).astype(data.dtype))  # a copy: callers reuse theta
        start = stop
