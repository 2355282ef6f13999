"""Coverage against JAX's lax primitives (issue 41): each differentiable ``jax.lax`` function of the
table below, on float64 samples, imported through ``from_jax``; its values and vector-Jacobian
product (a random cotangent) compared with JAX's own (``jax.vjp``).

Classified as in ``torch_opinfo_coverage.py``: pass, refused (a symgrad error), wrong (a bug),
crash (an error that is not symgrad's: a bug).

    python bench/jax_lax_coverage.py [--ops NAME ...] [--verbose]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import symgrad  # noqa: E402
from symgrad.errors import SymgradError  # noqa: E402
from symgrad.importers import from_jax  # noqa: E402

PASS, REFUSED, WRONG, CRASH = "pass", "refused", "wrong", "crash"
RTOL, ATOL = 1e-7, 1e-9

# name -> (function of float64 arrays, the shapes of its inputs, their range (low, high))
M, V = (3, 4), (5,)
_DIMS = lax.ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3))
TABLE: dict[str, tuple[Callable, tuple, tuple[float, float]]] = {
    **{
        name: (getattr(lax, name), (M,), (-2.0, 2.0))
        for name in (
            "abs", "atan", "asinh", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "logistic", "neg",
            "sin", "sinh", "tan", "tanh", "sign", "floor", "ceil", "round", "square", "bessel_i0e", "bessel_i1e", "cbrt",
        )
    },
    **{name: (getattr(lax, name), (M,), (-0.9, 0.9)) for name in ("acos", "asin", "atanh", "erf_inv")},
    **{name: (getattr(lax, name), (M,), (0.2, 3.0)) for name in ("log", "log1p", "sqrt", "rsqrt", "lgamma", "digamma")},
    "acosh": (lax.acosh, (M,), (1.1, 3.0)),
    **{name: (getattr(lax, name), (M, M), (-2.0, 2.0)) for name in ("add", "sub", "mul", "max", "min", "atan2")},
    "div": (lax.div, (M, M), (0.5, 2.0)),
    "rem": (lax.rem, (M, M), (0.5, 2.0)),
    "pow": (lax.pow, (M, M), (0.5, 2.0)),
    "integer_pow": (lambda x: lax.integer_pow(x, 3), (M,), (-2.0, 2.0)),
    "clamp": (lambda x: lax.clamp(-0.5, x, 0.7), (M,), (-2.0, 2.0)),
    "select_n": (lambda x, y: lax.select_n(x > 0, x, y), (M, M), (-2.0, 2.0)),
    "convert_element_type": (lambda x: lax.convert_element_type(x, jnp.float32), (M,), (-2.0, 2.0)),
    "reduce_precision": (lambda x: lax.reduce_precision(x, 8, 23), (M,), (-2.0, 2.0)),
    "dot_general": (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), ((3, 4), (4, 2)), (-2.0, 2.0)),
    "dot_general-batch": (lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), ((2, 3, 4), (2, 4, 2)), (-2.0, 2.0)),
    "conv_general_dilated": (
        lambda x, w: lax.conv_general_dilated(x, w, (1, 2), ((1, 1), (0, 1)), rhs_dilation=(1, 2), dimension_numbers=_DIMS),
        ((1, 2, 5, 6), (3, 2, 2, 2)), (-2.0, 2.0),
    ),
    "conv_general_dilated-lhs_dilation": (
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)), lhs_dilation=(2, 2), dimension_numbers=_DIMS),
        ((1, 1, 3, 3), (2, 1, 2, 2)), (-2.0, 2.0),
    ),
    "reduce_sum": (lambda x: lax.reduce_sum(x, (1,)), (M,), (-2.0, 2.0)),
    "reduce_max": (lambda x: lax.reduce_max(x, (0,)), (M,), (-2.0, 2.0)),
    "reduce_min": (lambda x: lax.reduce_min(x, (1,)), (M,), (-2.0, 2.0)),
    "reduce_prod": (lambda x: lax.reduce_prod(x, (1,)), (M,), (-2.0, 2.0)),
    "argmax": (lambda x: x * lax.argmax(x, 1, jnp.int32)[:, None], (M,), (-2.0, 2.0)),
    "argmin": (lambda x: x * lax.argmin(x, 0, jnp.int32)[None, :], (M,), (-2.0, 2.0)),
    "cumsum": (lambda x: lax.cumsum(x, 1), (M,), (-2.0, 2.0)),
    "cumprod": (lambda x: lax.cumprod(x, 1), (M,), (-2.0, 2.0)),
    "cummax": (lambda x: lax.cummax(x, 0), (M,), (-2.0, 2.0)),
    "cummin": (lambda x: lax.cummin(x, 1, reverse=True), (M,), (-2.0, 2.0)),
    "cumlogsumexp": (lambda x: lax.cumlogsumexp(x, 1), (M,), (-2.0, 2.0)),
    "sort": (lambda x: lax.sort(x, dimension=1), (M,), (-2.0, 2.0)),
    "sort-multi": (lambda x, y: lax.sort((x, y), dimension=0, num_keys=1)[1], (M, M), (-2.0, 2.0)),
    "top_k": (lambda x: lax.top_k(x, 2)[0], (M,), (-2.0, 2.0)),
    "transpose": (lambda x: lax.transpose(x, (1, 0)), (M,), (-2.0, 2.0)),
    "reshape": (lambda x: lax.reshape(x, (2, 6)), (M,), (-2.0, 2.0)),
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 5, 3), (1,)), (V,), (-2.0, 2.0)),
    "squeeze": (lambda x: lax.squeeze(x[None], (0,)), (M,), (-2.0, 2.0)),
    "expand_dims": (lambda x: lax.expand_dims(x, (0, 2)), (M,), (-2.0, 2.0)),
    "rev": (lambda x: lax.rev(x, (0,)), (M,), (-2.0, 2.0)),
    "concatenate": (lambda x, y: lax.concatenate([x, y], 0), (M, M), (-2.0, 2.0)),
    "pad": (lambda x: lax.pad(x, 0.5, ((1, 2, 1), (0, -1, 0))), (M,), (-2.0, 2.0)),
    "slice": (lambda x: lax.slice(x, (0, 1), (3, 4), (2, 1)), (M,), (-2.0, 2.0)),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), (M,), (-2.0, 2.0)),
    "dynamic_update_slice": (lambda x, y: lax.dynamic_update_slice(x, y[:2, :2], (1, 1)), (M, M), (-2.0, 2.0)),
    "gather": (lambda x: x[jnp.array([2, 0, 2])], (M,), (-2.0, 2.0)),
    "scatter-add": (lambda x, y: x.at[jnp.array([0, 2, 0])].add(y[:3]), (M, M), (-2.0, 2.0)),
    "scatter": (lambda x, y: x.at[jnp.array([0, 2])].set(y[:2]), (M, M), (-2.0, 2.0)),
    "scatter-mul": (lambda x, y: x.at[jnp.array([0, 2])].multiply(y[:2], unique_indices=True), (M, M), (-2.0, 2.0)),
    "scatter-max": (lambda x, y: x.at[jnp.array([0, 2])].max(y[:2]), (M, M), (-2.0, 2.0)),
    "reduce_window-max": (
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), "VALID"), ((4, 6),), (-2.0, 2.0)
    ),
    "reduce_window-sum": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 3), (2, 1), ((0, 1), (1, 1))), ((4, 6),), (-2.0, 2.0)
    ),
    "scan": (lambda x: lax.scan(lambda c, r: (jnp.tanh(c + r), c * r), x[0], x)[1], (M,), (-2.0, 2.0)),
    "fori_loop": (lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 2, x), (M,), (-2.0, 2.0)),
    "cond": (lambda x: lax.cond(True, jnp.sin, jnp.cos, x), (M,), (-2.0, 2.0)),
    "stop_gradient": (lambda x: x * lax.stop_gradient(x), (M,), (-2.0, 2.0)),
    "custom_jvp (jax.nn.relu)": (jax.nn.relu, (M,), (-2.0, 2.0)),
    "linalg.cholesky": (lambda a: lax.linalg.cholesky(a @ a.T + 4 * jnp.eye(4)), ((4, 4),), (-1.0, 1.0)),
    "linalg.triangular_solve": (
        lambda a, b: lax.linalg.triangular_solve(jnp.tril(a) + 4 * jnp.eye(4), b, left_side=True, lower=True),
        ((4, 4), (4, 4)), (-1.0, 1.0),
    ),
    "linalg.lu (det)": (jnp.linalg.det, ((4, 4),), (-1.0, 1.0)),
    "linalg.lu (solve)": (jnp.linalg.solve, ((4, 4), (4, 2)), (-1.0, 1.0)),
    "linalg.lu": (lambda a: lax.linalg.lu(a)[0], ((4, 4),), (-1.0, 1.0)),
    "linalg.lu (wide)": (lambda a: lax.linalg.lu(a)[0], ((3, 5),), (-1.0, 1.0)),
    "linalg.lu (slogdet)": (lambda a: jnp.linalg.slogdet(a)[1], ((4, 4),), (-1.0, 1.0)),
    "linalg.lu (inv)": (jnp.linalg.inv, ((3, 3),), (-1.0, 1.0)),
    "linalg.lu (batched solve)": (jnp.linalg.solve, ((2, 3, 3), (2, 3, 2)), (-1.0, 1.0)),
    "gather-computed": (lambda x: jnp.take_along_axis(x, jnp.argsort(x[:, :1], axis=0), axis=0), (M,), (-2.0, 2.0)),
    "scatter-add-computed": (lambda x, y: x.at[jnp.argsort(x[:, 0])[:2]].add(y[:2]), (M, M), (-2.0, 2.0)),
    "scatter-computed": (lambda x, y: x.at[jnp.argmax(x[:, 0])].set(y[0]), (M, M), (-2.0, 2.0)),
    "reduce_or/and": (lambda x: jnp.where(jnp.any(x > 1, 1) & ~jnp.all(x > -1, 1), 1.0, 2.0)[:, None] * x, (M,), (-2.0, 2.0)),
    "reduce over no axes": (lambda x: jnp.sum(x, axis=()) * jnp.prod(x, axis=()), (M,), (-2.0, 2.0)),
    "linalg.qr": (lambda a: jnp.linalg.qr(a)[1], ((4, 3),), (-1.0, 1.0)),
    "linalg.eigh": (lambda a: jnp.linalg.eigh(a + a.T)[0], ((3, 3),), (-1.0, 1.0)),
    "linalg.svd": (lambda a: jnp.linalg.svd(a, compute_uv=False), ((4, 3),), (-1.0, 1.0)),
}  # fmt: skip


def _close(ours: np.ndarray, theirs: np.ndarray) -> bool:
    if ours.shape != theirs.shape:
        return False
    if theirs.dtype.kind in "biu":
        return bool(np.array_equal(ours, theirs))
    if not np.array_equal(np.isnan(ours), np.isnan(theirs)):
        return False
    finite = np.isfinite(theirs)
    scale = np.max(np.abs(theirs[finite]), initial=0.0)
    return bool(np.all(np.abs(ours[finite] - theirs[finite]) <= ATOL + RTOL * scale))


def check(name: str) -> tuple[str, str]:
    """One table entry, in JAX's 64-bit mode: (status, reason)."""
    with jax.enable_x64(True):
        return _check(name)


