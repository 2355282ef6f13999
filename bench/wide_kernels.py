"""Wide layers (issue 45): the Burgers residual and its loss gradient at H = 128-512, symgrad's C
kernels against JAX and PyTorch in the same run, and each against this CPU's arithmetic floor.

Networks: a tanh MLP [2, H, H, H, 1] and the modified MLP of Wang, Teng & Perdikaris with the
same layers (``symgrad.pinn.ModifiedMLP``), float64. Work as in ``bench/pinn.py``:
  residual       u, u_t, u_x, u_xx and r = u_t + u*u_x - nu*u_xx
  res+grad       r, mean(r^2) and its gradient for every weight
Every framework runs on 2 threads (OpenMP, torch.set_num_threads, XLA's CPU pool) and must agree
with symgrad to 1e-8. The floor is the kernel's multiply-adds (its products and weight
gradients, counted on its graph) at the rate of a 4000 x 4000 dgemm measured in the same run
(NumPy's OpenBLAS on 2 threads); elementwise work is not counted, so 1.0x is not reachable.

    python bench/wide_kernels.py                        # H = 128 256 512, N = 1e4 1e5, both networks
    python bench/wide_kernels.py --H 256 --N 1e4 --net mlp
    python bench/wide_kernels.py --per-point             # symgrad's per-point program instead of tiles
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=2")

import numpy as np
from peers import agree, jax_burgers, tanh_mlp, timed, torch_burgers

NU = 0.01 / np.pi


def networks(kind: str, H: int):
    """The symgrad network and its weights in ``params`` order."""
    from symgrad.models import PointMLP
    from symgrad.pinn import ModifiedMLP

    net = PointMLP([2, H, H, H, 1]) if kind == "mlp" else ModifiedMLP([2, H, H, H, 1])
    return net, [p.asnumpy() for p in net.params]


def forward(kind: str, np_like, Ws, a):
    """u for points ``a`` (..., 2) with weights in ``params`` order, in any array library."""
    if kind == "mlp":
        return tanh_mlp(np_like, Ws, a)
    layers, (Wu, bu, Wv, bv) = Ws[:-4], Ws[-4:]
    U, V, h = np_like.tanh(a @ Wu + bu), np_like.tanh(a @ Wv + bv), a
    for k in range(0, len(layers) - 2, 2):
        z = np_like.tanh(h @ layers[k] + layers[k + 1])
        h = U + z * (V - U)
    return (h @ layers[-2] + layers[-1])[..., 0]


def symgrad_runner(kind: str, H: int):
    import symgrad
    from symgrad.models import burgers_terms

    net, weights = networks(kind, H)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    args = [x, t, *net.params]
    residual = symgrad.kernel([terms[k] for k in ("u", "ut", "ux", "uxx", "r")], args, "c")
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    reduce = [None, "mean"] + ["mean"] * len(grads)
    loss = symgrad.kernel([terms["r"], terms["r"] ** 2, *grads], args, "c", reduce=reduce)
    work = [multiply_adds(k) for k in (residual, loss)]
    tiled = residual._fn.point.tiled
    return tiled, work, (lambda xs, ts: residual(xs, ts, *weights)), (lambda xs, ts: loss(xs, ts, *weights))


def multiply_adds(kernel) -> int:
    """Multiply-adds per point of a C kernel's products and batch-summed outer products."""
    from lowering import batch_sums
    from lowering.c.point_program import size_of
    from symgrad.core.graph import topo_order
    from symgrad.core.registry import CONTRACTION, lookup

    function = kernel._fn
    plans, leaves = batch_sums.plan_batch_sums(function.outputs, function.reductions)
    count = 0
    for node in topo_order(leaves):
        if node.args and lookup(node.op).pattern == CONTRACTION:
            a, _ = node.args
            inner = (a.shape[0] if node.params[0] else a.shape[-1]) if a.ndim else 1
            count += size_of(node) * inner
    stack = list(plans.values())
    while stack:
        plan = stack.pop()
        if isinstance(plan, batch_sums.SignedSum):
            stack += [term for _, term in plan.terms]
        elif isinstance(plan, batch_sums.Reshaped):
            stack.append(plan.inner)
        elif isinstance(plan, batch_sums.OuterSum):
            count += size_of(plan.a) * size_of(plan.b)
    return count


def torch_runner(kind: str, H: int):
    return torch_burgers(lambda torch, Ws, a: forward(kind, torch, Ws, a), networks(kind, H)[1], NU)


def jax_runner(kind: str, H: int):
    return jax_burgers(lambda jnp, Ws, a: forward(kind, jnp, Ws, a), networks(kind, H)[1], NU)


def dgemm_rate(size: int = 4000) -> float:
    """Multiply-adds per second of NumPy's dgemm on this machine now (best of 3)."""
    a, b = np.random.default_rng(0).random((2, size, size))
    a @ b
    best = min(_seconds(lambda: a @ b) for _ in range(3))
    return size**3 / best


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--H", type=int, nargs="+", default=[128, 256, 512])
    parser.add_argument("--N", type=float, nargs="+", default=[1e4, 1e5])
    parser.add_argument("--net", choices=["mlp", "modified"], nargs="+", default=["mlp", "modified"])
    parser.add_argument("--per-point", action="store_true", help="symgrad's per-point program at every width")
    args = parser.parse_args()
    if args.per_point:
        import lowering.c.tiles

        lowering.c.tiles.WIDE_ELEMENTS = 10**12
    peers = {p: r for p, r in (("jax", jax_runner), ("torch", torch_runner)) if importlib.util.find_spec(p)}
    print(f"# 2 threads each; peers: {', '.join(peers)}; float64; dgemm floor measured per row")
    print(
        "| net | H | N | program | work | symgrad ms | "
        + " | ".join(f"{p} ms" for p in peers)
        + " | x best peer | x floor | floor ms | max rel diff |"
    )
    print("|---" * (9 + len(peers)) + "|")
    for kind in args.net:
        for H in args.H:
            tiled, work, *ours = symgrad_runner(kind, H)
            theirs = {p: runner(kind, H) for p, runner in peers.items()}
            for N in (int(n) for n in args.N):
                rng = np.random.default_rng(1)
                xs, ts = rng.uniform(-1, 1, N), rng.uniform(0, 1, N)
                repeat = 3 if N * H * H <= 10**9 else 1
                rate = dgemm_rate()
                for which, label in enumerate(("residual", "res+grad")):
                    ms, result = timed(ours[which], xs, ts, repeat=repeat)
                    peer_ms, diff, failed = {}, 0.0, {}
                    for p, fns in theirs.items():
                        try:
                            seconds, got = timed(fns[which], xs, ts, repeat=repeat)
                        except Exception as error:  # a peer out of memory is reported, not fatal
                            peer_ms[p], failed[p] = math.nan, f"{type(error).__name__}"
                            continue
                        peer_ms[p], diff = seconds, max(diff, agree(got, result))
                    assert diff < 1e-8, f"frameworks disagree: {diff:.1e}"
                    floor = N * work[which] / rate
                    best = min((s for s in peer_ms.values() if math.isfinite(s)), default=math.nan)
                    print(
                        f"| {kind} | {H} | {N:.0e} | {'tiled' if tiled else 'per point'} | {label} | {1e3 * ms:.0f} | "
                        + " | ".join(failed.pop(p, None) or f"{1e3 * s:.0f}" for p, s in peer_ms.items())
                        + f" | {ms / best:.2f} | {ms / floor:.2f} | {1e3 * floor:.0f} | {diff:.0e} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
