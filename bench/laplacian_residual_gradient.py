"""A Laplacian residual's loss and weight gradient: one training step's work of a 2-D PINN.

The Helmholtz residual of DeepXDE's gallery, r = -lap u - k^2 u - k^2 sin(kx) sin(ky) (k = 2 pi),
on a sin MLP [2, H, H, H, 1] at N points, float64, 2 threads each: mean(r^2) and its gradient for
every weight by symgrad (``ResidualLoss``, the C kernel: the Laplacian by a forward-Laplacian
sweep), PyTorch (autograd: the second derivatives by double backward) and JAX (jit of the loss
gradient through vmap of the per-point Hessian's trace) in the same run. All must agree to 1e-8
(relative). Prints the best of 5 calls after a warm-up, in ms, and symgrad / best peer.

    python bench/laplacian_residual_gradient.py [--H 50 128 350] [--N 465 10000]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=2")

import numpy as np
from peers import agree, mlp, timed

K = 2 * np.pi


def symgrad_runner(H: int):
    """symgrad's loss and gradients at (2, N) points, and the network's weights."""
    from symgrad import ops
    from symgrad.pinn import MLP, ResidualLoss, laplacian

    net = MLP([2, H, H, H, 1], "sin", "glorot_uniform", seed=0)

    def residual(x, y):
        return -laplacian(net, (0, 1))(x, y) - K**2 * net(x, y) - K**2 * ops.sin(K * x) * ops.sin(K * y)

    loss = ResidualLoss(residual, ("x", "y"), net, backend="c")

    def run(points):
        value, grads = loss(points)
        return [np.asarray(value), *grads]

    return run, [p.asnumpy() for p in net.params]


def torch_runner(weights: list[np.ndarray]):
    import torch

    torch.set_num_threads(2)
    W = [torch.tensor(w) for w in weights]

    def run(points):
        Ws = [w.clone().requires_grad_(True) for w in W]
        x, y = (torch.tensor(row, requires_grad=True) for row in points)
        u = mlp(torch, Ws, torch.stack([x, y], dim=1), "sin")
        u_x, u_y = torch.autograd.grad(u.sum(), (x, y), create_graph=True)
        (u_xx,) = torch.autograd.grad(u_x.sum(), x, create_graph=True)
        (u_yy,) = torch.autograd.grad(u_y.sum(), y, create_graph=True)
        r = -(u_xx + u_yy) - K**2 * u - K**2 * torch.sin(K * x) * torch.sin(K * y)
        value = torch.mean(r**2)
        return [value.detach().numpy(), *(g.numpy() for g in torch.autograd.grad(value, Ws))]

    return run


def jax_runner(weights: list[np.ndarray]):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def u(Ws, p):
        return mlp(jnp, Ws, p, "sin")

    def r(Ws, p):
        lap = jnp.trace(jax.hessian(u, argnums=1)(Ws, p))
        return -lap - K**2 * u(Ws, p) - K**2 * jnp.sin(K * p[0]) * jnp.sin(K * p[1])

    def loss(Ws, ps):
        return jnp.mean(jax.vmap(r, in_axes=(None, 0))(Ws, ps) ** 2)

    step = jax.jit(jax.value_and_grad(loss))
    W = [jnp.asarray(w) for w in weights]

    def run(points):
        value, grads = step(W, jnp.asarray(points.T))
        return [np.asarray(value), *(np.asarray(g) for g in grads)]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--H", type=int, nargs="+", default=[50, 128, 350])
    parser.add_argument("--N", type=int, nargs="+", default=[465, 10000])
    args = parser.parse_args()
    peers = {p: r for p, r in (("torch", torch_runner), ("jax", jax_runner)) if importlib.util.find_spec(p)}
    print(f"# 2 threads each; peers: {', '.join(peers) or 'none installed'}; float64; best of 5 calls")
    print(
        "| H | N | symgrad ms | " + " | ".join(f"{p} ms" for p in peers) + " | x best peer | max rel diff |"
    )
    print("|---" * (5 + len(peers)) + "|")
    for H in args.H:
        ours, weights = symgrad_runner(H)
        theirs = {p: runner(weights) for p, runner in peers.items()}
        for N in args.N:
            points = np.random.default_rng(1).uniform(-0.5, 0.5, (2, N))
            ms, result = timed(ours, points, repeat=5)
            peer_ms, diff = {}, 0.0
            for p, run in theirs.items():
                peer_ms[p], got = timed(run, points, repeat=5)
                diff = max(diff, agree(got, result))
            assert diff < 1e-8, f"frameworks disagree: {diff:.1e}"
            best = min(peer_ms.values(), default=math.nan)
            print(
                f"| {H} | {N} | {1e3 * ms:.1f} | "
                + " | ".join(f"{1e3 * s:.1f}" for s in peer_ms.values())
                + f" | {ms / best:.2f} | {diff:.0e} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
