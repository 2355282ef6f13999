"""MindSpore's random ops: ``normal``, ``standard_normal``, ``uniform``, ``rand``, ``randn_like``,
``randint``, ``dropout`` and the op classes ``UniformReal``, ``UniformInt``, ``StandardNormal``,
``Dropout``.

Their results are constants (no gradient flows through a draw). They follow MindSpore's shapes,
dtypes, ranges and argument checks; the numbers come from NumPy's generator, so they have the same
distribution as MindSpore's but not the same values. The draws are reproducible: ``set_seed``
reseeds them, an op's own ``seed`` picks a stream of its own, and successive calls continue it.
"""

from __future__ import annotations

import numbers

import numpy as np

from symgrad import dtype as mstype
from symgrad import observed, seeding
from symgrad.ops import functional as F
from symgrad.ops.primitives import Primitive
from symgrad.tensor import Tensor

_streams: dict[tuple, np.random.Generator] = {}


def _generator(seed, seed2=0) -> np.random.Generator:
    """The global generator (``set_seed``), or the stream of ``(global seed, seed, seed2)``."""
    if not seed and not seed2:
        return seeding.stream("layers")
    key = (seeding.get_seed() or 0, int(seed), int(seed2))
    if key not in _streams:
        _streams[key] = np.random.default_rng(key)
    return _streams[key]


def _seed(seed, op: str) -> int:
    if seed is None:
        return 0
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"{op}: seed must be None or an int >= 0, got {seed!r}")
    return seed


def _shape(shape, op: str) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = tuple(int(v) for v in shape.asnumpy().ravel())
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, tuple | list) or not all(
        isinstance(n, numbers.Integral) and not isinstance(n, bool) and int(n) >= 0 for n in shape
    ):
        raise TypeError(f"{op}: shape must be a tuple of ints >= 0, got {shape!r}")
    return tuple(int(n) for n in shape)


def _value(v, op: str, name: str) -> np.ndarray:
    if isinstance(v, Tensor):
        return v.asnumpy()
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{op}: {name} must be a Tensor, an int or a float, got {type(v).__name__}")
    return np.asarray(v, np.float32)


def normal(shape, mean, stddev, seed=None) -> Tensor:
    """Draws from N(mean, stddev^2) of shape ``broadcast(shape, mean, stddev)``, float32."""
    size = _shape(shape, "normal")
    mu, sigma = _value(mean, "normal", "mean"), _value(stddev, "normal", "stddev")
    out_shape = np.broadcast_shapes(size, mu.shape, sigma.shape)
    z = _generator(_seed(seed, "normal")).standard_normal(out_shape)
    return Tensor((z * sigma + mu).astype(np.float32))


def standard_normal(shape, seed=None) -> Tensor:
    """Draws from N(0, 1) of ``shape``, float32."""
    return Tensor(
        _generator(_seed(seed, "standard_normal"))
        .standard_normal(_shape(shape, "standard_normal"))
        .astype(np.float32)
    )


def rand(*size, dtype=None, seed=None) -> Tensor:
    """Draws from U[0, 1) of ``size`` (ints, or one tuple), float32 unless ``dtype``."""
    shape = _shape(size[0] if len(size) == 1 and isinstance(size[0], tuple | list) else size, "rand")
    dt = mstype.to_dtype(dtype or mstype.float32)
    if dt.np.kind != "f":
        raise TypeError(f"rand: dtype must be a float type, got {dt}")
    return Tensor(_generator(_seed(seed, "rand")).random(shape).astype(dt.np))


def randn_like(input, seed=None, *, dtype=None) -> Tensor:  # noqa: A002 - MindSpore's name
    """Draws from N(0, 1) of ``input``'s shape, in ``dtype`` (``input``'s by default)."""
    x = F.as_tensor(input, "randn_like", "input")
    dt = mstype.to_dtype(dtype or x.dtype)
    if dt.np.kind != "f":
        raise TypeError(f"randn_like: dtype must be a float type, got {dt}")
    return Tensor(_generator(_seed(seed, "randn_like")).standard_normal(x.shape).astype(dt.np))


def randint(low: int, high: int, size, seed=None, *, dtype=None) -> Tensor:
    """Integers drawn uniformly from [low, high) of ``size``, int64 unless ``dtype``."""
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"randint: {name} must be an int, got {type(v).__name__}")
    if low >= high:
        raise ValueError(f"randint: low {low} must be less than high {high}")
    dt = mstype.to_dtype(dtype or mstype.int64)
    if dt.np.kind not in "iu":
        raise TypeError(f"randint: dtype must be an integer type, got {dt}")
    return Tensor(
        _generator(_seed(seed, "randint")).integers(low, high, _shape(size, "randint")).astype(dt.np)
    )


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32) -> Tensor:
    """Draws from U[minval, maxval) of ``broadcast(shape, minval, maxval)``: floats, or ints for an
    int32 ``dtype`` (``minval``/``maxval`` Tensors of that dtype, as MindSpore asks)."""
    dt = mstype.to_dtype(dtype)
    if dt not in (mstype.float32, mstype.int32):
        raise TypeError(f"uniform: dtype must be float32 or int32, got {dt}")
    for name, v in (("minval", minval), ("maxval", maxval)):
        if not isinstance(v, Tensor) or v.dtype != dt:
            raise TypeError(f"uniform: {name} must be a Tensor of dtype {dt}, got {v!r:.60}")
    lo, hi = minval.asnumpy(), maxval.asnumpy()
    out_shape = np.broadcast_shapes(_shape(shape, "uniform"), lo.shape, hi.shape)
    rng = _generator(_seed(seed, "uniform"))
    if dt == mstype.int32:
        if np.any(lo >= hi):
            raise ValueError("uniform: minval must be less than maxval")
        return Tensor(
            rng.integers(np.broadcast_to(lo, out_shape), np.broadcast_to(hi, out_shape)).astype(np.int32)
        )
    return Tensor((lo + rng.random(out_shape) * (hi - lo)).astype(np.float32))


