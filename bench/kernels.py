"""Lowering benchmark (issue 3): compile time and per-call time of symgrad's NumPy kernel
against SymPy's lambdify(cse=True) and JAX jit, on u, u_x, u_t, u_xx of a tanh MLP.

SymPy needs the network as one flat expression; past small networks that alone takes
minutes (issue 2 measured 67 s to build [2, 32, 32, 1]), so it runs on the small sizes only.

    python bench/kernels.py
"""

from __future__ import annotations

import importlib.util
import platform
import time

import numpy as np
import sympy
from peers import jax_point_derivatives, timed

import symgrad
from symgrad.closed_form import to_sympy
from symgrad.models import PointMLP

SYMPY_SIZES = {8, 12}


def symgrad_kernel(net):
    start = time.perf_counter()
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    u_x, u_t = symgrad.ops.grad(net, 0), symgrad.ops.grad(net, 1)
    outs = [net(x, t), u_x(x, t), u_t(x, t), symgrad.ops.grad(u_x, 0)(x, t)]
    kernel = symgrad.kernel(outs, [x, t, *net.params])
    weights = [p.asnumpy() for p in net.params]
    return time.perf_counter() - start, lambda xs, ts: kernel(xs, ts, *weights), outs


def sympy_lambdify(net, outs):
    """The same four outputs flattened to SymPy (weights as numbers), then lambdify(cse=True)."""
    start = time.perf_counter()
    xs, ts = sympy.symbols("x t")
    table = {}
    for var in {v for o in outs for v in symgrad.core.graph.free_vars([o._node])}:
        if var.param is not None:
            table[var] = np.vectorize(lambda v: sympy.Float(float(v)), otypes=[object])(var.param.asnumpy())
        else:
            table[var] = np.array(xs if var.display_name == "x" else ts, dtype=object)
    exprs = [e[()] for e in to_sympy([o._node for o in outs], table)]
    fn = sympy.lambdify((xs, ts), exprs, "numpy", cse=True)
    return time.perf_counter() - start, fn


def jax_jit(weights):
    start = time.perf_counter()
    jax, u, u_x, u_t, u_xx = jax_point_derivatives()
    import jax.numpy as jnp

    fn = jax.jit(
        jax.vmap(
            lambda W, x, t: (u(W, x, t), u_x(W, x, t), u_t(W, x, t), u_xx(W, x, t)), in_axes=(None, 0, 0)
        )
    )
    W = [jnp.asarray(w) for w in weights]
    fn(W, np.zeros(4), np.zeros(4))  # compile once
    return time.perf_counter() - start, lambda a, b: jax.block_until_ready(fn(W, a, b))


def main() -> None:
    has_jax = importlib.util.find_spec("jax") is not None
    print(
        f"# {platform.machine()} Python {platform.python_version()}, numpy {np.__version__}, sympy {sympy.__version__}"
        + (f", jax {__import__('jax').__version__}" if has_jax else "")
    )
    print(
        "| network | N | symgrad compile s | symgrad ms | lambdify compile s | lambdify ms (x) | jax compile s | jax ms (x) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for H, depth in ((8, 2), (12, 2), (32, 3)):
        net = PointMLP([2] + [H] * depth + [1])
        compile_s, run, outs = symgrad_kernel(net)
        lam = sympy_lambdify(net, outs) if H in SYMPY_SIZES else None
        jx = jax_jit([p.asnumpy() for p in net.params]) if has_jax else None
        for N in (1_000, 10_000, 100_000, 1_000_000):
            rng = np.random.default_rng(0)
            xs, ts = rng.uniform(-1, 1, N), rng.uniform(0, 1, N)
            t_sg, ref = timed(run, xs, ts)
            row = [f"[2, {H} x {depth}, 1]", f"{N:.0e}", f"{compile_s:.3f}", f"{1e3 * t_sg:.1f}"]
            for peer in (lam, jx):
                if peer is None:
                    row += ["-", "-"]
                    continue
                t_p, got = timed(peer[1], xs, ts)
                diff = max(
                    float(np.max(np.abs(np.asarray(g) - r)) / max(1e-300, float(np.max(np.abs(r)))))
                    for g, r in zip(got, ref)
                )
                assert diff < 1e-8, f"disagreement {diff:.1e}"
                row += [f"{peer[0]:.2f}", f"{1e3 * t_p:.1f} ({t_p / t_sg:.2f})"]
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
