"""PyTorch programs as symgrad graphs: ``from_torch(module_or_function, *example_inputs)``.

``torch.export`` records the program as ATen ops (its training IR, where ``detach`` and
``torch.no_grad`` blocks are still visible); where it cannot (``torch.func`` transforms inside),
``make_fx`` traces the functionalized program below autograd. Each op is found in the op table by its ATen
spelling (``OpDef.imports``); an op without one is decomposed by PyTorch's own core-ATen
decompositions and its pieces are imported the same way. An op computed from constants alone (index
arithmetic, ``iota``, a literal's conversions) is run by PyTorch itself and becomes a constant, so
indices built that way (padding, interpolation, loss targets) are constant indices. The result is an
``nn.Cell`` whose Parameters are the module's, under their PyTorch names, so ``grad``, ``explain``,
closed forms, kernels and ``verify`` work on it as on any symgrad network.
"""

from __future__ import annotations

import contextlib
import inspect
import operator
import re
import warnings
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.autodiff.tracing import input_names
from symgrad.core.families.conversion import cast
from symgrad.core.graph import Node, const
from symgrad.core.registry import make_node
from symgrad.errors import OpError
from symgrad.importers.common import as_recorded, build, import_table
from symgrad.importers.picks import constant_value
from symgrad.nn.cell import Cell
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor, merge_env


def from_torch(program, *example_inputs) -> TorchProgram:
    """Import a PyTorch ``nn.Module`` or function, traced at ``example_inputs`` (torch tensors).

    The program is specialised to the inputs' shapes and dtypes and to any Python values
    that steer it (as ``torch.export`` does). Call the result with symgrad Tensors (or NumPy
    arrays) of those shapes, one per tensor in ``example_inputs`` (nested lists, tuples and
    dicts of tensors are flattened, in PyTorch's pytree order).
    """
    torch = _torch()
    module = program if isinstance(program, torch.nn.Module) else _Function(program)
    name = (
        type(program).__name__ if isinstance(program, torch.nn.Module) else getattr(program, "__name__", "fn")
    )
    with _quiet_torch():
        try:
            exported = torch.export.export(module, tuple(example_inputs))
            mutation = _mutation(exported)
            if mutation:  # values changed in place, through views too: functionalized below autograd
                raise OpError(f"the program changes a value in place ({mutation})")
        except Exception as e:  # torch.export cannot trace torch.func transforms, for one
            traced = _traced_below_autograd(module, example_inputs, name, e)
        else:
            traced = _from_export(exported, name)
        return TorchProgram(traced, name)


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


class TorchProgram(Cell):
    """An imported PyTorch program as a symgrad Cell: calling it replays its ATen ops.

    Its inputs have the PyTorch program's argument names; its Parameters are the module's,
    kept under their PyTorch names (``parameter("0.weight")``) and shown in formulas as
    identifiers (``layer0_weight``).
    """

    name: str
    _graph: Any
    _inputs: list[tuple[str, str, tuple, np.dtype]]
    _bound: dict[str, Tensor]
    _tokens: list[str]
    _replay: _Replay

    def __init__(self, traced: _Traced, name: str):
        super().__init__()
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_graph", traced.graph)
        object.__setattr__(self, "_inputs", traced.inputs)
        bound: dict[str, Tensor] = {p: Tensor(_numpy(v)) for p, v in traced.constants.items()}
        for torch_name, (placeholder, value) in traced.params.items():
            param = Parameter(
                _numpy(value), name=_identifier(torch_name), requires_grad=bool(value.requires_grad)
            )
            self._params[torch_name] = param
            bound[placeholder] = param
        object.__setattr__(self, "_bound", bound)
        object.__setattr__(self, "_tokens", traced.tokens)
        object.__setattr__(self, "_replay", _Replay(_torch()))

        def construct(*inputs):
            return self._construct(*inputs)

        # derivatives and closed forms name the inputs as the PyTorch program does
        positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
        construct.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(display, positional) for _, display, _, _ in self._inputs]
        )
        object.__setattr__(self, "construct", construct)

    @property
    def input_names(self) -> list[str]:
        """The program's tensor inputs, by their argument names."""
        return [display for _, display, _, _ in self._inputs]

    def parameter(self, torch_name: str) -> Parameter:
        """The Parameter PyTorch calls ``torch_name`` (``"0.weight"``; in formulas ``layer0_weight``)."""
        try:
            return self._params[torch_name]
        except KeyError:
            raise KeyError(
                f"{self.name} has no Parameter {torch_name!r}; it has {sorted(self._params)}"
            ) from None

    def _construct(self, *inputs):
        if len(inputs) != len(self._inputs):
            raise TypeError(f"{self.name}: takes {len(self._inputs)} tensor input(s), got {len(inputs)}")
        tensors = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs]
        env: dict = {}
        for (placeholder, display, shape, dtype), x in zip(self._inputs, tensors):
            if x.shape != shape:
                raise OpError(
                    f"{self.name}: input {display!r} has shape {x.shape}; the program was traced for "
                    f"{shape} (import it again with inputs of the new shape)"
                )
            env[placeholder] = cast(x._node, dtype)
        env.update({p: t._node for p, t in self._bound.items()})
        env.update(dict.fromkeys(self._tokens))
        outputs = self._replay.run(self._graph, env, {placeholder for placeholder, *_ in self._inputs})
        context = merge_env(*tensors, *self._bound.values())
        wrapped = [Tensor._wrap(n, context) for n in outputs]
        return wrapped[0] if len(wrapped) == 1 else tuple(wrapped)


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


def _identifier(torch_name: str) -> str:
    """A PyTorch parameter name as a formula can show it: ``l1.weight`` -> ``l1_weight``,
    ``0.weight`` (in a Sequential) -> ``layer0_weight``."""
    name = re.sub(r"\W", "_", torch_name)
    return f"layer{name}" if name[0].isdigit() else name


def _placeholders(module) -> list:
    return [n for n in module.graph.nodes if n.op == "placeholder"]


def _numpy(tensor) -> np.ndarray:
    return tensor.detach().cpu().numpy().copy()


def _dtype(torch_dtype) -> np.dtype:
    name = str(torch_dtype).removeprefix("torch.")
    try:
        return np.dtype(name)
    except TypeError:
        raise OpError(
            f"from_torch: PyTorch dtype {torch_dtype} has no NumPy counterpart symgrad computes in"
        ) from None


@contextlib.contextmanager
def _quiet_torch():
    """PyTorch's own notices from inside its tracers are not the user's to act on (some are raised as
    a tracer's with-block ends, from contextlib: an RNN's weights assigned during export)."""
    with warnings.catch_warnings():
        for category in (FutureWarning, DeprecationWarning, UserWarning):
            warnings.filterwarnings("ignore", category=category, module=r"(torch|copyreg|contextlib)")
        yield


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("from_torch needs PyTorch: pip install torch") from None
    return torch


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
