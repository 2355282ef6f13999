"""The global seed (MindSpore's ``set_seed``/``get_seed``) and the generators it seeds.

Each user of randomness (layer initializers, dropout masks, random ops) draws from its own named
stream, so one does not shift another's numbers; ``set_seed`` restarts every stream from the seed,
and seeds ``numpy.random`` too, as MindSpore does. It imports nothing of symgrad, so ``nn`` and
``ops`` can both read it.
"""

from __future__ import annotations

import numpy as np

_seed: int | None = None
_streams: dict[str, np.random.Generator] = {}


def set_seed(seed: int) -> None:
    """The global seed, as MindSpore's ``set_seed``: it seeds the initializers of new layers, the
    masks of ``Dropout``, the random ops and ``numpy.random``."""
    global _seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"The argument 'seed' must be type of int, but got {type(seed)}.")
    if seed < 0:
        raise ValueError(f"set_seed: seed must be >= 0, got {seed}")
    np.random.seed(seed)
    _streams.clear()
    _seed = seed


def get_seed() -> int | None:
    """The seed ``set_seed`` last set (None before), as MindSpore's ``get_seed``."""
    return _seed


def stream(name: str) -> np.random.Generator:
    """The generator of ``name`` ("layers", "dropout", ...): started from the global seed (0 before
    ``set_seed``) at its first use after each ``set_seed``."""
    if name not in _streams:
        _streams[name] = np.random.default_rng(_seed or 0)
    return _streams[name]
