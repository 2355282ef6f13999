"""Replaying an FX graph of ATen ops as symgrad nodes: rows, constants folded by PyTorch, decompositions."""

from __future__ import annotations

import operator
from collections.abc import Collection

import numpy as np

from symgrad.core.graph import Node, const
from symgrad.core.registry import make_node
from symgrad.errors import OpError
from symgrad.importers.common import as_recorded, build, import_table
from symgrad.importers.picks import constant_value
from symgrad.importers.torch_convert import _dtype, _numpy, _quiet_torch


class _Replay:
    """Walks an FX graph of ATen ops, building symgrad nodes."""

    def __init__(self, torch):
        self.torch = torch
        self.table = import_table("aten")
        self.decomposed: dict = {}  # (op, argument signature) -> decomposed graph module

    def run(self, module, env: dict, inputs: Collection[str] = ()) -> list[Node]:
        """``module``'s outputs, its placeholders bound by name in ``env``; ``inputs`` names those
        that hold the program's inputs (what is computed from them is never run as a constant,
        even when a call gives them concrete values)."""
        values: dict = {}
        live: set = set()  # the graph's nodes computed from the inputs
        for n in module.graph.nodes:
            if n.op == "placeholder":
                values[n] = env[n.name]
                if n.name in inputs:
                    live.add(n)
            elif n.op == "get_attr":  # a sub-graph, or a tensor the program closes over
                attr = getattr(module, n.target)
                values[n] = const(_numpy(attr)) if isinstance(attr, self.torch.Tensor) else attr
            elif n.op == "call_function":
                if any(a in live for a in n.all_input_nodes):
                    live.add(n)
                values[n] = self.call(n, values, live)
            elif n.op == "output":
                return list(self.torch.utils._pytree.tree_leaves(_substitute(n.args[0], values)))
        raise OpError("from_torch: the exported graph has no output")

    def call(self, n, values: dict, live: set):
        target = n.target
        args, kwargs = _substitute(n.args, values), _substitute(n.kwargs, values)
        args, kwargs = self._convert(args), self._convert(kwargs)
        if target is operator.getitem:
            return args[0][args[1]]
        if getattr(target, "__module__", None) == "_operator" and all(
            isinstance(a, int | float) for a in args
        ):
            return target(*args)  # arithmetic on sizes (a boolean mask's count), known numbers here
        if target is self.torch.ops.higher_order.with_effects:  # an op run for its side effect
            effect = getattr(args[1], "__name__", str(args[1]))
            if effect.startswith(("_linalg_check_errors", "_assert")):  # checks: nothing to compute
                return None, None
            raise OpError(f"from_torch: the effectful op {effect} in {n.format_node()} has no row")
        if target is self.torch.ops.higher_order.wrap_with_set_grad_enabled:
            enabled, body, *inner = args
            holders = _placeholders(body)
            within = {p.name for p, a in zip(holders, n.args[2:]) if a in live}
            outs = self.run(body, {p.name: a for p, a in zip(holders, inner)}, within)
            return tuple(outs if enabled else [make_node("stop_gradient", (o,)) for o in outs])
        # prims (PyTorch's primitives, which some decompositions emit) share ATen's names for these ops
        if not isinstance(target, self.torch._ops.OpOverload) or target.namespace not in ("aten", "prims"):
            raise OpError(
                f"from_torch: {getattr(target, '__name__', target)!r} in {n.format_node()} is not an ATen op"
            )
        packet, overload = target.overloadpacket.__name__, target._overloadname
        if packet.startswith("_assert"):  # shape and dtype assertions: nothing to compute
            return None
        if packet == "sym_size":  # a size PyTorch left symbolic (after a boolean mask): symgrad knows it
            return args[0].shape[args[1]]
        if target._schema.is_mutable:  # harmless here (see _mutation): computed as its out-of-place twin
            if not n.users:  # a buffer's update, or a write-back into an input
                return None
            packet = packet.removesuffix("_")
        found = self.table.get(f"{packet}.{overload}") or self.table.get(packet)
        if n not in live and self._on_constants(n, target, values, found is None):
            return self._folded(n, target, values)
        if found is None:
            return self._decomposed(n, target, values, live)
        node = build(*found, args, kwargs, "from_torch")
        return _as_torch_has_it(node, n, f"aten.{packet}.{overload}")

    def _on_constants(self, n, target, values: dict, rowless: bool) -> bool:
        """Whether ``n``, computed from no input, is a constant: its tensors are all constants (index
        arithmetic, a literal's conversions), or it has none and no row (``prims.iota``); random
        ops are not."""
        if self.torch.Tag.nondeterministic_seeded in target.tags:
            return False
        inputs = [values[t] for t in n.all_input_nodes]
        if not any(isinstance(v, Node) for v in inputs):
            return rowless and not inputs
        return all(
            isinstance(v, int | float | bool) or isinstance(v, Node) and constant_value(v) is not None
            for v in inputs
        )

    def _folded(self, n, target, values: dict):
        """``n`` run by PyTorch itself on its constant inputs, each in the dtype PyTorch records."""
        torch = self.torch

        def concrete(t):
            v = values[t]
            if not isinstance(v, Node):
                return v
            val, value = t.meta.get("val"), np.asarray(constant_value(v))
            dtype = _dtype(val.dtype) if isinstance(val, torch.Tensor) else v.dtype or value.dtype
            return torch.as_tensor(value.astype(dtype))

        args, kwargs = torch.fx.node.map_arg((n.args, n.kwargs), concrete)
        kwargs = {k: None if k == "device" else v for k, v in kwargs.items()}  # computed here, on the CPU
        with _quiet_torch():
            out = target(*args, **kwargs)
        return torch.utils._pytree.tree_map(
            lambda v: const(_numpy(v)) if isinstance(v, torch.Tensor) else v, out
        )

    def _convert(self, value):
        """torch constants as symgrad's: tensors as constants, dtypes as NumPy dtypes."""
        torch = self.torch
        if isinstance(value, torch.Tensor):
            return const(_numpy(value))
        if isinstance(value, torch.dtype):
            return _dtype(value)
        if isinstance(value, list | tuple):
            return type(value)(self._convert(v) for v in value)
        if isinstance(value, dict):
            return {k: self._convert(v) for k, v in value.items()}
        return value

    def _decomposed(self, n, target, values: dict, live: set):
        """An op without a row: PyTorch's core-ATen decomposition of it, imported op by op."""
        torch = self.torch
        tensors = list(dict.fromkeys(n.all_input_nodes))
        if any(not isinstance(d, int) for t in tensors for d in t.meta["val"].shape):
            raise self._unsupported(
                target, " (a shape that depends on data, as after a boolean mask, cannot be decomposed)"
            )
        key = (
            target,
            tuple((tuple(t.meta["val"].shape), t.meta["val"].dtype) for t in tensors),
            repr(n.args),
            repr(n.kwargs),
        )
        if key not in self.decomposed:

            class Call(torch.nn.Module):  # type: ignore[name-defined]
                def forward(self, *examples):
                    swap = dict(zip(tensors, examples))
                    args, kwargs = torch.fx.node.map_arg((n.args, n.kwargs), lambda v: swap[v])
                    return target(*args, **kwargs)

            examples = tuple(torch.zeros(t.meta["val"].shape, dtype=t.meta["val"].dtype) for t in tensors)
            # PyTorch's core-ATen decompositions, and this op's own where it is a core op itself
            # (batch norm's); torch.export's are functional: no op in them writes in place
            table = torch.export.default_decompositions()
            if target in torch._decomp.decomposition_table:
                table[target] = torch._decomp.decomposition_table[target]
            try:
                with _quiet_torch():
                    exported = torch.export.export(Call(), examples).run_decompositions(table)
            except Exception as e:
                raise self._unsupported(target, f" (PyTorch could not decompose it: {e})") from e
            graph = exported.graph_module
            if target in [m.target for m in graph.graph.nodes if m.op == "call_function"]:
                raise self._unsupported(target, "")
            # the op's own results; updates of its inputs (batch norm's running statistics) come first
            specs = exported.graph_signature.output_specs
            self.decomposed[key] = (
                graph,
                [i for i, spec in enumerate(specs) if spec.kind.name == "USER_OUTPUT"],
                [s.arg.name for s in exported.graph_signature.input_specs if s.kind.name == "TOKEN"],
            )
        graph, results, tokens = self.decomposed[key]
        holders = [h for h in _placeholders(graph) if h.name not in tokens]
        env = {p.name: values[t] for p, t in zip(holders, tensors)}
        env.update(dict.fromkeys(tokens))  # effect tokens: ordering only, nothing to compute
        try:
            everything = self.run(graph, env, {p.name for p, t in zip(holders, tensors) if t in live})
            outs = [everything[i] for i in results]
        except _Unsupported as e:  # name the program's own op, and the piece of it with no row
            raise self._unsupported(e.op, e.why, within=str(target)) from None
        return outs[0] if len(outs) == 1 and not isinstance(n.meta.get("val"), list | tuple) else tuple(outs)

    def _unsupported(self, target, why: str, within: str = "") -> _Unsupported:
        """The error for ``target``, an op with no row (reached through the decomposition of the
        program's op ``within``)."""
        names = ", ".join(sorted(self.table))
        where = (
            f"the PyTorch op {within}, decomposed by PyTorch, uses {target}, which"
            if within
            else f"the PyTorch op {target}"
        )
        return _Unsupported(
            str(target),
            why,
            f"from_torch: {where} has no row in symgrad's op table{why}; ATen ops symgrad imports (others are "
            f"decomposed into these): {names}",
        )


class _Unsupported(OpError):
    """An op symgrad cannot import: ``op`` (as PyTorch names it) and why."""

    def __init__(self, op: str, why: str, message: str):
        super().__init__(message)
        self.op, self.why = op, why


def _as_torch_has_it(node, n, name: str):
    """``node`` checked against PyTorch's record of ``n`` (shape, dtype) where it has one."""
    val = n.meta.get("val")
    if node is None or val is None or not isinstance(node, Node):
        return node
    return as_recorded(node, tuple(val.shape), _dtype(val.dtype), "from_torch", f"{name} ({n.format_node()})")


def _substitute(value, values: dict):
    """FX arguments with graph nodes replaced by what they evaluated to."""
    import torch.fx

    return torch.fx.node.map_aggregate(value, lambda v: values[v] if isinstance(v, torch.fx.Node) else v)


def _placeholders(module) -> list:
    return [n for n in module.graph.nodes if n.op == "placeholder"]
