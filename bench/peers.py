"""The peer frameworks' versions of the benchmark network, shared by the bench scripts."""

from __future__ import annotations


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
