"""``jit``, ``jit_class`` and ``mutable``: MindSpore's graph-compilation markers.

A jitted function is traced once per input signature and its graph reused, as MindSpore's graph
mode compiles once per signature. The signature is each Tensor argument's shape and dtype, the
value of every other argument (numbers, strings, None and tuples of them), the execution mode
(``set_context(mode=...)``: PyNative gives a frozen Parameter a zero gradient), and, for a Cell,
which Cell, the training flag of it and of each of its sub-cells, and its Parameters'
``requires_grad``. A trace is reused only if the call was a pure function of that signature: it
read no traced value into Python (``if x > 0``, ``float(x)``, ``print(x)``, a weight's value), set
no Parameter (an optimizer's updates excepted: below) and no Cell attribute, and wrote into no
Tensor (``x[0] = 5.0``). Otherwise the function runs in full on every call, following the values of
each call (as MindSpore's PyNative mode does); a write into a Tensor argument reaches the caller's
Tensor on every call, the traced one included. As in graph mode, Python state read by a reused
trace (a global, a plain attribute) is the state of its first call. A call with keyword arguments,
or another kind of argument, runs in full. ``jitted.cache`` counts the traces, reuses and full runs.

Reuse gives the same graph as a new trace: outside a differentiated call the cached outputs are
evaluated with the new values in one compiled kernel; inside one, the cached graph's inputs are
replaced by the caller's, so derivatives flow through it.

A training step (an optimizer called inside: ``TrainOneStepCell``, or ``value_and_grad`` and
``optimizer(grads)``) is traced with its Parameter updates staged (``symgrad/train_step.py``):
the loss, the new weights and the optimizer's new state are the outputs of one kernel, whose
inputs are the data, the labels and the weights; each reuse evaluates it and writes the new
values back, as the un-jitted step would have set them. A step whose Python reads a weight it
updated, or that updates a weight twice, runs in full.
"""

from __future__ import annotations

import functools
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from symgrad import context, observed, train_step
from symgrad.autodiff import recording
from symgrad.autodiff.tracing import Trace, pack_like, tensor_leaves, trace_inputs
from symgrad.core.graph import Node, Var, free_vars
from symgrad.core.registry import substitute
from symgrad.nn.cell import Cell
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor, merge_env

SIGNATURES_KEPT = 64  # traces kept per function (and per Cell, for a jitted construct), least recent dropped


@dataclass
class _Traced:
    """A pure call's graph: its Tensor inputs' variables, its outputs, and what it returned; for a
    training step also the Parameters it updates, with their new values' nodes."""

    inputs: list[Var]
    outputs: list[Node]
    returned: Any  # the first call's return value (its Tensors are placeholders for the outputs)
    writes: list[tuple[Parameter, Node]] = field(default_factory=list)
    assumptions: list[Callable[[], bool]] = field(default_factory=list)
    finite: list[tuple[str, Parameter, Node]] = field(default_factory=list)
    data_checks: list[tuple[int, Callable]] = field(default_factory=list)  # (Tensor input's position, check)
    kernel: Any = None  # the compiled kernel of outputs and writes (a fixed call), made at the first reuse
    kernel_backend: str = ""
    variables: list[Var] = field(default_factory=list)  # the kernel's arguments
    sources: list = field(default_factory=list)  # per argument: an input's position, or a Parameter


@dataclass
class JitCache:
    """Traces per signature (None: that signature runs in full), and counts of what calls did."""

    traces: int = 0
    reuses: int = 0
    full_runs: int = 0
    per_owner: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)
    unowned: OrderedDict = field(default_factory=OrderedDict)

    def table(self, owner: Cell | None) -> OrderedDict:
        """The traces of a jitted construct's Cell, or of a plain function."""
        if owner is None:
            return self.unowned
        return self.per_owner.setdefault(owner, OrderedDict())


def jit(function: Callable | None = None, **options: Any) -> Callable:
    """Mark ``function`` (or ``construct``) for graph compilation; usable as ``@jit`` or ``@jit(...)``.

    Traced once per signature (see the module's docstring for the retrace rule). The options
    MindSpore takes (``mode``, ``jit_config``, ``backend``, ``capture_mode``...) are accepted
    and have no effect.
    """
    if function is None:
        return lambda fn: jit(fn, **options)
    if not callable(function):
        raise TypeError(f"jit: expected a function or Cell, got {type(function).__name__}")
    cache = JitCache()

    @functools.wraps(function)
    def jitted(*args, **kwargs):
        owner = args[0] if args and isinstance(args[0], Cell) else None  # a jitted construct's self
        key = _signature(function, args[1:] if owner is not None else args, kwargs, owner)
        table = cache.table(owner)
        if key is None or table.get(key, False) is None:
            cache.full_runs += 1
            return _returned(function(*args, **kwargs))
        traced = table.get(key)
        if traced is not None and all(test() for test in traced.assumptions):
            if traced.writes and not _concrete(args):  # a training step inside a differentiated call
                cache.full_runs += 1
                return _returned(function(*args))
            cache.reuses += 1
            table.move_to_end(key)
            return _replay(traced, args)
        cache.traces += 1
        traced, result = _trace(function, args)
        table[key] = traced
        if len(table) > SIGNATURES_KEPT:
            table.popitem(last=False)
        return result

    jitted.__jit_options__ = options  # type: ignore[attr-defined]
    jitted.cache = cache  # type: ignore[attr-defined]
    return jitted


def _returned(out):
    """MindSpore's graph compiler evaluates a returned generator expression into a list."""
    return list(out) if isinstance(out, types.GeneratorType) else out


