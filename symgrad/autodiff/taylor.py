"""Taylor mode as MindSpore spells it: ``jet``, ``derivative`` and ``linearize``.

``jet(fn, primals, series)`` follows the path ``x(t) = x + sum_k series[k] t^(k+1) / (k+1)!``
(``series[k]`` is the path's (k+1)-th derivative at t = 0) and returns ``fn(x)`` and the
derivatives ``d^(k+1)/dt^(k+1) fn(x(t))`` at t = 0, one per row of ``series``. They are
computed by one Taylor-mode sweep over the traced graph
(:mod:`symgrad.autodiff.taylor_sweep`), so the graph grows like the order squared, not
exponentially as nested jvps would; the results are graph nodes like any gradient, so
they can be lowered to kernels or differentiated again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from symgrad.autodiff import recording
from symgrad.autodiff.api import as_tuple, jvp
from symgrad.autodiff.taylor_sweep import Series, taylor_sweep
from symgrad.autodiff.tracing import (
    Trace,
    as_outputs,
    check_tensor_input,
    fn_name,
    named_like,
    trace_inputs,
)
from symgrad.core.families.structural import full, getitem, stack, zeros_like
from symgrad.core.graph import Node
from symgrad.errors import GradError, GradTypeError
from symgrad.tensor import Tensor


def _check(primals: tuple, series: tuple, who: str) -> int:
    if len(primals) != len(series):
        raise GradError(f"{who}: got {len(series)} series for {len(primals)} primal(s)")
    orders = set()
    for i, (x, s) in enumerate(zip(primals, series)):
        if not isinstance(x, Tensor) or not isinstance(s, Tensor):
            raise GradTypeError(f"{who}: primals[{i}] and series[{i}] must be Tensors")
        if s.shape[1:] != x.shape or s.ndim != x.ndim + 1:
            raise GradError(
                f"{who}: series[{i}] must have shape (order,) + {x.shape}, the primal's shape; got {s.shape}"
            )
        orders.add(s.shape[0])
    if len(orders) != 1:
        raise GradError(f"{who}: every series must have the same order (rows), got {sorted(orders)}")
    return orders.pop()


def jet(fn: Callable, primals, series):
    """``(fn(primals), out_series)``: the derivatives of ``fn`` along the path given by ``series``."""
    xs, ss = as_tuple(primals), as_tuple(series)
    order = _check(xs, ss, "jet")

    def path(trace: Trace, i: int, leaf: Node) -> Series:
        rows = trace.leaf(ss[i], "s" if len(xs) == 1 else f"s_{chr(97 + i)}")._node
        return [getitem(rows, k) for k in range(order)]

    outs, per_output, is_tuple = _along_path(fn, xs, path, order, lambda out, d: [stack(d, 0)])
    series_out = [found[0] for found in per_output]
    return (tuple(outs), tuple(series_out)) if is_tuple else (outs[0], series_out[0])


def _along_path(fn: Callable, xs: Sequence, path: Callable, order: int, pick: Callable):
    """Trace ``fn(*xs)`` and sweep ``path(trace, i, leaf)``, the path derivatives of each Tensor
    input. Returns ``fn``'s outputs, the Tensors ``pick(output, its derivatives)`` for each
    output (zeros filled in), and whether ``fn`` returned a tuple."""
    trace = Trace()
    leaves = trace_inputs(fn, xs, trace)
    seeds = {x._node: path(trace, i, x._node) for i, x in enumerate(leaves) if isinstance(x, Tensor)}
    with recording.inside_trace():
        outputs, is_tuple = as_outputs(fn(*leaves), fn)
    nodes = [o._node for o in outputs]
    derivatives_of = [
        [zeros_like(o) if d is None else d for d in series]
        for o, series in zip(nodes, taylor_sweep(nodes, seeds, order))
    ]
    picked = [pick(o, series) for o, series in zip(nodes, derivatives_of)]
    finished = trace.finish(nodes + [n for found in picked for n in found], *outputs)
    _record(fn, trace, leaves, seeds, nodes, derivatives_of, finished[0]._env)
    tensors = iter(finished)
    outs = [next(tensors) for _ in nodes]
    return outs, [[next(tensors) for _ in found] for found in picked], is_tuple


def _record(
    fn: Callable, trace: Trace, leaves: list, seeds: dict, outputs: list, derivatives: list, env
) -> None:
    """A "taylor" episode for ``symgrad.explain``: the path, then every output's derivatives."""
    names = [n for n, leaf in zip(trace.names, leaves) if isinstance(leaf, Tensor)]
    path = [(name, k, s) for name, series in zip(names, seeds.values()) for k, s in enumerate(series, 1)]
    path = [p for p in path if p[2] is not None]
    outs = ["output" if len(outputs) == 1 else f"output[{j}]" for j in range(len(outputs))]
    results = [(out, k, d) for out, series in zip(outs, derivatives) for k, d in enumerate(series, 1)]
    recording.record(
        dict(
            kind="taylor", fn_name=fn_name(fn), outputs=outputs, seeds=[s for _, _, s in path],
            wrt=list(seeds), wrt_names=names, results=[d for _, _, d in results], finished=[], env=env,
            seed_labels=[_order_label(name, k) for name, k, _ in path],
            result_labels=[_order_label(out, k) for out, k, _ in results],
        )
    )  # fmt: skip


