"""Reverse and forward differentiation of traced calls: what every public API calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from symgrad.autodiff import recording
from symgrad.autodiff.engine import jvp_sweep, vjp_sweep
from symgrad.autodiff.tensor_hooks import hooked
from symgrad.autodiff.tracing import (
    Trace,
    as_outputs,
    fn_name,
    pack_like,
    tensor_leaves,
    trace_inputs,
)
from symgrad.context import PYNATIVE_MODE, get_context
from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import full, zeros_like
from symgrad.core.graph import Node
from symgrad.core.registry import substitute
from symgrad.errors import GradError, GradTypeError, PositionError, SensCountError
from symgrad.tensor import Tensor, merge_env


def _sens_list(sens, outputs: list[Tensor], is_tuple: bool, who: str) -> list[Tensor]:
    if not outputs:  # the output holds no Tensor (a shape, numbers): any sens gives zero gradients
        return []
    items = list(sens.values()) if isinstance(sens, dict) else sens
    nested = isinstance(sens, dict) or (
        isinstance(items, tuple | list) and any(isinstance(s, tuple | list | dict) for s in items)
    )
    parts = tensor_leaves(sens) if nested else list(sens) if isinstance(sens, tuple | list) else [sens]
    if len(parts) != len(outputs) or (is_tuple and not isinstance(sens, tuple | list | dict)):
        raise SensCountError(  # MindSpore raises RuntimeError here
            f"{who}: sens must match the network output: the output is "
            f"{'a tuple of ' + str(len(outputs)) if is_tuple else 'one'} Tensor(s), "
            f"got {len(parts)} sens value(s)"
        )
    for i, (s, o) in enumerate(zip(parts, outputs)):
        if not isinstance(s, Tensor):
            raise GradTypeError(f"{who}: sens[{i}] must be a Tensor, got {type(s).__name__}")
        if s.shape != o.shape:
            raise GradError(
                f"{who}: sens[{i}] has shape {s.shape} but the network output "
                f"{'[' + str(i) + '] ' if is_tuple else ''}has shape {o.shape}"
            )
        if s.dtype != o.dtype:  # MindSpore: "The dtype should be Float32, but got Float64"
            raise GradTypeError(
                f"{who}: sens[{i}] has dtype {s.dtype} but the network output "
                f"{'[' + str(i) + '] ' if is_tuple else ''}has dtype {o.dtype}"
            )
    return parts


class Reverse(NamedTuple):
    """What :func:`reverse` returns."""

    outputs: list[Tensor]  # the traced call's outputs (its Tensor leaves)
    is_tuple: bool  # whether the call returned a tuple (or another structure)
    input_grads: list[Tensor | None]  # one per requested position; None where the input is no Tensor
    weight_grads: list[Tensor]  # one per weight
    value: object  # what the call returned, its Tensors replaced by ``outputs``
    pull: Callable | None = None  # with ``pullback``: sens -> (input grads, weight grads)


class Forward(NamedTuple):
    """What :func:`forward` returns."""

    outputs: list[Tensor]
    tangents: list[Tensor]  # one per output
    is_tuple: bool


def _ones(node: Node) -> Node:
    return full(node.shape, 1, node.dtype or np.float32)


def _or_zeros(grad: Node | None, like: Node) -> Node:
    return zeros_like(like) if grad is None else grad


def in_dtype_of(x: Node, grad: Node) -> Node:
    """The gradient of ``x`` in ``x``'s dtype (as MindSpore and JAX return it): a float32 input mixed
    into float64 work gets a float32 gradient, an integer input an integer one."""
    if x.dtype is not None and grad.dtype is not None and grad.dtype != x.dtype:
        return cast(grad, x.dtype)
    return grad


def check_positions(positions, args, who: str) -> None:
    """Every position names one of the call's inputs."""
    for p in positions:
        if p >= len(args):
            raise PositionError(
                f"{who}: grad_position {p} is out of range: the function was called with {len(args)} input(s)"
            )


def reverse(
    fn: Callable,
    args: Sequence,
    positions: Sequence[int],
    weights: Sequence,
    sens=None,
    has_aux: bool = False,
    who: str = "grad",
    pullback: bool = False,
) -> Reverse:
    """Trace ``fn(*args)`` and differentiate the (sens-weighted) sum of its outputs.

    ``has_aux`` keeps only the first output differentiable. With ``pullback`` the sens is a
    variable: fn runs once, and ``result.pull(sens)`` evaluates the gradients for each sens
    (MindSpore's ``vjp_fn``); the gradients in the result are left unevaluated.
    """
    trace = Trace()
    leaves = trace_inputs(fn, args, trace)
    check_positions(positions, args, who)
    tensor_positions = [p for p in positions if isinstance(args[p], Tensor)]  # others have no gradient
    wrt = [leaves[p]._node for p in tensor_positions]  # before the call: ``x[i] = v`` rebinds a leaf
    with recording.inside_trace():
        raw = fn(*leaves)
    outputs, is_tuple = as_outputs(raw, fn)
    differentiated = outputs[:1] if has_aux else outputs
    tuple_sens = is_tuple and not has_aux
    if pullback:  # the sens becomes a variable: zeros as its value until pull() gives one
        sens = tuple(Tensor._wrap(zeros_like(o._node), {}) for o in differentiated)
        sens = sens if tuple_sens else sens[0]
    cot = _cotangents(sens, differentiated, tuple_sens, trace, who)
    wrt += [w._node for w in weights]
    grads = _gradients(differentiated, cot, wrt, weights)
    if pullback:  # the outputs now, the gradients for each sens later
        tensors = trace.finish([o._node for o in outputs], *outputs)
        tensors += trace.finish(grads, *outputs, evaluate=False)
    else:  # the function's value and its gradients in one kernel
        tensors = trace.finish([o._node for o in outputs] + grads, *outputs)
    n_out, n_in = len(outputs), len(tensor_positions)
    recording.record(
        dict(
            kind="grad", fn_name=fn_name(fn), outputs=[o._node for o in differentiated],
            seeds=None if sens is None else cot, wrt=wrt,
            wrt_names=[trace.names[p] for p in tensor_positions] + [w.name for w in weights],
            results=grads, finished=[t._node for t in tensors[n_out:]], env=tensors[0]._env if tensors else {},
        )
    )  # fmt: skip

    def placed(grads: list[Tensor]) -> tuple[list[Tensor | None], list[Tensor]]:
        """Gradients (inputs', then weights') through their hooks, one per requested position."""
        at = dict(zip(tensor_positions, _hooked_inputs(args, leaves, tensor_positions, grads[:n_in])))
        return [at.get(p) for p in positions], [hooked(w, g) for w, g in zip(weights, grads[n_in:])]

    input_grads, weight_grads = placed(tensors[n_out:])
    pull = None
    if pullback:

        def pull(sens) -> tuple[list[Tensor | None], list[Tensor]]:
            parts = _sens_list(sens, differentiated, tuple_sens, who)
            return placed(_pulled(tensors[n_out:], cot, parts))

    outs = tensors[:n_out]
    return Reverse(outs, is_tuple, input_grads, weight_grads, pack_like(raw, outs), pull)


