"""Higher derivatives along one input (issue 11): u_x..u_x^(K) of a tanh MLP [2, H, H, H, 1], float64.

symgrad: ``symgrad.derivatives(u, 0, K)`` (one Taylor sweep) lowered to NumPy and C, and the
nested ``grad`` the PINN problems used before, K levels deep (C only). Peers in the same run:
JAX's Taylor mode (``jax.experimental.jet``) and nested ``jax.grad``, both jit(vmap). All
must agree to 1e-9 (relative, on the K-th derivative). Prints the kernels' op counts, first
builds (compile) and times, and ratios (symgrad Taylor on C / peer).

    python bench/taylor.py [--points 10000] [--orders 3 4 6] [--width 32]
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import time

import numpy as np
from peers import fresh_cache_backends, layer_weights, timed


def symgrad_runners(weights: list[np.ndarray], order: int, backends: list[str]) -> dict:
    import symgrad
    from symgrad import ops

    params = [symgrad.Parameter(w, name=f"{'Wb'[k % 2]}{k // 2 + 1}") for k, w in enumerate(weights)]

    def u(x, t):
        a = ops.stack([x, t])
        for k in range(0, len(params) - 2, 2):
            a = ops.tanh(ops.matmul(a, params[k]) + params[k + 1])
        return (ops.matmul(a, params[-2]) + params[-1])[0]

    def nested(x, t):
        f = u
        for _ in range(order):
            f = ops.grad(f, 0)
        return f(x, t)

    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    plans = [(f"taylor {b}", b, lambda: symgrad.derivatives(u, 0, order)(x, t)[-1]) for b in backends]
    if "c" in backends:
        plans.append(("nested grad c", "c", lambda: nested(x, t)))
    runners = {}
    for name, backend, build_graph in plans:
        start = time.perf_counter()
        kernel = symgrad.kernel([build_graph()], [x, t, *params], backend=backend)
        kernel(np.zeros(2), np.zeros(2), *weights)  # the first call compiles
        build = time.perf_counter() - start
        runners[name] = (build, kernel.op_count, lambda xs, ts, k=kernel: k(xs, ts, *weights)[0])
    return runners


def jax_runners(weights: list[np.ndarray], order: int) -> dict:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.experimental.jet import jet

    ws = [jnp.asarray(w) for w in weights]

    def u(x, t):
        a = jnp.stack([x, t])
        for k in range(0, len(ws) - 2, 2):
            a = jnp.tanh(a @ ws[k] + ws[k + 1])
        return (a @ ws[-2] + ws[-1])[0]

    def by_jet(x, t):
        _, series = jet(lambda v: u(v, t), (x,), ((1.0,) + (0.0,) * (order - 1),))
        return series[-1]

    nested = u
    for _ in range(order):
        nested = jax.grad(nested, 0)

    def run(fn, xs, ts):
        return np.asarray(jax.block_until_ready(fn(xs, ts)))

    runners = {}
    for name, fn in (("jax jet", by_jet), ("jax nested grad", nested)):
        compiled = jax.jit(jax.vmap(fn))
        start = time.perf_counter()
        run(compiled, np.zeros(2), np.zeros(2))  # the first call compiles (for this batch size)
        runners[name] = (time.perf_counter() - start, lambda xs, ts, f=compiled: run(f, xs, ts))
    return runners


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--orders", type=int, nargs="+", default=[3, 4, 6])
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--backends", nargs="+", default=None)
    args = ap.parse_args()
    backends = fresh_cache_backends(args.backends)
    has_jax = importlib.util.find_spec("jax") is not None
    versions = f"numpy {np.__version__}" + (f", jax {__import__('jax').__version__}" if has_jax else "")
    print(f"# {platform.machine()} Python {platform.python_version()}, {versions}; ", end="")
    print(f"[2, {args.width}, {args.width}, {args.width}, 1], N = {args.points}, float64")
    print("| K | method | kernel ops | build s | ms | taylor c / this |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(1)
    xs, ts = rng.uniform(-1, 1, args.points), rng.uniform(0, 1, args.points)
    weights = layer_weights([2, args.width, args.width, args.width, 1])
    for order in args.orders:
        rows, results = [], []
        for name, (build, ops_count, run) in symgrad_runners(weights, order, backends).items():
            t, out = timed(run, xs, ts)
            rows.append((name, str(ops_count), build, t))
            results.append(out)
        for name, (build, run) in (jax_runners(weights, order) if has_jax else {}).items():
            t, out = timed(run, xs, ts)  # timed() warms up: JAX compiles again for N points
            rows.append((name, "-", build, t))
            results.append(out)
        ref = results[0]
        diff = max(float(np.max(np.abs(r - ref)) / np.max(np.abs(ref))) for r in results)
        assert diff < 1e-9, f"disagreement {diff:.1e}"
        base = dict((name, t) for name, _, _, t in rows).get("taylor c")
        for name, ops_count, build, t in rows:
            ratio = f"{base / t:.2f}" if base is not None else "-"
            print(f"| {order} | {name} | {ops_count} | {build:.2f} | {1e3 * t:.1f} | {ratio} |", flush=True)
        print(f"<!-- K = {order}: max rel diff {diff:.1e} -->")


if __name__ == "__main__":
    main()
