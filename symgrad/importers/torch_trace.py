"""Tracing a PyTorch program to an FX graph of ATen ops: ``torch.export``, else ``make_fx`` below autograd."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.autodiff.tracing import input_names
from symgrad.errors import OpError
from symgrad.importers.torch_convert import _dtype, _torch


@dataclass
class _Traced:
    """A traced program: its FX graph, and what its placeholders stand for."""

    graph: Any  # torch.fx.GraphModule of ATen ops
    inputs: list[tuple[str, str, tuple, np.dtype]]  # (placeholder, argument name, shape, dtype)
    params: dict[str, tuple[str, Any]] = field(default_factory=dict)  # torch name -> (placeholder, tensor)
    constants: dict[str, Any] = field(default_factory=dict)  # placeholder -> tensor (buffers, constants)
    tokens: list[str] = field(default_factory=list)  # effect tokens' placeholders (ordering only)


def _from_export(exported, name: str) -> _Traced:
    """torch.export's training IR (``detach`` and ``no_grad`` blocks visible in it)."""
    traced = _Traced(exported.graph_module, [])
    vals = {n.name: n.meta["val"] for n in exported.graph.nodes if n.op == "placeholder"}
    for spec in exported.graph_signature.input_specs:
        kind, placeholder, target = spec.kind.name, spec.arg.name, spec.target
        if kind == "USER_INPUT":
            val = vals[placeholder]
            traced.inputs.append((placeholder, placeholder, tuple(val.shape), _dtype(val.dtype)))
        elif kind == "TOKEN":  # an effect token (an error check's ordering): nothing to compute
            traced.tokens.append(placeholder)
        elif kind in ("PARAMETER", "BUFFER", "CONSTANT_TENSOR"):
            value = (exported.state_dict if target in exported.state_dict else exported.constants)[target]
            if kind == "PARAMETER":
                traced.params[target] = (placeholder, value)
            else:
                traced.constants[placeholder] = value
        else:
            raise OpError(f"from_torch: {name} has an input of kind {kind} ({placeholder}), not supported")
    for spec in exported.graph_signature.output_specs:
        if spec.kind.name not in ("USER_OUTPUT", "TOKEN"):
            raise OpError(
                f"from_torch: {name} changes its state ({spec.kind.name} {spec.target}); symgrad imports "
                "programs whose outputs are their only effect (call module.eval(), avoid in-place updates "
                "of buffers)"
            )
    return traced


def _mutation(exported) -> str:
    """The first in-place op whose change a later op could read, as PyTorch prints it; "" if none.

    An in-place op is harmless here when the value it changes is read by nothing else and is not
    a view of another value (``y.add_(1)`` on a fresh ``y``, ``detach_``, a buffer's update); then
    its result is the changed value, as an out-of-place op's would be.
    """
    import torch

    for n in exported.graph.nodes:
        if (
            n.op == "call_function"
            and isinstance(n.target, torch._ops.OpOverload)
            and n.target._schema.is_mutable
        ):
            changed = n.args[0] if n.args else None
            if not (
                isinstance(changed, torch.fx.Node)
                and len(changed.users) == 1
                and not _is_view(changed, torch)
            ):
                return n.format_node()
    return ""


def _is_view(node, torch) -> bool:
    """True if ``node`` may share storage with another value (a view op's result)."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return node.op != "placeholder"
    return any(r.alias_info is not None for r in node.target._schema.returns)


def _traced_below_autograd(module, examples, name: str, why: Exception) -> _Traced:
    """Where torch.export fails (torch.func transforms inside): ``make_fx`` below autograd, on the
    functionalized program, with the module's Parameters as inputs. A program that stops
    gradients (``detach``, ``no_grad``) is refused: below autograd those are invisible."""
    import torch
    from torch._decomp import core_aten_decompositions
    from torch.func import functional_call, functionalize
    from torch.fx.experimental.proxy_tensor import make_fx

    params, buffers = dict(module.named_parameters()), dict(module.named_buffers())

    def run(params, buffers, *inputs):
        return functional_call(module, {**params, **buffers}, inputs)

    try:
        marked = make_fx(run, pre_dispatch=True)(params, buffers, *examples)
        stops = [
            n.format_node()
            for n in marked.graph.nodes
            if n.target is torch.ops.aten.detach.default
            or getattr(n.target, "__name__", "") == "_set_grad_enabled"
            and n.args == (False,)
        ]
        graph = make_fx(
            functionalize(run, remove="mutations_and_views"),
            decomposition_table=dict(core_aten_decompositions()),
        )(params, buffers, *examples)
    except Exception as e:
        raise OpError(
            f"from_torch: PyTorch could not trace {name}: torch.export said {type(why).__name__}: {why}; "
            f"make_fx said {type(e).__name__}: {e}"
        ) from e
    if stops:
        raise OpError(
            f"from_torch: torch.export could not trace {name} ({type(why).__name__}: {why}), and the program stops "
            f"gradients ({stops[0]}), which tracing below autograd cannot see; export it without torch.func "
            "transforms, or without detach/no_grad"
        )
    holders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    leaves = torch.utils._pytree.tree_leaves((params, buffers, list(examples)))
    traced = _Traced(graph, [])
    argument_names = input_names(module.forward, len(leaves) - len(params) - len(buffers))
    for k, (holder, value) in enumerate(zip(holders, leaves)):
        if k < len(params):
            traced.params[list(params)[k]] = (holder.name, value)
        elif k < len(params) + len(buffers):
            traced.constants[holder.name] = value
        else:
            display = argument_names[k - len(params) - len(buffers)]
            traced.inputs.append((holder.name, display, tuple(value.shape), _dtype(value.dtype)))
    return traced


def _Function(fn: Callable):
    """A plain function as a Module whose ``forward`` has the function's signature, so the
    exported inputs carry its argument names."""
    torch = _torch()

    class Function(torch.nn.Module):  # type: ignore[name-defined]
        def forward(self, *args):
            return fn(*args)

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: PyTorch names the inputs
        return Function()
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    Function.forward.__signature__ = inspect.Signature([self_param, *params])  # type: ignore[attr-defined]
    return Function()