def _pulled(finished: list[Tensor], sens_vars: list[Node], parts: list[Tensor]) -> list[Tensor]:
    """The unevaluated gradients ``finished`` at the sens ``parts`` (for its ``sens_vars``), evaluated."""
    mapping = {var: part._node for var, part in zip(sens_vars, parts)}
    env = {**finished[0]._env, **merge_env(*parts)} if finished else {}
    grads = [Tensor._wrap(n, env) for n in substitute([t._node for t in finished], mapping)]
    Tensor._evaluate_together(grads)
    return grads


def _cotangents(sens, differentiated: list[Tensor], tuple_sens: bool, trace: Trace, who: str) -> list[Node]:
    """The outputs' cotangents: ones without a sens, else the sens as variables of the trace."""
    if sens is None:
        return [_ones(o._node) for o in differentiated]
    parts = _sens_list(sens, differentiated, tuple_sens, who)
    name = (lambda i: "s") if len(differentiated) == 1 else (lambda i: f"s_{chr(97 + i)}")
    return [trace.leaf(s, name(i))._node for i, s in enumerate(parts)]


def _gradients(differentiated: list[Tensor], cot: list[Node], wrt: list[Node], weights) -> list[Node]:
    """d <outputs, cot> / d each of ``wrt``, in its dtype (zeros where it does not matter).

    In PyNative mode (MindSpore's default) a Parameter with requires_grad=False when the call
    ends gets a zero gradient; GRAPH_MODE differentiates every requested weight.
    """
    frozen = {w._node for w in weights if not w.requires_grad and get_context("mode") == PYNATIVE_MODE}
    found = iter(
        vjp_sweep([(o._node, c) for o, c in zip(differentiated, cot)], [x for x in wrt if x not in frozen])
    )
    grads = [None if x in frozen else next(found) for x in wrt]
    return [in_dtype_of(x, _or_zeros(g, x)) for g, x in zip(grads, wrt)]


def _hooked_inputs(args, leaves, positions, grads) -> list:
    """Input gradients through the hooks registered on the inputs (before the call, or on their
    leaves inside it)."""
    return [hooked(leaves[p], hooked(args[p], g)) for p, g in zip(positions, grads)]


def forward(fn: Callable, inputs: Sequence[Tensor], tangents: Sequence[Tensor], who: str = "jvp") -> Forward:
    """Trace ``fn(*inputs)`` and push ``tangents`` through it (forward mode)."""
    if len(tangents) != len(inputs):
        raise GradError(f"{who}: got {len(tangents)} tangent(s) for {len(inputs)} input(s)")
    trace = Trace()
    leaves = trace_inputs(fn, inputs, trace)
    seeds = {}
    for i, (x, leaf, v) in enumerate(zip(inputs, leaves, tangents)):
        if not isinstance(x, Tensor) or not isinstance(v, Tensor):
            raise GradTypeError(
                f"{who}: input {i} and its tangent must be Tensors, got {type(x).__name__} and {type(v).__name__}"
            )
        if v.shape != x.shape:
            raise GradError(f"{who}: tangent {i} has shape {v.shape} but input {i} has shape {x.shape}")
        if v.dtype != x.dtype:  # MindSpore: "Type Join Failed"
            raise GradTypeError(f"{who}: tangent {i} has dtype {v.dtype} but input {i} has dtype {x.dtype}")
        seeds[leaf._node] = trace.leaf(v, "v" if len(inputs) == 1 else f"v_{chr(97 + i)}")._node
    with recording.inside_trace():
        outputs, is_tuple = as_outputs(fn(*leaves), fn)
    nodes = [o._node for o in outputs]
    tangent_out = [_or_zeros(t, o) for t, o in zip(jvp_sweep(nodes, seeds), nodes)]
    tensors = trace.finish(nodes + tangent_out, *outputs)
    recording.record(
        dict(
            kind="jvp", fn_name=fn_name(fn), outputs=nodes, seeds=list(seeds.values()),
            wrt=list(seeds), wrt_names=trace.names, results=tangent_out,
            finished=[t._node for t in tensors[len(nodes) :]], env=tensors[0]._env,
        )
    )  # fmt: skip
    return Forward(tensors[: len(nodes)], tensors[len(nodes) :], is_tuple)