def _signature(function: Callable, args: tuple, kwargs: dict, owner: Cell | None) -> tuple | None:
    """The key of a call's trace, or None when the call must run in full."""
    if kwargs:
        return None
    parts: list = []
    for a in args:
        if isinstance(a, Tensor):
            parts.append(("tensor", a.shape, a._node.dtype or a.dtype.np))
        elif _is_constant(a):
            parts.append(("value", type(a).__name__, a))
        else:
            return None
    parts.append(("mode", context.get_context("mode")))
    for cell in (function, owner):
        if isinstance(cell, Cell):
            parts.append(("cell", _cell_state(cell)))
    return tuple(parts)


def _cell_state(cell: Cell) -> tuple:
    """What of a Cell changes a call's result besides its weights' values: the training flags of it
    and its sub-cells, and which of its Parameters require gradients."""
    if "_cells" not in vars(cell):  # its __init__ skipped Cell's: no sub-cells, no Parameters
        return (bool(getattr(cell, "training", False)),)
    flags = tuple(bool(getattr(c, "training", False)) for _, c in cell.cells_and_names())
    return flags, tuple(bool(p.requires_grad) for p in cell.get_parameters())


def _is_constant(value) -> bool:
    if value is None or isinstance(value, bool | int | float | str):
        return True
    return isinstance(value, tuple) and all(_is_constant(v) for v in value)


def _trace(function: Callable, args: tuple) -> tuple[_Traced | None, Any]:
    """Run ``function`` on variables standing for its Tensor arguments: its result, and its graph
    if it was a pure function of its arguments' signature (None if not)."""
    trace = Trace()
    leaves = trace_inputs(function, args, trace)
    for k, (arg, leaf) in enumerate(zip(args, leaves)):
        if isinstance(arg, Tensor) and not free_vars([arg._node]):  # a plain value: no tracing warnings
            leaves[k] = Tensor._wrap(leaf._node, {leaf._node: arg._value()})
    inputs = [leaf._node for leaf in leaves if isinstance(leaf, Tensor) and isinstance(leaf._node, Var)]
    with observed.watching() as watch, train_step.staging(watch) as stage:
        raw = _returned(function(*leaves))
    wrote = _write_back(args, leaves, inputs)
    outputs = tensor_leaves(raw)
    mine = set(inputs)
    read_traced = any(v in mine or v.param is not None for v in watch.read)
    writes = [(p, t._node) for p, t in stage.writes.items()]
    nodes = [o._node for o in outputs] + [node for _, node in writes]
    closed = all(v in mine or v.param is not None for v in free_vars(nodes))
    pure = closed and not wrote and not watch.changed_state and not read_traced
    pure = pure and stage.replayable(outputs)
    result = pack_like(raw, trace.finish([o._node for o in outputs], *outputs))
    if not pure:
        return None, result
    finite = [(who, p, g._node) for who, p, g in stage.finite]
    position = {var: k for k, var in enumerate(inputs)}
    checks = []
    for chain, check in stage.data_checks:
        found = [position[v] for v in chain if v in position]
        if not found:  # data of another kind of input: read as Python reads it, every call in full
            return None, result
        checks.append((found[0], check))
    traced = _Traced(inputs, [o._node for o in outputs], raw, writes, stage.assumptions, finite, checks)
    return traced, result


def _write_back(args: tuple, leaves: list, inputs: list[Var]) -> bool:
    """Make the writes the traced call made into its Tensor arguments' stand-ins ``inputs``
    (``x[0] = 5.0``) on the caller's Tensors, as an un-jitted call makes them; True if it made any."""
    pairs = [(a, leaf) for a, leaf in zip(args, leaves) if isinstance(a, Tensor)]
    if all(leaf._node is var for (_, leaf), var in zip(pairs, inputs)):
        return False
    mapping: dict[Var, Node] = {var: a._node for (a, _), var in zip(pairs, inputs)}
    outer = merge_env(*args)
    for (arg, leaf), var in zip(pairs, inputs):
        if leaf._node is var:
            continue
        if isinstance(arg, Parameter):  # a Parameter's node is its variable: its data takes the value
            arg.set_data(leaf.asnumpy())
        else:
            inner = {k: v for k, v in leaf._env.items() if k not in mapping}
            arg._node = substitute([leaf._node], mapping)[0]
            arg._env, arg._cache = {**outer, **inner}, None
    return True


def _concrete(args: tuple) -> bool:
    """True outside any differentiation: the arguments are values, not another trace's variables."""
    return recording.depth() == 0 and not free_vars([a._node for a in args if isinstance(a, Tensor)])


def _replay(traced: _Traced, args: tuple):
    """The traced graph at new arguments of its signature."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    if traced.writes or _concrete(args):  # outside any differentiation: one kernel, kept; constant results
        return pack_like(traced.returned, train_step.run(traced, tensors))
    for position, check in traced.data_checks:
        check(tensors[position]._value())
    weights = [v.param for v in free_vars(traced.outputs) if v.param is not None]
    # inside a differentiated call: the caller's nodes in place of the trace's inputs, so derivatives flow
    nodes = substitute(traced.outputs, dict(zip(traced.inputs, (t._node for t in tensors))))
    env = merge_env(*tensors, *weights)
    results = [Tensor._wrap(n, env) for n in nodes]
    Tensor._evaluate_together(results)
    return pack_like(traced.returned, results)


def jit_class(cls: type) -> type:
    """Mark a class whose instances are used inside jitted code; returns it unchanged."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expected a class, got {type(cls).__name__}")
    return cls


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """MindSpore marks a value as variable for graph compilation; symgrad keys traces on shapes, so it is the value."""
    return input_data
