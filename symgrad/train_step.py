"""Staged Parameter updates: how a jitted training step becomes one graph with its updates as outputs.

While ``jit`` traces a call it opens a :class:`Stage`. An optimizer called inside writes its new
weights and state (moments, step counts) through :func:`write`: the stage keeps each new value as
a graph node of the call's inputs and the Parameters' values at the start of the call, and then
sets the Parameters' data (so Python inside the call sees the updated weights, as without ``jit``).
Its own reads and writes are hidden from ``jit``'s purity check; any other read of a weight still
makes the call run in full. ``jit`` then compiles the call's outputs and the staged nodes into one
kernel and, on each later call of that signature, evaluates it and writes the new values back.

``assume(test)`` records a condition on the weights' values that the trace relied on (a momentum
of 0, a step inside a per-step learning-rate list); a later call where it fails is traced again.
``check_data(labels, check)`` checks the values of a call's data (class indices in range) on every
call, outside the graph, so integer labels stay data and the trace is reused when they change.
``watch_finite(param, grad)`` names the gradient to blame when a replayed step gives a weight a
non-finite value, so the step is refused with the error the un-jitted optimizer raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

import lowering
from symgrad import context, observed
from symgrad.core.graph import Node, Var, const, free_vars
from symgrad.evaluate import Deferred, evaluate
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor

_stages: list[Stage] = []


@dataclass
class Stage:
    """What one traced call wrote: new values per Parameter, and what replaying it assumes."""

    watch: observed.Watch  # jit's watch of the traced call (the stage's own reads are taken out of it)
    writes: dict[Parameter, Tensor] = field(default_factory=dict)  # in the order of the first write
    starts: dict[Parameter, object] = field(default_factory=dict)  # each written Parameter's data before
    rewritten: bool = False  # a Parameter written twice: the graph cannot say which value a node read
    assumptions: list[Callable[[], bool]] = field(default_factory=list)
    finite: list[tuple[str, Parameter, Tensor]] = field(default_factory=list)  # (optimizer, weight, gradient)
    data_checks: list[tuple[list[Var], Callable[[np.ndarray], None]]] = field(default_factory=list)

    def replayable(self, results: list[Tensor]) -> bool:
        """True if every staged node and every result read the weights of the call's start: no
        Parameter was written twice, and none built after a write used the written value."""
        if self.rewritten:
            return False
        for t in [*results, *self.writes.values()]:
            for p, start in self.starts.items():
                bound = t._env.get(p._node)
                if bound is not None and bound is not start:
                    return False
        return True


@contextlib.contextmanager
def staging(watch: observed.Watch) -> Iterator[Stage]:
    """Stage the optimizer writes made inside (``jit`` opens one per traced call)."""
    stage = Stage(watch)
    _stages.append(stage)
    try:
        yield stage
    finally:
        _stages.remove(stage)


def active() -> Stage | None:
    """The stage of the innermost traced call, or None outside ``jit``."""
    return _stages[-1] if _stages else None


def write(updates: list[tuple[Parameter, Tensor]]) -> None:
    """Give each Parameter its new value (graph Tensors in the call's variables), evaluated together.

    The evaluation and the assignments are the optimizer's own: they are hidden from the stage's
    watch, so they do not make the traced call impure.
    """
    stage = active()
    assert stage is not None, "train_step.write is called inside a staged trace"
    for p, value in updates:
        if p in stage.writes:
            stage.rewritten = True
        stage.starts.setdefault(p, p._data)
        stage.writes[p] = value
    read, changed = set(stage.watch.read), stage.watch.changed_state
    try:
        Tensor._evaluate_together([value for _, value in updates])
        arrays = [value.asnumpy() for _, value in updates]
        for (p, _), array in zip(updates, arrays):
            p.assign(array.astype(p.dtype.np, copy=False))
    finally:
        stage.watch.read.clear()
        stage.watch.read.update(read)
        stage.watch.changed_state = changed


def assume(test: Callable[[], bool]) -> None:
    """Record a condition on the weights that the staged trace relied on (true now)."""
    stage = active()
    if stage is not None:
        stage.assumptions.append(test)


def check_data(tensor: Tensor, check: Callable[[np.ndarray], None]) -> None:
    """Run ``check`` (it raises on bad values) on ``tensor``'s values. Inside a traced call, where
    ``tensor`` is one of the call's inputs, its value is read without making the call impure, and
    every reuse of the trace runs ``check`` on that call's value before its kernel."""
    stage = active()
    chain: list[Var] = []
    source = tensor
    while isinstance(source._node, Var) and isinstance(source._env.get(source._node), Deferred):
        chain.append(source._node)  # a leaf standing for an outer trace's leaf, or for the data
        source = source._env[source._node].tensor
    bound = source._env.get(source._node)
    if isinstance(source._node, Var) and isinstance(bound, np.ndarray):  # jit's leaf, bound to the data
        chain.append(source._node)
        value = bound
    elif not free_vars([source._node]):
        value = source._value()
    else:
        value = None
    if stage is None or not chain or value is None:
        check(tensor.asnumpy())
        return
    check(value)
    stage.data_checks.append((chain, check))


def watch_finite(who: str, param: Parameter, grad: Tensor) -> None:
    """``grad`` is the gradient ``who`` updates ``param`` with (reported if the update is not finite)."""
    stage = active()
    if stage is not None:
        stage.finite.append((who, param, grad))


def data(p: Parameter):
    """A Parameter's current array, read without noting a read (for ``assume`` tests and guards)."""
    return p._data


def run(traced, tensors: list[Tensor]) -> list[Tensor]:
    """One replay of a staged training step (``jit``'s ``_Traced``) at the Tensor arguments
    ``tensors``: its outputs, after its new weights and state are written back.

    The kernel of the outputs and the new values is compiled at the first replay and kept; the
    Parameters' arrays are passed as they are. A step that gives a weight a non-finite value is
    refused before anything is written, with the error the un-jitted optimizer raises.
    """
    if not traced.variables:
        variables = free_vars(traced.outputs + [node for _, node in traced.writes])
        position = {var: k for k, var in enumerate(traced.inputs)}
        traced.sources = [position[v] if v in position else v.param for v in variables]
        traced.variables = variables
    for position, check in traced.data_checks:
        check(tensors[position]._value())
    values = [tensors[s]._value() if isinstance(s, int) else s._data for s in traced.sources]
    if traced.kernel is None or traced.kernel_backend != context.backend_name():
        traced.kernel_backend = context.backend_name()
        compiled = lowering.compile_kernel(
            traced.outputs + [n for _, n in traced.writes], traced.variables, backend=traced.kernel_backend
        )
        traced.kernel = compiled.fixed_call(*values)
    observed.note_read(traced.variables)
    results = traced.kernel(*values)
    count = len(traced.outputs)
    new = results[count:]
    if traced.finite:
        _check_finite(traced, new, tensors)
    for (p, _), value in zip(traced.writes, new):
        p.assign(value if value.dtype == p._data.dtype else value.astype(p._data.dtype))
    return [Tensor._wrap(const(value), {}) for value in results[:count]]


def check_finite(who: str, p: Parameter, grad: np.ndarray) -> None:
    """A FloatingPointError naming ``p`` and the first non-finite element of its gradient, if any."""
    if not np.all(np.isfinite(grad)):
        bad = np.argwhere(~np.isfinite(grad))[0]
        raise FloatingPointError(
            f"{who}: the gradient of {p.name!r} is {grad[tuple(bad)]} at index "
            f"{tuple(int(k) for k in bad)}; no weight was changed"
        )


def _check_finite(traced, new: list, tensors: list[Tensor]) -> None:
    """Refuse the step (nothing written) when a gradient behind a new weight is not finite."""
    written = {p: value for (p, _), value in zip(traced.writes, new)}
    if all(np.isfinite(written[p].sum()) for _, p, _ in traced.finite):
        return
    position = {var: k for k, var in enumerate(traced.inputs)}
    grads: list[Node] = [g for _, _, g in traced.finite]
    env = {v: tensors[position[v]]._value() if v in position else v.param._data for v in free_vars(grads)}
    for (who, p, _), value in zip(traced.finite, evaluate(grads, env)):
        check_finite(who, p, value)
