"""PINN networks: MLPs of any number of inputs and outputs, residual MLPs, input embeddings.

Every network is an ``nn.Cell`` called on one scalar per input coordinate, ``net(x, y)``. One output
comes back as a Tensor; several come back as a tuple, so a system reads ``u, v, p = net(x, y)``, and
``net.output(k)`` is the function ``(x, y) -> k-th output`` to differentiate (``grad(net.output(0), 1)``).
Called on arrays of points instead of scalars (eager), each input's last axis is the batch.

Any Cell, or any function of the inputs with Parameters, is a network to the PINN toolkit:
:func:`symgrad.parameter.parameters_of` finds its Parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.nn.cell import Cell
from symgrad.parameter import Parameter, ParameterTuple, unflatten
from symgrad.tensor import Tensor

INITIALIZERS = ("glorot_uniform", "glorot_normal", "he_uniform", "he_normal")


def initial_weight(
    init: str, n_in: int, n_out: int, rng: np.random.Generator, dtype=np.float64
) -> np.ndarray:
    """A (n_in, n_out) matrix by Glorot (Xavier) or He (Kaiming) initialisation, uniform or normal."""
    if init not in INITIALIZERS:
        raise ValueError(f"unknown initializer {init!r}; supported: {', '.join(INITIALIZERS)}")
    fan = (n_in + n_out) / 2 if init.startswith("glorot") else n_in / 2
    if init.endswith("uniform"):
        bound = math.sqrt(3 / fan)  # glorot: sqrt(6 / (n_in + n_out)); he: sqrt(6 / n_in)
        value = rng.uniform(-bound, bound, (n_in, n_out))
    else:
        value = rng.normal(0.0, math.sqrt(1 / fan), (n_in, n_out))
    return value.astype(dtype)


def whole_number(value, label: str, where: str, smallest: int) -> int:
    """``value`` as an int, refusing fractions, bools and anything below ``smallest`` by name."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < smallest:
        raise ValueError(f"{where}: {label} must be a whole number >= {smallest}, got {value!r}")
    return int(value)


def layer_widths(layer_sizes, where: str, hidden: bool = False) -> list[int]:
    """``layer_sizes`` as whole numbers >= 1: [inputs, outputs] at least (with ``hidden``, one hidden
    layer at least), refusing strings, nesting, fractions and bools by name."""
    given = None if isinstance(layer_sizes, str) else np.asarray(layer_sizes, dtype=object)
    if given is None or given.ndim != 1 or len(given) < (3 if hidden else 2):
        needs = "[inputs, hidden..., outputs]" if hidden else "at least [inputs, outputs]"
        raise ValueError(f"{where}: layer_sizes needs {needs}, got {layer_sizes!r}")
    return [whole_number(s, f"layer_sizes[{i}]", where, 1) for i, s in enumerate(given)]


def activation_function(activation: str | Callable) -> Callable:
    """``activation`` as a function of a Tensor: a callable as it is, or the name of a ``symgrad.ops``
    function; either must map a Tensor to a Tensor of its shape (tried once on a small one)."""
    function = activation if callable(activation) else None
    if isinstance(activation, str) and not activation.startswith("_"):
        function = getattr(ops, activation, None)
    hint = "pass a name such as 'tanh', 'sin', 'sigmoid', 'silu', 'gelu', 'softplus', or a callable"
    if not callable(function):
        raise ValueError(f"activation {activation!r} is not a function of symgrad.ops; {hint}")
    probe = Tensor(np.array([-0.5, 0.25, 1.0]))
    try:
        out = function(probe)
    except Exception as exc:  # noqa: BLE001 - any failure means it is not an elementwise activation
        raise ValueError(
            f"activation {activation!r} is not an elementwise function of a Tensor (on a Tensor of shape "
            f"(3,) it raised {type(exc).__name__}: {exc}); {hint}"
        ) from None
    if not isinstance(out, Tensor) or out.shape != probe.shape:
        got = f"shape {out.shape}" if isinstance(out, Tensor) else type(out).__name__
        raise ValueError(
            f"activation {activation!r} is not an elementwise function of a Tensor (a Tensor of shape (3,) "
            f"gave {got}); {hint}"
        )
    return function


def along_last_axis(t: Tensor, index: int | slice) -> Tensor:
    """``t[..., index]`` (symgrad's getitem takes no Ellipsis)."""
    return t[(slice(None),) * (t.ndim - 1) + (index,)]


