"""Multi-scale Fourier feature networks (Wang, Wang & Perdikaris 2021), as DeepXDE's MsFFN and STMsFFN.

A plain MLP learns low frequencies first (spectral bias). These networks map the input through
several fixed random Fourier features ``[cos(x B_k), sin(x B_k)]``, ``B_k ~ N(0, sigma_k^2)``, pass
each through one shared hidden stack, and combine the results in a linear output layer: one
scale per frequency band of the solution (a wave with modes 1 and 4: sigmas 1 and 10).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.parameter import Parameter
from symgrad.pinn.networks import _PointNetwork, activation_function, along_last_axis, layer_widths
from symgrad.tensor import Tensor


def _scales(sigmas, label: str, where: str) -> list[float]:
    values = list(sigmas) if isinstance(sigmas, Sequence) and not isinstance(sigmas, str) else None
    if not values or not all(
        isinstance(s, int | float) and not isinstance(s, bool) and math.isfinite(s) and s > 0 for s in values
    ):
        raise ValueError(f"{where}: {label} must be a non-empty list of finite numbers > 0, got {sigmas!r}")
    return [float(s) for s in values]


class MultiScaleFourierMLP(_PointNetwork):
    """DeepXDE's MsFFN: for each ``sigma`` a fixed matrix ``B`` (inputs x layer_sizes[1] // 2, not
    trained, Parameters ``fourier_B1``, ...), the features through the hidden layers of ``layer_sizes``
    (shared by every scale), the scales' last hidden layers concatenated into a linear output.

    Args are :class:`MLP`'s, plus ``sigmas``: the standard deviations of the scales' ``B``.
    """

    def __init__(
        self,
        layer_sizes: Sequence[int],
        sigmas: Sequence[float],
        activation: str | Callable = "tanh",
        init: str = "glorot_uniform",
        seed: int = 0,
        dtype=np.float64,
    ):
        super().__init__()
        where = type(self).__name__
        self.layer_sizes = layer_widths(layer_sizes, where, hidden=True)
        self.n_inputs, self.n_outputs = self.layer_sizes[0], self.layer_sizes[-1]
        self.activation = activation_function(activation)
        self._use_factorization(None, seed)
        self._use_embedding(None, self.n_inputs)
        self._init = init
        self._setup(self._scale_groups(sigmas), seed, dtype)

    def _scale_groups(self, sigmas) -> list[tuple[list[int], list[float]]]:
        """Which inputs each group of scales reads: here every input, at every sigma."""
        return [(list(range(self.n_inputs)), _scales(sigmas, "sigmas", type(self).__name__))]

    def _setup(self, groups: list[tuple[list[int], list[float]]], seed: int, dtype) -> None:
        """Fourier matrices per scale, a shared hidden stack, and an output over every combination
        of the groups' scales."""
        dtype = mstype.to_dtype(dtype).np
        rng = np.random.default_rng([seed, 3])
        hidden, half = self.layer_sizes[1:-1], self.layer_sizes[1] // 2
        if half < 1 or self.layer_sizes[1] % 2:
            raise ValueError(
                f"{type(self).__name__}: the first hidden width holds cos and sin features: it must be even, "
                f"got {self.layer_sizes[1]}"
            )
        self._groups: list[tuple[list[int], list[Parameter]]] = []
        count = 0
        for inputs, sigmas in groups:
            matrices = []
            for sigma in sigmas:
                count += 1
                B = Parameter(
                    rng.normal(0.0, sigma, (len(inputs), half)).astype(dtype), name=f"fourier_B{count}"
                )
                B.requires_grad = False
                setattr(self, B.name, B)
                matrices.append(B)
            self._groups.append((inputs, matrices))
        combinations = math.prod(len(m) for _, m in self._groups)
        hidden_layers = [
            self._dense(str(k), n_in, n_out, self._init, rng, dtype)
            for k, (n_in, n_out) in enumerate(zip(hidden[:-1], hidden[1:]), start=1)
        ]
        output = self._dense(
            str(len(hidden)), hidden[-1] * combinations, self.n_outputs, self._init, rng, dtype
        )
        self._hidden_layers, self._output_layer = hidden_layers, output

    def _through_hidden(self, a: Tensor) -> Tensor:
        for layer in self._hidden_layers:
            a = self.activation(layer(a))
        return a

    def _fourier(self, inputs: list[int], B: Parameter, a: Tensor) -> Tensor:
        x = ops.concat([along_last_axis(a, slice(i, i + 1)) for i in inputs], axis=-1)
        z = ops.matmul(x, B)
        return ops.concat([ops.cos(z), ops.sin(z)], axis=-1)

    def construct(self, *xs):
        a = self._stack(xs)
        per_group = [
            [self._through_hidden(self._fourier(inputs, B, a)) for B in matrices]
            for inputs, matrices in self._groups
        ]
        combined = per_group[0]
        for group in per_group[1:]:  # spatio-temporal: every space scale times every time scale
            combined = [h * g for h in combined for g in group]
        joined = combined[0] if len(combined) == 1 else ops.concat(combined, axis=-1)
        return self._split(self._output_layer(joined))


class SpatioTemporalFourierMLP(MultiScaleFourierMLP):
    """DeepXDE's STMsFFN: Fourier features of space (every input but the last) at ``space_sigmas``
    and of time (the last input) at ``time_sigmas``, each through the shared hidden layers; every
    space result times every time result, concatenated into a linear output."""

    def __init__(
        self,
        layer_sizes: Sequence[int],
        space_sigmas: Sequence[float],
        time_sigmas: Sequence[float],
        activation: str | Callable = "tanh",
        init: str = "glorot_uniform",
        seed: int = 0,
        dtype=np.float64,
    ):
        self._time_sigmas = time_sigmas
        super().__init__(layer_sizes, space_sigmas, activation, init, seed, dtype)

    def _scale_groups(self, sigmas) -> list[tuple[list[int], list[float]]]:
        if self.n_inputs < 2:
            raise ValueError(f"{type(self).__name__}: needs space and time inputs, got {self.n_inputs} input")
        where = type(self).__name__
        return [
            (list(range(self.n_inputs - 1)), _scales(sigmas, "space_sigmas", where)),
            ([self.n_inputs - 1], _scales(self._time_sigmas, "time_sigmas", where)),
        ]


__all__ = ["MultiScaleFourierMLP", "SpatioTemporalFourierMLP"]