class _RandomOp(Primitive):
    def __init__(self, seed: int = 0, seed2: int = 0):
        for name, v in (("seed", seed), ("seed2", seed2)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise TypeError(f"{type(self).__name__}: {name} must be an int >= 0, got {v!r}")
        self.seed, self.seed2 = seed, seed2
        self._rng: np.random.Generator | None = None

    def _generator(self) -> np.random.Generator:
        """The global generator for seeds 0, else this op's own stream (set_seed at its first call)."""
        if not self.seed and not self.seed2:
            return _generator(0)
        if self._rng is None:
            self._rng = np.random.default_rng((seeding.get_seed() or 0, self.seed, self.seed2))
        return self._rng


class UniformReal(_RandomOp):
    """``UniformReal(seed=0, seed2=0)(shape)``: float32 draws from U[0, 1)."""

    def __call__(self, shape) -> Tensor:
        return Tensor(self._generator().random(_shape(shape, "UniformReal")).astype(np.float32))


class StandardNormal(_RandomOp):
    """``StandardNormal(seed=0, seed2=0)(shape)``: float32 draws from N(0, 1)."""

    def __call__(self, shape) -> Tensor:
        return Tensor(self._generator().standard_normal(_shape(shape, "StandardNormal")).astype(np.float32))


class UniformInt(_RandomOp):
    """``UniformInt(seed=0, seed2=0)(shape, minval, maxval)``: int32 draws from [minval, maxval)
    (``minval``/``maxval``: int32 scalar Tensors)."""

    def __call__(self, shape, minval, maxval) -> Tensor:
        for name, v in (("minval", minval), ("maxval", maxval)):
            if not isinstance(v, Tensor) or v.dtype != mstype.int32 or v.size != 1:
                raise TypeError(f"UniformInt: {name} must be an int32 Tensor of one element, got {v!r:.60}")
        lo, hi = int(minval.asnumpy().ravel()[0]), int(maxval.asnumpy().ravel()[0])
        if lo >= hi:
            raise ValueError(f"UniformInt: minval {lo} must be less than maxval {hi}")
        return Tensor(self._generator().integers(lo, hi, _shape(shape, "UniformInt")).astype(np.int32))


def kept(x: Tensor, keep: float, rng: np.random.Generator | None, who: str) -> Tensor:
    """Dropout's scaled mask for ``x``: each element kept with probability ``keep`` (1 / keep where
    kept, 0 elsewhere), drawn from ``rng`` or the dropout stream. A constant: the gradient flows
    through the product with it, as in MindSpore."""
    if not isinstance(x, Tensor) or not x.dtype.is_float:
        got = f"Tensor[{x.dtype}]" if isinstance(x, Tensor) else type(x).__name__
        raise TypeError(
            f"For '{who}', the input must be a float16, float32 or float64 Tensor, but got {got}."
        )
    draws = (rng or seeding.stream("dropout")).random(x.shape)
    observed.note_state_change()  # the generator moved: jit must not reuse this call's mask
    scale = np.asarray(1.0 / keep, x.dtype.np)
    return Tensor(np.where(draws < keep, scale, np.zeros((), x.dtype.np)).astype(x.dtype.np))


def dropout(input, p: float = 0.5, training: bool = True, seed=None) -> Tensor:  # noqa: A002 - MindSpore's name
    """Zero each element with probability ``p``, the rest scaled by 1 / (1 - p); ``input`` itself
    when not ``training`` or ``p`` is 0 (``mindspore.ops.dropout``)."""
    if isinstance(p, bool) or not isinstance(p, float | int) or not 0 <= p <= 1:
        raise ValueError(f"For 'dropout', 'p' must be a number in [0, 1], got {p!r}")
    x = F.as_tensor(input, "dropout", "input")
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0
    seed = _seed(seed, "dropout")
    return x * kept(x, 1.0 - p, _generator(seed) if seed else None, "dropout")


class Dropout(_RandomOp):
    """``Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x)``: ``(output, mask)``, each element kept with
    probability ``keep_prob`` (output = x * mask / keep_prob; mask 1 or 0 in x's dtype), in
    training or not, as MindSpore's primitive."""

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0):  # noqa: N803 - MindSpore's names
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, float | int) or not 0 < keep_prob <= 1:
            raise ValueError(
                f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], but got {keep_prob!r}."
            )
        super().__init__(Seed0, Seed1)
        self.keep_prob = float(keep_prob)

    def __call__(self, x):
        rng = self._generator() if (self.seed or self.seed2) else None
        scaled = kept(x, self.keep_prob, rng, "Dropout")
        mask = Tensor((scaled.asnumpy() != 0).astype(x.dtype.np))
        return x * scaled, mask


__all__ = [
    "Dropout",
    "StandardNormal",
    "UniformInt",
    "UniformReal",
    "normal",
    "rand",
    "randint",
    "randn_like",
    "dropout",
    "standard_normal",
    "uniform",
]
