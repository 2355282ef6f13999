"""``verify`` for a program written with symgrad's ops: every derivative block up to order k against
its 50-digit closed form, by the compiled kernel, central differences, PyTorch on the lowered
forward pass, the Jvp/Vjp identity, and the user's own ``expected=`` and ``vjp=``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from symgrad.autodiff import recording
from symgrad.autodiff.engine import jvp_sweep, vjp_sweep
from symgrad.autodiff.tracing import Trace, as_outputs, check_differentiable, trace_inputs
from symgrad.core.graph import Const, Node, Var, const, free_vars
from symgrad.errors import GradError
from symgrad.evaluate import value_of
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor
from symgrad.verification import methods
from symgrad.verification.blocks import Block, derivative_blocks
from symgrad.verification.kinks import kink_aware, kink_notes
from symgrad.verification.report import Report, Row, compare, magnitude

KERNEL_RTOL = {np.dtype(np.float64): 1e-10, np.dtype(np.float32): 1e-4, np.dtype(np.float16): 1e-2}
FD_RTOL = 1e-6
FRAMEWORK_RTOL = 1e-10


@dataclass
class Traced:
    """A traced call and its derivative blocks, with every variable they read and its value."""

    positions: list[int]
    names: list[str]
    out_nodes: list[Node]
    wrt: list[Var]  # the differentiated inputs' and weights' variables
    levels: list[list[Block]]
    blocks: list[Block]
    args: list[Var]  # the differentiated variables first, then every other free variable
    values: list[np.ndarray]
    dtype: np.dtype


def trace_blocks(fn: Callable, inputs: tuple, order: int, positions, params: list[Parameter]) -> Traced:
    """Trace ``fn`` at ``inputs`` and build its derivative blocks up to ``order``."""
    trace = Trace()
    leaves = trace_inputs(fn, inputs, trace)
    names = trace.names
    if positions is None:
        positions = [i for i, a in enumerate(inputs) if isinstance(a, Tensor) and a.dtype.is_float]
    for p in positions:
        check_differentiable(inputs[p], f"input {p}", "verify")
    if not positions and not params:
        kinds = ", ".join(f"{type(a).__name__} {getattr(a, 'dtype', '')}".strip() for a in inputs) or "none"
        raise GradError(
            f"verify: nothing to differentiate: no float Tensor input (inputs: {kinds}) and no weights; "
            "pass float inputs, positions=, or weights="
        )
    # taken before the call: ``x[i] = v`` inside it rebinds the leaf
    wrt = cast(list[Var], [leaves[p]._node for p in positions] + [w._node for w in params])
    outputs, _ = as_outputs(fn(*leaves), fn)
    out_nodes = [o._node for o in outputs]
    wrt_names = [names[p] for p in positions] + [w.name for w in params]
    env = {**trace.env, **{k: v for o in outputs for k, v in o._env.items()}}
    for w in params:
        env[w._node] = w._data
    levels = derivative_blocks(out_nodes, wrt, wrt_names, order)
    blocks = [b for level in levels for b in level]
    # every differentiated variable is an argument, even one the output does not depend on
    args = cast(list[Var], list(dict.fromkeys(wrt + free_vars(out_nodes + [b.node for b in blocks]))))
    values = [np.asarray(value_of(v, env)) for v in args]
    dtype = (
        np.result_type(*(v.dtype for v in values if v.dtype.kind == "f")) if values else np.dtype(np.float64)
    )
    return Traced(list(positions), names, out_nodes, wrt, levels, blocks, args, values, dtype)


def note_non_finite_inputs(report: Report, t: Traced) -> None:
    for var, value in zip(t.args, t.values):
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            where = ", ".join(str([int(k) for k in i]) for i in np.argwhere(~np.isfinite(value))[:4])
            report.notes.append(
                f"the input {var.display_name} contains inf/NaN at {where}: derivatives there are compared where "
                "they are defined (NaN matches NaN); finite differences cannot judge those elements"
            )


def block_rows(report: Report, t: Traced, reference: dict, kinks, use_torch: bool, krtol: float) -> None:
    """Each block by the kernel, by central differences and (with ``use_torch``) by torch.autograd."""
    kernel = dict(zip(t.blocks, methods.compiled_values([b.node for b in t.blocks], t.args, t.values)))
    lower_of = {(b.output, b.path): b.node for b in t.blocks}
    for block in t.blocks:
        ref = reference[block]
        scale = max(1.0, magnitude(ref))
        report.rows.append(
            compare(block.label, f"kernel {t.dtype}", kernel[block], ref, krtol, krtol * scale * 1e-2)
        )
        lower = (
            t.out_nodes[block.output] if len(block.path) == 1 else lower_of[(block.output, block.path[:-1])]
        )
        arg_index = t.args.index(t.wrt[block.path[-1]])
        fd, fd_error = methods.finite_differences(lower, t.args, t.values, arg_index)
        atol = 1e-7 * scale
        with np.errstate(invalid="ignore"):
            judged = np.isfinite(fd_error) & (fd_error <= FD_RTOL * np.abs(ref) + atol)
        if not judged.all():
            report.notes.append(
                f"finite differences cannot judge {int((~judged).sum())} of {judged.size} element(s) of "
                f"{block.label} (the function is not finite nearby, or varies too fast for any step): "
                "those elements are compared by the other methods only"
            )
        report.rows.append(
            kink_aware(compare(block.label, "finite differences", fd, ref, FD_RTOL, atol, judged), kinks)
        )
        if use_torch and ref.size:
            arg_path = [t.args.index(t.wrt[i]) for i in block.path]
            got = methods.torch_autograd(t.out_nodes[block.output], t.args, t.values, arg_path)
            report.rows.append(
                kink_aware(
                    compare(block.label, "torch autograd", got, ref, FRAMEWORK_RTOL, 1e-12 * scale), kinks
                )
            )


def verify_symgrad(
    fn: Callable,
    inputs: tuple,
    order: int,
    positions: Sequence[int] | None,
    weights,
    expected,
    vjp: Callable | None,
    rtol: float | None,
    use_frameworks: bool,
    seed: int,
) -> Report:
    """``symgrad.verify`` for a symgrad program (its arguments are documented there)."""
    if order < 1:
        raise ValueError(f"verify: order must be 1 or more, got {order}")
    if isinstance(weights, bool) or not all(isinstance(w, Parameter) for w in weights):
        raise TypeError(
            "verify: weights= takes symgrad Parameters for a symgrad program (Parameter names, or True, for a "
            "PyTorch module)"
        )
    params = [w for w in weights if isinstance(w, Parameter)]
    t = trace_blocks(fn, inputs, order, positions, params)
    _record_first_order(fn, t, [t.names[p] for p in t.positions] + [w.name for w in params])
    point = ", ".join(f"{n} {tuple(inputs[p].shape)}" for n, p in zip(t.names, t.positions))
    report = Report(
        f"verify {getattr(fn, '__name__', type(fn).__name__)} at {point} ({t.dtype}), order {order}"
    )
    report.blocks = t.blocks
    note_non_finite_inputs(report, t)
    reference = dict(zip(t.blocks, methods.high_precision([b.node for b in t.blocks], t.args, t.values)))
    kinks = kink_notes(t.out_nodes, t.args, t.values, report.notes)
    use_torch = use_frameworks and "torch" in methods.frameworks()
    krtol = KERNEL_RTOL.get(t.dtype, 1e-10)
    if t.dtype != np.float64:
        report.notes.append(
            f"{t.dtype} inputs: the kernel is compared at rtol {krtol:.0e} with atol {krtol * 1e-2:.0e} x max|d|; "
            "relative errors of entries below that are under the dtype's resolution and not meaningful"
        )
    block_rows(report, t, reference, kinks, use_torch, krtol)
    report.rows.append(_identity_row(t.out_nodes, t.wrt, t.args, t.values, seed, krtol))
    user_rtol = rtol if rtol is not None else (1e-6 if t.dtype == np.float64 else 1e-4)
    if expected is not None:
        _check_expected(report, expected, inputs, t.levels[-1], reference, user_rtol, kinks)
    if vjp is not None:
        _check_vjp(report, vjp, inputs, t.out_nodes, t.wrt, t.args, t.values, user_rtol, seed, kinks)
    if not use_torch and use_frameworks:
        report.notes.append(
            "no independent framework installed (pip install torch): compared with finite differences only"
        )
    return report


def _record_first_order(fn: Callable, t: Traced, wrt_names: list[str]) -> None:
    """The exact gradient verify compares with, as an episode for ``symgrad explain`` (a scalar
    output's first-order blocks are its gradient), so a script that verifies has a derivation."""
    if len(t.out_nodes) != 1 or t.out_nodes[0].shape != ():
        return
    gradient = [b.node for b in t.levels[0]]
    recording.record(
        dict(
            kind="grad", fn_name=getattr(fn, "__name__", type(fn).__name__), outputs=list(t.out_nodes),
            seeds=None, wrt=list(t.wrt), wrt_names=wrt_names, results=gradient, finished=gradient,
            env=dict(zip(t.args, t.values)),
        )
    )  # fmt: skip


def _random_like(node: Node, rng) -> Const:
    return cast(Const, const(rng.normal(size=node.shape).astype(node.dtype or np.float64)))


def _identity_row(out_nodes, wrt, args, values, seed, krtol) -> Row:
    """<v, J u> (forward sweep) against <J^T v, u> (reverse sweep), both in the kernel."""
    rng = np.random.default_rng(seed)
    u = {x: _random_like(x, rng) for x in wrt}
    v = [_random_like(o, rng) for o in out_nodes]
    seeds: dict[Node, Node] = dict(u)
    ju = jvp_sweep(out_nodes, seeds)
    jtv = vjp_sweep(list(zip(out_nodes, v)), wrt)
    sides = [n for n in ju + jtv if n is not None]
    computed = iter(methods.compiled_values(sides, args, values)) if sides else iter(())
    forward = sum(
        (float(np.sum(np.asarray(vi.value) * next(computed))) for vi, t in zip(v, ju) if t is not None), 0.0
    )
    reverse = sum(
        (float(np.sum(next(computed) * np.asarray(u[x].value))) for x, c in zip(wrt, jtv) if c is not None),
        0.0,
    )
    scale = max(1.0, abs(forward))
    return compare(
        "<v, J u> = <J^T v, u>", "jvp vs vjp", forward, np.asarray(reverse), max(krtol, 1e-12), krtol * scale
    )


def _as_arrays(given, inputs) -> list:
    given = given(*inputs) if callable(given) else given
    if isinstance(given, Tensor) or not isinstance(given, (tuple, list)):
        given = [given]
    return [np.asarray(g.asnumpy() if isinstance(g, Tensor) else g, dtype=np.float64) for g in given]


def _user_atol(ref: np.ndarray, everything: list[np.ndarray], rtol: float) -> float:
    """Absolute tolerance for a user's derivative: relative to the block's own size (so a tiny
    gradient with a flipped sign fails), or to the largest block when this one is all zeros."""
    scale = magnitude(ref) or max((magnitude(r) for r in everything), default=0.0) or 1.0
    return rtol * 1e-2 * scale


def _check_expected(report, expected, inputs, blocks: list[Block], reference, rtol, kinks) -> None:
    arrays = _as_arrays(expected, inputs)
    if len(arrays) != len(blocks):
        labels = ", ".join(b.label for b in blocks)
        raise ValueError(
            f"verify: expected= has {len(arrays)} arrays for {len(blocks)} derivatives ({labels})"
        )
    for block, arr in zip(blocks, arrays):
        ref = reference[block]
        if arr.shape != ref.shape:
            raise ValueError(
                f"verify: expected array for {block.label} has shape {arr.shape}, the derivative has {ref.shape}"
            )
        atol = _user_atol(ref, list(reference.values()), rtol)
        report.rows.append(kink_aware(compare(block.label, "yours (expected=)", arr, ref, rtol, atol), kinks))


def _check_vjp(report, user_vjp, inputs, outs, wrt, args, values, rtol, seed, kinks) -> None:
    """The user's ``vjp(v, *inputs)`` against the exact one, with a random ``v`` for every output
    (a tuple of them when the function has several outputs, so each output's part is checked)."""
    rng = np.random.default_rng(seed + 1)
    vs = [rng.normal(size=o.shape).astype(o.dtype or np.float64) for o in outs]
    exact = vjp_sweep([(o, const(v)) for o, v in zip(outs, vs)], wrt)
    nodes = [c for c in exact if c is not None]
    computed = iter(methods.high_precision(nodes, args, values))
    refs = [next(computed) if c is not None else np.zeros(x.shape) for c, x in zip(exact, wrt)]
    v_arg = Tensor(vs[0]) if len(vs) == 1 else tuple(Tensor(v) for v in vs)
    got = _as_arrays(lambda *xs: user_vjp(v_arg, *xs), inputs)
    if len(got) != len(refs):
        raise GradError(f"verify: vjp= returned {len(got)} cotangents for {len(refs)} differentiated inputs")
    for x, g, ref in zip(wrt, got, refs):
        if g.shape != ref.shape:
            raise GradError(
                f"verify: vjp= returned a cotangent of shape {g.shape} for {x.display_name}, "
                f"which has shape {ref.shape}; a cotangent has its input's shape"
            )
        label = f"v^T d out / d {x.display_name}"
        atol = _user_atol(ref, refs, rtol)
        report.rows.append(kink_aware(compare(label, "yours (vjp=)", g, ref, rtol, atol), kinks))
