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


def mlp(np_like, Ws, a, activation: str = "tanh"):
    """u of an MLP with weights ``[W1, b1, ...]`` at points ``a`` (..., inputs), any array library;
    ``activation`` names the library's function (``np_like.tanh``, ``np_like.sin``)."""
    act = getattr(np_like, activation)
    for k in range(0, len(Ws) - 2, 2):
        a = act(a @ Ws[k] + Ws[k + 1])
    return (a @ Ws[-2] + Ws[-1])[..., 0]


def tanh_mlp(np_like, Ws, a):
    """u of a tanh MLP with weights ``[W1, b1, ...]`` at points ``a`` (..., inputs), any array library."""
    return mlp(np_like, Ws, a)


def torch_burgers(forward, weights, nu: float):
    """PyTorch's Burgers residual terms (u, u_t, u_x, u_xx, r) and loss with its weight gradients,
    for ``u = forward(torch, Ws, points)``; 2 threads."""
    import torch

    torch.set_num_threads(2)
    W = [torch.tensor(w) for w in weights]

    def terms(Ws, xs, ts, graph):
        x, t = torch.tensor(xs, requires_grad=True), torch.tensor(ts, requires_grad=True)
        u = forward(torch, Ws, torch.stack([x, t], dim=1))
        u_x, u_t = torch.autograd.grad(u.sum(), (x, t), create_graph=True)
        (u_xx,) = torch.autograd.grad(u_x.sum(), x, create_graph=graph)
        return u, u_t, u_x, u_xx, u_t + u * u_x - nu * u_xx

    def residual(xs, ts):
        return [v.detach().numpy() for v in terms(W, xs, ts, False)]

    def loss(xs, ts):
        Ws = [w.clone().requires_grad_(True) for w in W]
        r = terms(Ws, xs, ts, True)[-1]
        value = torch.mean(r**2)
        return [r.detach().numpy(), value.item(), *(g.numpy() for g in torch.autograd.grad(value, Ws))]

    return residual, loss


def jax_burgers_functions(forward, nu: float):
    """JAX's jitted Burgers functions ``(batched(Ws, xs, ts) -> (u, u_t, u_x, u_xx, r),
    grad_fn(Ws, xs, ts) -> ((mean r^2, r), grads))``: jit of vmap of per-point jax.grad."""
    import jax
    import jax.numpy as jnp

    def u(Ws, x, t):
        return forward(jnp, Ws, jnp.stack([x, t]))

    u_x, u_t = jax.grad(u, 1), jax.grad(u, 2)
    u_xx = jax.grad(u_x, 1)

    def point(Ws, x, t):
        v, vx, vt, vxx = u(Ws, x, t), u_x(Ws, x, t), u_t(Ws, x, t), u_xx(Ws, x, t)
        return v, vt, vx, vxx, vt + v * vx - nu * vxx

    batched = jax.jit(jax.vmap(point, in_axes=(None, 0, 0)))

    def mean_r2(Ws, xs, ts):
        r = batched(Ws, xs, ts)[-1]
        return jnp.mean(r**2), r

    return batched, jax.jit(jax.value_and_grad(mean_r2, has_aux=True))


def jax_burgers(forward, weights, nu: float):
    """JAX's (float64, jit of vmap of per-point jax.grad) Burgers residual terms and loss with its
    weight gradients, for ``u = forward(jnp, Ws, point)``."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    batched, grad_fn = jax_burgers_functions(forward, nu)
    W = [jnp.asarray(w) for w in weights]

    def residual(xs, ts):
        return [np.asarray(v) for v in jax.block_until_ready(batched(W, xs, ts))]

    def loss(xs, ts):
        (value, r), grads = jax.block_until_ready(grad_fn(W, xs, ts))
        return [np.asarray(r), float(value), *(np.asarray(g) for g in grads)]

    return residual, loss


def agree(a, b) -> float:
    """Largest difference between two lists of arrays, relative to each array's largest value."""
    worst = 0.0
    for x, y in zip(a, b):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        worst = max(worst, float(np.max(np.abs(x - y)) / max(1e-300, float(np.max(np.abs(y))))))
    return worst
