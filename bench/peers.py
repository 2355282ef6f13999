"""Shared by the bench scripts: timing, the benchmark networks' weights, and the peer
frameworks' versions of the network."""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np


def timed(fn, *args, repeat: int = 3) -> tuple[float, object]:
    """Best wall time of ``repeat`` calls of ``fn(*args)`` (after one warm-up) and the result."""
    out = fn(*args)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, out


def fresh_cache_backends(requested: list[str] | None) -> list[str]:
    """symgrad's backends to bench (``requested``, else numpy and c where available), with an
    empty kernel cache so that build times are first compiles."""
    os.environ["SYMGRAD_CACHE"] = tempfile.mkdtemp()
    import lowering

    return requested or [b for b in ("numpy", "c") if b in lowering.available_backends()]


def layer_weights(sizes: list[int], seed: int = 0) -> list[np.ndarray]:
    """Glorot-uniform weights and small biases ``[W1, b1, W2, b2, ...]`` for layers ``sizes``."""
    rng = np.random.default_rng(seed)
    weights = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        weights += [rng.uniform(-1, 1, (a, b)) * np.sqrt(6 / (a + b)), rng.uniform(-0.1, 0.1, b)]
    return weights


def jax_point_derivatives():
    """JAX (float64): the per-point tanh MLP u(Ws, x, t) and its u_x, u_t, u_xx, as jax.grad builds them."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def u(Ws, x, t):
        a = jnp.stack([x, t])
        for k in range(0, len(Ws) - 2, 2):
            a = jnp.tanh(a @ Ws[k] + Ws[k + 1])
        return (a @ Ws[-2] + Ws[-1])[0]

    u_x, u_t = jax.grad(u, 1), jax.grad(u, 2)
    return jax, u, u_x, u_t, jax.grad(u_x, 1)
