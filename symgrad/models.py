"""Built-in example networks used by the tour, the benchmarks and the tests."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from symgrad import ops
from symgrad.autodiff.api import grad
from symgrad.parameter import Parameter, ParameterTuple, unflatten
from symgrad.tensor import Tensor


class PointMLP:
    """u(x, t): a tanh MLP on one point, ``a_next = tanh(a @ W + b)``, linear output.

    Weights are Parameters ``W1, b1, ..., Wn, bn`` with ``W`` of shape (in, out), the
    layout of the shared PINN reference data.
    """

    def __init__(self, layer_sizes: Sequence[int], seed: int = 0, dtype=np.float64):
        rng = np.random.default_rng(seed)
        self.layer_sizes = list(layer_sizes)
        params = []
        for k, (n_in, n_out) in enumerate(zip(layer_sizes[:-1], layer_sizes[1:]), start=1):
            bound = math.sqrt(6 / (n_in + n_out))
            params.append(Parameter(rng.uniform(-bound, bound, (n_in, n_out)).astype(dtype), name=f"W{k}"))
            params.append(Parameter(np.zeros(n_out, dtype), name=f"b{k}"))
        self.params = ParameterTuple(params)

    def set_flat(self, theta: np.ndarray) -> None:
        """Load all weights from one vector (W1 row-major, b1, W2, ...)."""
        unflatten(self.params, theta)

    def __call__(self, x: Tensor, t: Tensor) -> Tensor:
        a = ops.stack([x, t])
        pairs = list(zip(self.params[::2], self.params[1::2]))
        for W, b in pairs[:-1]:
            a = ops.tanh(ops.matmul(a, W) + b)
        W, b = pairs[-1]
        return (ops.matmul(a, W) + b)[0]


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
