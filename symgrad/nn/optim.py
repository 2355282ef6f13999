"""``nn.Momentum`` and ``nn.SGD``: MindSpore's optimizer cells, called with a tuple of gradients."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from symgrad.parameter import Parameter


class Momentum:
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, use_nesterov=False)(grads)``.

    MindSpore's rule: ``g = grad + weight_decay * p``; ``accum = momentum * accum + g``;
    ``p -= lr * accum`` (Nesterov: ``p -= lr * (g + momentum * accum)``). Returns True, as
    MindSpore's optimizer cells do. The rate, momentum and weight decay must be finite and
    >= 0 (as MindSpore checks them); a gradient with a NaN or infinite entry is refused before
    any weight changes.
    """

    def __init__(
        self,
        params: Iterable[Parameter],
        learning_rate: float,
        momentum: float,
        weight_decay: float = 0.0,
        use_nesterov: bool = False,
    ):
        self.parameters = list(params)
        if not self.parameters:
            raise ValueError("Momentum: params is empty; pass the network's trainable_params()")
        name = type(self).__name__
        for arg, value in (
            ("learning_rate", learning_rate),
            ("momentum", momentum),
            ("weight_decay", weight_decay),
        ):
            if not (
                isinstance(value, int | float | np.floating | np.integer)
                and np.isfinite(value)
                and value >= 0
            ):
                raise ValueError(f"{name}: {arg} must be a finite number >= 0, got {value!r}")
        self.learning_rate, self.momentum = float(learning_rate), float(momentum)
        self.weight_decay, self.use_nesterov = float(weight_decay), use_nesterov
        self.moments = [np.zeros(p.shape, p.dtype.np) for p in self.parameters]

    def __call__(self, gradients: Sequence) -> bool:
        if len(gradients) != len(self.parameters):
            raise ValueError(
                f"{type(self).__name__}: {len(gradients)} gradients for {len(self.parameters)} parameters"
            )
        checked = []
        for p, g in zip(self.parameters, gradients):  # every gradient checked before any weight changes
            value = p.asnumpy()
            g = np.asarray(g.asnumpy() if hasattr(g, "asnumpy") else g, value.dtype)
            if g.shape != value.shape:
                raise ValueError(
                    f"{type(self).__name__}: gradient of {p.name!r} has shape {g.shape}, expected {value.shape}"
                )
            if not np.all(np.isfinite(g)):
                bad = np.argwhere(~np.isfinite(g))[0]
                raise FloatingPointError(
                    f"{type(self).__name__}: the gradient of {p.name!r} is {g[tuple(bad)]} at index "
                    f"{tuple(int(i) for i in bad)}; no weight was changed"
                )
            checked.append((p, value, g))
        for i, (p, value, g) in enumerate(checked):
            g = g + self.weight_decay * value
            self.moments[i] = self.momentum * self.moments[i] + g
            step = g + self.momentum * self.moments[i] if self.use_nesterov else self.moments[i]
            p.set_data((value - self.learning_rate * step).astype(value.dtype))
        return True

    construct = __call__


class SGD(Momentum):
    """``SGD(params, learning_rate=0.1, momentum=0.0, weight_decay=0.0, nesterov=False)``."""

    def __init__(
        self,
        params,
        learning_rate: float = 0.1,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ):
        super().__init__(params, learning_rate, momentum, weight_decay, nesterov)


__all__ = ["SGD", "Momentum"]
