"""``initializer(init, shape, dtype)``: MindSpore's way to make initial weights."""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad.tensor import Tensor

_NAMED = {
    "zeros": lambda shape, rng: np.zeros(shape),
    "ones": lambda shape, rng: np.ones(shape),
    "normal": lambda shape, rng: rng.normal(0.0, 0.01, shape),
    "uniform": lambda shape, rng: rng.uniform(-0.07, 0.07, shape),
}


def initializer(init, shape=None, dtype=mstype.float32) -> Tensor:
    """A Tensor of ``shape`` filled by ``init``: a Tensor, a number, or 'zeros', 'ones', 'normal', 'uniform'."""
    np_dtype = mstype.to_dtype(dtype).np
    if isinstance(init, Tensor):
        return Tensor(init.asnumpy(), dtype)
    shape = () if shape is None else (shape,) if isinstance(shape, int) else tuple(shape)
    if isinstance(init, bool | int | float):
        return Tensor(np.full(shape, init, np_dtype))
    name = str(init).lower()
    if name not in _NAMED:
        raise ValueError(
            f"initializer: unknown init {init!r}; supported: a Tensor, a number, {', '.join(_NAMED)}"
        )
    return Tensor(_NAMED[name](shape, np.random.default_rng()).astype(np_dtype))