def _check(name: str) -> tuple[str, str]:
    fn, shapes, (low, high) = TABLE[name]
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(low, high, s) for s in shapes]
    outs, pullback = jax.vjp(fn, *inputs)
    leaves = jax.tree_util.tree_leaves(outs)
    cotangents = [rng.standard_normal(np.shape(o)).astype(np.asarray(o).dtype) for o in leaves]
    expected = pullback(jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(outs), cotangents))
    try:
        program = from_jax(fn, *inputs)
        xs = [symgrad.Tensor(x) for x in inputs]
        ours = program(*xs)
        ours = ours if isinstance(ours, tuple) else (ours,)
        for k, (a, b) in enumerate(zip(ours, leaves)):
            if not _close(np.asarray(a.asnumpy()), np.asarray(b)):
                return WRONG, f"value of output {k}"

        def loss(*args):
            got = program(*args)
            got = got if isinstance(got, tuple) else (got,)
            terms = [(g * symgrad.Tensor(c)).sum() for g, c in zip(got, cotangents)]
            return sum(terms[1:], terms[0])

        grads = symgrad.grad(loss, tuple(range(len(xs))))(*xs)
        for i, (g, e) in enumerate(zip(grads, expected)):
            if not _close(np.asarray(g.asnumpy(), dtype=np.float64), np.asarray(e, dtype=np.float64)):
                return WRONG, f"vjp for input {i}"
    except SymgradError as e:
        return REFUSED, str(e).splitlines()[0].split("; JAX primitives symgrad imports")[0][:300]
    except Exception as e:  # noqa: BLE001 (a bug: reported, not raised)
        return CRASH, f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
    return PASS, ""


def summary(results: dict[str, tuple[str, str]]) -> str:
    counts = collections.Counter(status for status, _ in results.values())
    lines = [
        f"lax primitives: {len(results)}; pass: {counts[PASS]} ({100 * counts[PASS] / max(len(results), 1):.1f}%); "
        f"refused: {counts[REFUSED]}; wrong: {counts[WRONG]}; crash: {counts[CRASH]}"
    ]
    for status in (WRONG, CRASH, REFUSED):
        for name, (st, reason) in sorted(results.items()):
            if st == status:
                lines.append(f"- {status} {name}: {reason}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="*")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    start, results = time.perf_counter(), {}
    for name in args.ops or TABLE:
        results[name] = check(name)
        if args.verbose:
            print(f"{results[name][0]:8} {name} {results[name][1][:200]}", flush=True)
    print(summary(results))
    print(f"\n{time.perf_counter() - start:.0f} s for {len(results)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
