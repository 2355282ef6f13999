"""Laplacian benchmark (issue 11): sum_i d^2u/dx_i^2 of a tanh MLP [d, 64, 64, 1], float64.

symgrad builds it with one forward-Laplacian sweep (``symgrad.laplacian``) and lowers it to
the NumPy and C backends; the peers in the same run are JAX (jit(vmap(trace(hessian))))
and folx (jit(vmap(forward_laplacian))). All must agree to 1e-9 (relative). Prints times
and ratios (best symgrad backend / peer); compile = first build of the kernel.

    python bench/laplacian.py [--points 10000] [--dims 10 100] [--width 64]
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import time

import numpy as np
from peers import fresh_cache_backends, layer_weights, timed


def symgrad_runner(weights: list[np.ndarray], d: int, backend: str):
    import symgrad
    from symgrad import ops

    params = [symgrad.Parameter(w, name=f"{'Wb'[k % 2]}{k // 2 + 1}") for k, w in enumerate(weights)]

    def u(x):
        a = x
        for k in range(0, len(params) - 2, 2):
            a = ops.tanh(ops.matmul(a, params[k]) + params[k + 1])
        return (ops.matmul(a, params[-2]) + params[-1])[0]

    start = time.perf_counter()
    x = symgrad.placeholder("x", (d,))
    kernel = symgrad.kernel([symgrad.laplacian(u)(x)], [x, *params], backend=backend)
    kernel(np.zeros((2, d)), *weights)  # the first call compiles
    build = time.perf_counter() - start
    return build, lambda xs: kernel(xs, *weights)[0]


def jax_runner(weights: list[np.ndarray]):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    ws = [jnp.asarray(w) for w in weights]

    def u(x):
        a = x
        for k in range(0, len(ws) - 2, 2):
            a = jnp.tanh(a @ ws[k] + ws[k + 1])
        return (a @ ws[-2] + ws[-1])[0]

    lap = jax.jit(jax.vmap(lambda x: jnp.trace(jax.hessian(u)(x))))
    folx_lap = None
    if importlib.util.find_spec("folx") is not None:
        import folx

        folx_lap = jax.jit(jax.vmap(lambda x: folx.forward_laplacian(u)(x).laplacian))
    return jax, lap, folx_lap


def compiled(jax, fn, xs) -> tuple[float, object]:
    start = time.perf_counter()
    jax.block_until_ready(fn(xs))
    return time.perf_counter() - start, lambda a: np.asarray(jax.block_until_ready(fn(a)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--dims", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--backends", nargs="+", default=None)
    args = ap.parse_args()
    backends = fresh_cache_backends(args.backends)
    has_jax = importlib.util.find_spec("jax") is not None
    versions = f"numpy {np.__version__}"
    if has_jax:
        versions += f", jax {__import__('jax').__version__}"
        if importlib.util.find_spec("folx") is not None:
            versions += f", folx {__import__('importlib.metadata').metadata.version('folx')}"
    print(
        f"# {platform.machine()} Python {platform.python_version()}, {versions}; N = {args.points}, float64"
    )
    head = (
        ["d"]
        + [f"{b} build s | {b} ms" for b in backends]
        + ["jax build s | jax ms (x)", "folx build s | folx ms (x)"]
    )
    print("| " + " | ".join(head) + " | max rel diff |")
    print("|" + "---|" * (1 + 2 * len(backends) + 4 + 1))
    for d in args.dims:
        weights = layer_weights([d, args.width, args.width, 1])
        xs = np.random.default_rng(1).uniform(-1, 1, (args.points, d))
        row, results, best = [str(d)], [], float("inf")
        for backend in backends:
            build, run = symgrad_runner(weights, d, backend)
            t, out = timed(run, xs)
            results.append(out)
            best = min(best, t)
            row += [f"{build:.2f}", f"{1e3 * t:.1f}"]
        peers = []
        if has_jax:
            jax, lap, folx_lap = jax_runner(weights)
            peers = [lap, folx_lap]
        for fn in peers + [None] * (2 - len(peers)):
            if fn is None:
                row += ["-", "-"]
                continue
            build, run = compiled(jax, fn, xs)
            t, out = timed(run, xs)
            results.append(out)
            row += [f"{build:.2f}", f"{1e3 * t:.1f} ({best / t:.2f})"]
        ref = results[0]
        diff = max(float(np.max(np.abs(r - ref)) / np.max(np.abs(ref))) for r in results)
        assert diff < 1e-9, f"disagreement {diff:.1e}"
        print("| " + " | ".join(row) + f" | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
