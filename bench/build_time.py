"""Build-time benchmark: deriving the Burgers PINN terms, symgrad vs SymPy's flat expressions.

Workload (issue 2): per-point u(x, t) tanh MLP with every weight symbolic; derive u,
u_x, u_t, u_xx and d(r^2)/d(every weight) for r = u_t + u*u_x - 0.01/pi*u_xx.

symgrad keeps the network as a graph of shared tensor nodes. The peer builds the same
network as one flat SymPy expression and differentiates it with sympy.diff; it is run on
small networks only (it takes minutes from [2, 32, 32, 1] on, as measured in issue 2)
and compared on the same small networks.

    python bench/build_time.py
"""

from __future__ import annotations

import math
import platform
import time

import numpy as np
import sympy

import symgrad
from symgrad.core.graph import count_ops
from symgrad.models import PointMLP, burgers_terms

NU = 0.01 / math.pi


def symgrad_derive(layer_sizes) -> tuple[float, float, int]:
    """Seconds to derive and to compile every term, and the op count of the graph."""
    start = time.perf_counter()
    net = PointMLP(layer_sizes)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    derived = time.perf_counter()
    symgrad.kernel(list(terms.values()), [x, t, *net.params])
    compiled = time.perf_counter()
    return derived - start, compiled - derived, count_ops([v._node for v in terms.values()])


def sympy_flat_derive(layer_sizes) -> float:
    """Seconds for the same derivation with one flat SymPy expression and sympy.diff."""
    start = time.perf_counter()
    x, t = sympy.symbols("x t")
    a = [x, t]
    weights = []
    for k, (n_in, n_out) in enumerate(zip(layer_sizes[:-1], layer_sizes[1:]), start=1):
        W = sympy.Matrix(
            n_in, n_out, [sympy.Symbol(f"W{k}_{i}_{j}") for i in range(n_in) for j in range(n_out)]
        )
        b = [sympy.Symbol(f"b{k}_{j}") for j in range(n_out)]
        weights += list(W) + b
        z = [sum(a[i] * W[i, j] for i in range(n_in)) + b[j] for j in range(n_out)]
        a = z if k == len(layer_sizes) - 1 else [sympy.tanh(v) for v in z]
    u = a[0]
    u_x, u_t = sympy.diff(u, x), sympy.diff(u, t)
    u_xx = sympy.diff(u_x, x)
    r = u_t + u * u_x - NU * u_xx
    for w in weights:
        sympy.diff(r**2, w)
    return time.perf_counter() - start


def main() -> None:
    print(
        f"# build time, {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"SymPy {sympy.__version__}, NumPy {np.__version__}"
    )
    print(f"{'layers':<24}{'graph ops':>10}{'derive s':>10}{'compile s':>11}{'sympy flat s':>14}{'ratio':>9}")
    for sizes in ([2, 4, 4, 1], [2, 8, 8, 1], [2, 12, 12, 1]):
        derive, compile_s, ops = symgrad_derive(sizes)
        flat = sympy_flat_derive(sizes)
        print(
            f"{str(sizes):<24}{ops:>10}{derive:>10.4f}{compile_s:>11.4f}{flat:>14.2f}{flat / (derive + compile_s):>8.0f}x"
        )
    for sizes in ([2, 32, 32, 32, 1], [2, 64, 64, 64, 1], [2] + [32] * 6 + [1], [2] + [32] * 12 + [1]):
        derive, compile_s, ops = symgrad_derive(sizes)
        print(
            f"{str(sizes) if len(sizes) < 7 else f'[2, 32 x {len(sizes) - 2}, 1]':<24}{ops:>10}{derive:>10.4f}{compile_s:>11.4f}{'-':>14}{'-':>9}"
        )


if __name__ == "__main__":
    main()