class FourierFeatures:
    """Random Fourier features (Tancik et al. 2020): ``[cos(2 pi x B), sin(2 pi x B)]``, B ~ N(0, scale^2).

    ``B`` (in_dim x features) is a Parameter that does not train (``requires_grad=False``), so
    checkpoints keep it and kernels read it.
    """

    def __init__(self, in_dim: int, features: int = 64, scale: float = 1.0, seed: int = 0, dtype=np.float64):
        in_dim = whole_number(in_dim, "in_dim", "FourierFeatures", 1)
        features = whole_number(features, "features", "FourierFeatures", 1)
        if not isinstance(scale, int | float | np.number) or not math.isfinite(scale) or scale <= 0:
            raise ValueError(
                f"FourierFeatures: need in_dim >= 1, features >= 1 and a finite scale > 0, "
                f"got in_dim={in_dim}, features={features}, scale={scale}"
            )
        rng = np.random.default_rng(seed)
        values = (2 * math.pi * scale * rng.normal(size=(in_dim, features))).astype(mstype.to_dtype(dtype).np)
        self.B = Parameter(values, name="fourier_B", requires_grad=False)
        self.in_dim, self.out_dim = in_dim, 2 * features

    def __call__(self, a: Tensor) -> Tensor:
        z = ops.matmul(a, self.B)
        return ops.concat([ops.cos(z), ops.sin(z)], axis=-1)


class PeriodicEmbedding:
    """Exact periodicity (Dong & Ni 2021): input i of period L_i becomes cos(2 pi k x_i / L_i), sin(...)
    for k = 1..harmonics; inputs whose period is None pass through. The network is then periodic in
    those inputs whatever its weights, so a periodic condition needs no loss term."""

    def __init__(self, periods: Sequence[float | None], harmonics: int = 1):
        if not all(
            p is None or (isinstance(p, int | float | np.number) and not isinstance(p, bool)) for p in periods
        ):
            raise ValueError(f"PeriodicEmbedding: periods must be numbers or None, got {list(periods)}")
        self.periods = [None if p is None else float(p) for p in periods]
        harmonics = whole_number(harmonics, "harmonics", "PeriodicEmbedding", 1)
        if any(p is not None and not (math.isfinite(p) and p > 0) for p in self.periods):
            raise ValueError(
                f"PeriodicEmbedding: need positive finite periods (None for an input that is not periodic) "
                f"and harmonics >= 1, got periods={list(periods)}, harmonics={harmonics}"
            )
        self.harmonics = harmonics
        self.in_dim = len(self.periods)
        self.out_dim = sum(1 if p is None else 2 * harmonics for p in self.periods)

    def __call__(self, a: Tensor) -> Tensor:
        parts = []
        for i, period in enumerate(self.periods):
            x = along_last_axis(a, slice(i, i + 1))
            if period is None:
                parts.append(x)
                continue
            for k in range(1, self.harmonics + 1):
                angle = x * (2 * math.pi * k / period)
                parts += [ops.cos(angle), ops.sin(angle)]
        return ops.concat(parts, axis=-1)


def register_embedding(net: Cell, embedding) -> None:
    """An embedding's Parameters (a Fourier matrix) become the network's, so checkpoints and
    ``predict`` see them."""
    for name, value in vars(embedding).items() if embedding is not None else ():
        if isinstance(value, Parameter):
            setattr(net, f"embedding_{name}", value)


class _Dense:
    """One layer's affine map ``a @ W + b``; with a weight factorization ``W = V diag(exp(s))``, that
    is ``(a @ V) * exp(s) + b`` (Parameters ``V`` under the name ``W<k>``, and ``s<k>``)."""

    def __init__(self, W: Parameter, b: Parameter, log_scale: Parameter | None = None):
        self.W, self.b, self.log_scale = W, b, log_scale

    def __call__(self, a: Tensor) -> Tensor:
        y = ops.matmul(a, self.W)
        if self.log_scale is not None:
            y = y * ops.exp(self.log_scale)
        return y + self.b