def _order_label(name: str, k: int) -> tuple[str, str]:
    """``d^k name/dt^k`` as text and LaTeX."""
    power = "" if k == 1 else f"^{k}"
    latex = rf"\frac{{\mathrm{{d}}{power} \mathrm{{{name}}}}}{{\mathrm{{d}}t{power}}}"
    return f"d{power} {name}/dt{power}", latex


def _check_order(order, who: str) -> None:
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise GradError(f"{who}: order must be a positive int, got {order!r}")


def derivative(fn: Callable, primals, order: int):
    """``(fn(primals), d^order/dt^order fn(primals + t))``: the order-th derivative along all-ones directions.

    The path is a straight line, so its derivatives past the first are known zeros and drop
    out of the sweep: ``derivative(u, x, 3)`` is u_xxx by one third-order Taylor sweep.
    """
    _check_order(order, "derivative")
    xs = as_tuple(primals)
    for i, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise GradTypeError(f"derivative: primals[{i}] must be a Tensor, got {type(x).__name__}")

    def line(trace: Trace, i: int, leaf: Node) -> Series:
        return [full(leaf.shape, 1, leaf.dtype or np.float64)] + [None] * (order - 1)

    outs, per_output, is_tuple = _along_path(fn, xs, line, order, lambda out, d: d[-1:])
    last = [found[0] for found in per_output]
    return (tuple(outs), tuple(last)) if is_tuple else (outs[0], last[0])


def derivatives(fn: Callable, position: int = 0, order: int = 2) -> Callable:
    """A function of ``fn``'s inputs returning ``(d fn/dx, .., d^order fn/dx^order)`` for the input
    ``x`` at ``position`` (u_x, u_xx, u_xxx..), all from one Taylor sweep along that input.

    The values of nested ``grad(grad(..., position), position)`` of a per-point ``fn``, with a
    graph that grows like the order squared instead of doubling per order.
    """
    _check_order(order, "derivatives")
    if not isinstance(position, int) or isinstance(position, bool) or position < 0:
        raise GradError(f"derivatives: position must be an int >= 0, got {position!r}")

    def line(trace: Trace, i: int, leaf: Node) -> Series:
        first = full(leaf.shape, 1, leaf.dtype or np.float64) if i == position else None
        return [first] + [None] * (order - 1)

    def along_one_input(*args):
        if position >= len(args):
            raise GradTypeError(f"derivatives: input {position} must be a Tensor, got {len(args)} input(s)")
        check_tensor_input(args, position, "derivatives")
        _, per_output, is_tuple = _along_path(fn, args, line, order, lambda out, d: d)
        if is_tuple:
            raise GradError(f"derivatives: {fn_name(fn)} must return one Tensor, got {len(per_output)}")
        return tuple(per_output[0])

    return named_like(fn, along_one_input)


def linearize(fn: Callable, inputs):
    """``(fn(inputs), jvp_fn)`` where ``jvp_fn(v)`` is the Jacobian of ``fn`` at ``inputs`` times ``v``."""
    xs = as_tuple(inputs)
    out = fn(*xs)

    def jvp_fn(*v):
        tangents = v[0] if len(v) == 1 else v
        return jvp(fn, xs if len(xs) > 1 else xs[0], tangents)[1]

    return out, named_like(fn, jvp_fn)
