"""Built-in example networks used by the tour, the benchmarks and the tests."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from symgrad.autodiff.api import grad
from symgrad.pinn.networks import MLP
from symgrad.tensor import Tensor

COORDINATES = {1: ("x",), 2: ("x", "t"), 3: ("x", "y", "t"), 4: ("x", "y", "z", "t")}


class PointMLP(MLP):
    """u(x, t): a tanh MLP on one point, ``a_next = tanh(a @ W + b)``, linear output (the
    :class:`symgrad.pinn.MLP` of the benchmarks and the shared PINN reference data).

    Weights are Parameters ``W1, b1, ..., Wn, bn`` with ``W`` of shape (in, out), Glorot-uniform.
    Its inputs are named as in the equations (``input_names``: x, t; x, y, t; x, y, z, t; else
    x1, x2, ...), so derivations and kernels read ``u(x, t)``; pass ``input_names`` for others.
    """

    def __init__(
        self,
        layer_sizes: Sequence[int],
        seed: int = 0,
        dtype=np.float64,
        input_names: Sequence[str] | None = None,
    ):
        super().__init__(layer_sizes, "tanh", seed=seed, dtype=dtype)
        names = COORDINATES.get(self.n_inputs, [f"x{i + 1}" for i in range(self.n_inputs)])
        names = list(names if input_names is None else input_names)
        if len(names) != self.n_inputs or not all(isinstance(n, str) and n.isidentifier() for n in names):
            raise ValueError(
                f"PointMLP: input_names must be {self.n_inputs} identifiers (one per input of "
                f"layer_sizes {list(layer_sizes)}), got {input_names!r}"
            )
        self.input_names = names


def burgers_terms(net: PointMLP, x: Tensor, t: Tensor, nu: float = 0.01 / math.pi) -> dict[str, Tensor]:
    """u, u_x, u_t, u_xx, the Burgers residual r and d(r^2)/d(weights), per point."""
    u_x = grad(net, 0)
    u_t = grad(net, 1)
    u_xx = grad(u_x, 0)

    def residual(x, t):
        return u_t(x, t) + net(x, t) * u_x(x, t) - nu * u_xx(x, t)

    terms = {"u": net(x, t), "ux": u_x(x, t), "ut": u_t(x, t), "uxx": u_xx(x, t), "r": residual(x, t)}
    weight_grads = grad(lambda x, t: residual(x, t) ** 2, grad_position=None, weights=net.params)(x, t)
    terms.update({f"d(r^2)/d{p.name}": g for p, g in zip(net.params, weight_grads)})
    return terms