class _PointNetwork(Cell):
    """Shared by the networks below: inputs stacked into one vector, outputs split into a tuple."""

    n_inputs: int
    n_outputs: int
    factorization: tuple[float, float] | None = None

    def _stack(self, xs: tuple) -> Tensor:
        name = type(self).__name__
        if len(xs) != self.n_inputs:
            raise TypeError(
                f"{name} takes {self.n_inputs} inputs (one Tensor per coordinate, as net(x, y)), got {len(xs)}"
            )
        xs = tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x, np.float64)) for x in xs)
        if all(not x.shape for x in xs):  # one point: the graph a kernel evaluates over batches
            return ops.stack(list(xs))
        return ops.stack(list(xs), axis=-1)  # arrays of points, batch first

    def _use_embedding(self, embedding, n_inputs: int) -> int:
        """Keep ``embedding`` (its Parameters become the network's) and return the first layer's width."""
        if embedding is not None and getattr(embedding, "in_dim", n_inputs) != n_inputs:
            raise ValueError(
                f"{type(self).__name__}: the embedding takes {embedding.in_dim} inputs, the network {n_inputs}"
            )
        self.embedding = embedding
        register_embedding(self, embedding)
        return n_inputs if embedding is None else getattr(embedding, "out_dim", n_inputs)

    def _use_factorization(self, factorization, seed: int) -> None:
        """Keep the random weight factorization's (mean, std) of the log-scales, and their generator
        (its own, so the network's initial function is the one without factorization)."""
        if factorization is not None:
            mean, std = (float(v) for v in factorization)
            if not (math.isfinite(mean) and math.isfinite(std) and std >= 0):
                raise ValueError(
                    f"{type(self).__name__}: factorization must be (mean, std) of the log-scales, std >= 0, "
                    f"got {factorization!r}"
                )
            factorization = (mean, std)
        self.factorization = factorization
        self._scale_rng = np.random.default_rng([seed, 1])

    def _dense(self, suffix: str, n_in: int, n_out: int, init: str, rng, dtype) -> _Dense:
        """A layer's weights ``W<suffix>`` (``init``, shape (in, out)) and bias ``b<suffix>`` (zeros),
        registered on the network; with a factorization, ``W = V diag(exp(s))`` where ``s<suffix>``
        is drawn from N(mean, std) and ``V`` (kept as ``W<suffix>``) is ``W / exp(s)``."""
        dtype = mstype.to_dtype(dtype).np  # np.float64 or symgrad.float64 alike
        weight = initial_weight(init, n_in, n_out, rng, dtype)
        log_scale = None
        if self.factorization is not None:
            mean, std = self.factorization
            scales = self._scale_rng.normal(mean, std, n_out).astype(dtype)
            weight = (weight / np.exp(scales)).astype(dtype)
            log_scale = Parameter(scales, name=f"s{suffix}")
        W = Parameter(weight, name=f"W{suffix}")
        b = Parameter(np.zeros(n_out, dtype), name=f"b{suffix}")
        for p in (W, log_scale, b):
            if p is not None:
                setattr(self, p.name, p)
        return _Dense(W, b, log_scale)

    def _features(self, xs: tuple) -> Tensor:
        """The inputs stacked into one vector, through the embedding when there is one."""
        a = self._stack(xs)
        return a if self.embedding is None else self.embedding(a)

    def _split(self, out: Tensor):
        if self.n_outputs == 1:
            return along_last_axis(out, 0)
        return tuple(along_last_axis(out, k) for k in range(self.n_outputs))

    def output(self, k: int) -> Callable:
        """The function ``(*inputs) -> output k``: what ``grad`` and the residuals differentiate."""
        if not isinstance(k, int) or not 0 <= k < self.n_outputs:
            raise IndexError(
                f"{type(self).__name__} has {self.n_outputs} output(s), numbered 0..{self.n_outputs - 1}; "
                f"asked for output {k!r}"
            )
        if self.n_outputs == 1:
            return self

        def component(*xs):
            return self(*xs)[k]

        component.__name__ = f"{type(self).__name__.lower()}_output{k}"
        return component

    @property
    def params(self) -> ParameterTuple:
        """The trainable Parameters, in order (what the PINN toolkit differentiates)."""
        return ParameterTuple(self.trainable_params())

    def set_flat(self, theta: np.ndarray) -> None:
        """Load all trainable weights from one vector (as :func:`symgrad.pinn.flatten` lays them out)."""
        unflatten(self.params, theta)


class MLP(_PointNetwork):
    """A fully connected network ``a_next = act(a @ W + b)`` with a linear output layer.

    Args:
        layer_sizes: [inputs, hidden..., outputs]; the first entry is the number of inputs (before
            any embedding), the last the number of outputs.
        activation: a ``symgrad.ops`` function name ("tanh", "sin", "silu", ...) or a callable.
        init: "glorot_uniform" (default), "glorot_normal", "he_uniform" or "he_normal"; biases start at 0.
        embedding: an input embedding (:class:`FourierFeatures`, :class:`PeriodicEmbedding`, or any
            callable with ``in_dim`` and ``out_dim``) applied to the stacked inputs.
        factorization: random weight factorization (Wang, Wang, Sankaran & Perdikaris 2022):
            ``(mean, std)`` of each layer's log-scales ``s`` (they suggest (1.0, 0.1)), so that
            ``W = V diag(exp(s))`` and Adam steps on ``V`` and ``s``; the initial network is the same
            as without it. None (default): plain weights.
        seed, dtype: the random generator's seed and the weights' dtype (float64 or float32).

    Weights are Parameters ``W1, b1, ..., Wn, bn`` with ``W`` of shape (in, out) (and ``s1, ..., sn``
    with a factorization).
    """

    def __init__(
        self,
        layer_sizes: Sequence[int],
        activation: str | Callable = "tanh",
        init: str = "glorot_uniform",
        embedding=None,
        seed: int = 0,
        dtype=np.float64,
        factorization: tuple[float, float] | None = None,
    ):
        super().__init__()
        sizes = layer_widths(layer_sizes, type(self).__name__)
        self.layer_sizes = sizes
        self.n_inputs, self.n_outputs = sizes[0], sizes[-1]
        self.activation = activation_function(activation)
        self._use_factorization(factorization, seed)
        widths = [self._use_embedding(embedding, sizes[0]), *sizes[1:]]
        rng = np.random.default_rng(seed)
        self._layers = [
            self._dense(str(k), n_in, n_out, init, rng, dtype)
            for k, (n_in, n_out) in enumerate(zip(widths[:-1], widths[1:]), start=1)
        ]

    def construct(self, *xs):
        a = self._features(xs)
        for layer in self._layers[:-1]:
            a = self.activation(layer(a))
        return self._split(self._layers[-1](a))


