"""``verify`` at model scale: exact vector-Jacobian products in random directions, entry by entry.

Per-entry derivative blocks of a 300k-weight model hold 10^8 numbers. Instead, for a few random
cotangents ``v`` (Gaussian, one per output), the framework's ``J^T v`` (one backward pass) is
compared entry by entry with the exact ``J^T v``: one reverse sweep of the imported graph,
evaluated in extended precision (NumPy's longdouble: a 64-bit significand on x86-64) at the binary
values of the inputs and weights. A wrong rule shows in the Parameters and entries it reaches: each
row names the input or Parameter, the worst entry and by how much. The exact reverse sweep is
itself checked against an exact forward sweep (``<v, J u> = <J^T v, u>`` for a random ``u``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import lowering
from symgrad.autodiff.engine import jvp_sweep, vjp_sweep
from symgrad.core.graph import Node, const, free_vars
from symgrad.evaluate import value_of
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor
from symgrad.verification.frameworks import TOLERANCE, trace_program
from symgrad.verification.report import FAIL, OK, Report, Row, compare, magnitude

# per-entry blocks past this many entries are checked in random directions instead (order 1)
LARGEST_PER_ENTRY = 200_000

FrameworkVjp = Callable[[list[np.ndarray]], tuple[list[np.ndarray], str]]


def block_entries(imported, arrays: Sequence[np.ndarray], positions: Sequence[int], weights) -> int:
    """How many entries the order-1 blocks would hold: output entries x differentiated entries."""
    outputs = imported(*(Tensor(np.asarray(a)) for a in arrays))
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    out_size = sum(int(np.prod(o.shape)) for o in outputs)
    in_size = sum(int(np.size(arrays[p])) for p in positions) + sum(int(np.prod(w.shape)) for _, w in weights)
    return out_size * in_size


def directions_to_use(directions: int | None, order: int, imported, arrays, positions, weights) -> int:
    """How many random directions to check (0: every entry of every block)."""
    if directions is None:
        large = order == 1 and block_entries(imported, arrays, positions, weights) > LARGEST_PER_ENTRY
        return 2 if large else 0
    if not isinstance(directions, int) or isinstance(directions, bool) or directions < 0:
        raise ValueError(f"verify: directions must be a whole number >= 0 or None, got {directions!r}")
    if directions and order != 1:
        raise ValueError(f"verify: directions= checks first derivatives; order={order} needs directions=0")
    return directions


def check_directional(
    imported,
    arrays: Sequence[np.ndarray],
    positions: Sequence[int],
    weights: Sequence[tuple[str, Parameter]],
    framework: str,
    framework_vjp: FrameworkVjp,
    kind: str,
    directions: int = 2,
    seed: int = 0,
) -> Report:
    """Compare ``framework_vjp(cotangents)`` (one array per differentiated input, then per weight)
    with the exact ``J^T v`` for ``directions`` random cotangents."""
    if not isinstance(directions, int) or isinstance(directions, bool) or directions < 1:
        raise ValueError(f"verify: directions must be a whole number >= 1, got {directions!r}")
    traced = trace_program(imported, arrays, positions, weights)
    outputs, wrt, labels, env = traced.outputs, traced.wrt, traced.labels, traced.env
    dtype = _dtype(arrays, positions, weights)
    rng = np.random.default_rng(seed)
    size = sum(int(np.prod(n.shape)) for n in wrt)
    report = Report(
        f"verify {imported.name} ({kind}) at {traced.point} ({dtype}), order 1, {directions} direction(s)"
    )
    report.notes.append(
        f"{size} differentiated entries: compared J^T v for {directions} random cotangent(s) v, entry by "
        f"entry, with the exact reverse sweep in {np.finfo(np.longdouble).nmant + 1}-bit precision"
    )
    rtol, atol_fraction = TOLERANCE.get(dtype, (1e-3, 1e-4))
    for d in range(directions):
        v = [rng.standard_normal(o.shape).astype(o.dtype.np).astype(np.float64) for o in outputs]
        pulled = vjp_sweep([(o._node, const(c)) for o, c in zip(outputs, v)], wrt)
        nodes = [p if p is not None else const(np.zeros(x.shape)) for p, x in zip(pulled, wrt)]
        exact, ours = _evaluate(nodes, env)
        got, failure = framework_vjp([c.astype(o.dtype.np) for c, o in zip(v, outputs)])
        if failure:
            report.notes.append(failure)
        for k, label in enumerate(labels):
            derivative = f"v{d}^T d out / d {label}"
            method = f"{framework} {dtype}"
            if k >= len(got) or np.shape(got[k]) != exact[k].shape:
                report.rows.append(
                    Row(derivative, method, np.nan, np.nan, (), np.nan, np.nan, rtol, 0.0, FAIL)
                )
                continue
            rounding = float(np.nanmax(np.abs(ours[k] - exact[k]), initial=0.0))
            atol = max(atol_fraction * (magnitude(exact[k]) or 1.0), 10 * rounding)
            report.rows.append(compare(derivative, method, got[k], exact[k], rtol, atol))
        report.rows.append(_identity_row(outputs, wrt, v, exact, env, rng, d))
    return report


def _dtype(arrays, positions, weights) -> np.dtype:
    kinds = [np.asarray(arrays[p]).dtype for p in positions] + [w._value().dtype for _, w in weights]
    return np.result_type(*kinds) if kinds else np.dtype(np.float64)


def _evaluate(nodes: list[Node], env: dict) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``nodes`` in extended precision (the reference) and in the program's own dtypes (its rounding)."""
    args = free_vars(nodes)
    values = [np.asarray(value_of(a, env)) for a in args]
    compiled = lowering.compile_kernel(nodes, args)
    extended = [v.astype(np.longdouble) if np.issubdtype(v.dtype, np.floating) else v for v in values]
    with np.errstate(all="ignore"):
        exact = [np.asarray(r, np.longdouble).astype(np.float64) for r in compiled(*extended)]
        ours = [np.asarray(r, np.float64) for r in compiled(*values)]
    return [np.broadcast_to(e, n.shape) for e, n in zip(exact, nodes)], [
        np.broadcast_to(o, n.shape) for o, n in zip(ours, nodes)
    ]


def _identity_row(outputs, wrt, v, pulled, env, rng, d: int) -> Row:
    """<v, J u> by an exact forward sweep against <J^T v, u> by the exact reverse sweep."""
    u = [rng.standard_normal(x.shape) for x in wrt]
    pushed = jvp_sweep([o._node for o in outputs], {x: const(t) for x, t in zip(wrt, u)})
    nodes = [p if p is not None else const(np.zeros(o.shape)) for p, o in zip(pushed, outputs)]
    forward, _ = _evaluate(nodes, env)
    left = sum(float(np.vdot(c, f)) for c, f in zip(v, forward))
    right = sum(float(np.vdot(p, t)) for p, t in zip(pulled, u))
    scale = sum(float(np.abs(c).ravel() @ np.abs(f).ravel()) for c, f in zip(v, forward)) or 1.0
    error = abs(left - right)
    verdict = OK if error <= 1e-12 * scale else FAIL
    return Row(f"<v{d}, J u> = <J^T v{d}, u>", "exact sweeps", error, error / (abs(right) or 1.0), (),
               left, right, 0.0, 1e-12 * scale, verdict)  # fmt: skip


__all__ = ["LARGEST_PER_ENTRY", "block_entries", "check_directional", "directions_to_use"]