class ModifiedMLP(MLP):
    """The modified MLP of Wang, Teng & Perdikaris (2021): two encoders of the input,
    ``U = act(x W_u + b_u)`` and ``V = act(x W_v + b_v)``, and each hidden layer
    ``z = act(h W + b)``, ``h = (1 - z) U + z V``; a linear output. The gates carry the input to
    every layer, which helps stiff problems (Helmholtz, Allen-Cahn). The hidden layers must have
    one width; the arguments are :class:`MLP`'s, the encoders ``W_u, b_u, W_v, b_v`` come last.
    """

    def __init__(
        self,
        layer_sizes: Sequence[int],
        activation: str | Callable = "tanh",
        init: str = "glorot_uniform",
        embedding=None,
        seed: int = 0,
        dtype=np.float64,
        factorization: tuple[float, float] | None = None,
    ):
        super().__init__(layer_sizes, activation, init, embedding, seed, dtype, factorization)
        hidden = self.layer_sizes[1:-1]
        if not hidden or len(set(hidden)) != 1:
            raise ValueError(
                f"ModifiedMLP: the hidden layers must have one width (the gates mix the encoders into "
                f"each), got layer_sizes {self.layer_sizes}"
            )
        first = self._layers[0].W.shape[0]  # the input's width after any embedding
        rng = np.random.default_rng([seed, 2])
        self._encoders = [self._dense(f"_{k}", first, hidden[0], init, rng, dtype) for k in "uv"]

    def construct(self, *xs):
        a = self._features(xs)
        u, v = (self.activation(encoder(a)) for encoder in self._encoders)
        h = a
        for layer in self._layers[:-1]:
            z = self.activation(layer(h))
            h = u + z * (v - u)  # (1 - z) u + z v
        return self._split(self._layers[-1](h))


class ResidualMLP(_PointNetwork):
    """A residual (ResNet-style) MLP: ``h = act(a W_in + b_in)``, then ``blocks`` times
    ``h = h + act(act(h W + b) V + c)``, then a linear output; deep networks train without the
    gradient fading through the layers."""

    def __init__(
        self,
        n_inputs: int,
        width: int,
        blocks: int,
        n_outputs: int = 1,
        activation: str | Callable = "tanh",
        init: str = "glorot_uniform",
        embedding=None,
        seed: int = 0,
        dtype=np.float64,
        factorization: tuple[float, float] | None = None,
    ):
        super().__init__()
        n_inputs, width, n_outputs = (
            whole_number(v, label, "ResidualMLP", 1)
            for v, label in ((n_inputs, "n_inputs"), (width, "width"), (n_outputs, "n_outputs"))
        )
        blocks = whole_number(blocks, "blocks", "ResidualMLP", 0)
        self.n_inputs, self.n_outputs = n_inputs, n_outputs
        self.activation = activation_function(activation)
        self._use_factorization(factorization, seed)
        rng = np.random.default_rng(seed)
        first = self._use_embedding(embedding, n_inputs)

        def layer(name: str, n_in: int, n_out: int) -> _Dense:
            return self._dense(f"_{name}", n_in, n_out, init, rng, dtype)

        self._input = layer("in", first, width)
        self._blocks = [
            (layer(f"{k}a", width, width), layer(f"{k}b", width, width)) for k in range(1, blocks + 1)
        ]
        self._output = layer("out", width, n_outputs)

    def construct(self, *xs):
        a = self._features(xs)
        act = self.activation
        h = act(self._input(a))
        for first, second in self._blocks:
            h = h + act(second(act(first(h))))
        return self._split(self._output(h))


__all__ = [
    "INITIALIZERS",
    "MLP",
    "FourierFeatures",
    "ModifiedMLP",
    "PeriodicEmbedding",
    "ResidualMLP",
    "activation_function",
    "initial_weight",
]
