"""Tracing a user function into the graph, and putting results back into tensors.

Each differentiated call gives its inputs fresh variables named after the
function's parameters (``construct(self, x, y)`` -> ``x``, ``y``). Inputs that are
plain values stay those variables (so formulas read ``x1..x6``); inputs that are
themselves symbolic (an outer trace's variables, as in nested ``GradOperation``)
are substituted back afterwards, which is what makes higher orders work.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from symgrad.core.graph import Node, Var, free_vars
from symgrad.core.registry import substitute
from symgrad.errors import GradError, GradTypeError
from symgrad.tensor import Tensor, bind_input, merge_env

READER_NAMES = ("x", "y", "z")  # what a reader calls the inputs of f(*args)


def input_names(fn: Callable, count: int) -> list[str]:
    """Parameter names of ``fn`` (or of ``fn.construct`` for a Cell).

    Inputs gathered by ``*args`` are named as a reader would: by the callable's own
    ``input_names`` where it has them (a PINN network's ``x, t``), else ``x, y, z`` (the letters
    no named parameter takes), else ``x1, x2, ...`` for ``f(*args)`` and ``args1, args2, ...``
    after named parameters.
    """
    target = getattr(fn, "construct", fn)
    names: list[str] = []
    params: Iterable[inspect.Parameter]
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        params = ()
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            names.extend(_gathered_names(fn, p.name, names, count - len(names)))
    names.extend(f"arg{i}" for i in range(len(names), count))
    return names[:count]


def _gathered_names(fn: Callable, gathered: str, named: list[str], count: int) -> list[str]:
    """Names for the ``count`` inputs that ``*gathered`` takes after the ``named`` parameters."""
    own = getattr(fn, "input_names", None)
    if (
        not named
        and isinstance(own, list | tuple)
        and len(own) == count
        and all(isinstance(n, str) for n in own)
    ):
        return list(own)
    letters = [n for n in READER_NAMES if n not in named]
    if count <= len(letters):
        return letters[:count]
    stem = gathered if named else "x"
    return [f"{stem}{i + 1}" for i in range(count)]


def named_like(fn: Callable, wrapper: Callable) -> Callable:
    """Give ``wrapper`` the parameter names of ``fn`` (and the names of its ``*args`` inputs),
    so nested traces name inputs alike."""
    target = getattr(fn, "construct", fn)
    try:
        setattr(wrapper, "__signature__", inspect.signature(target))  # noqa: B010 - functions have no such slot
    except (TypeError, ValueError):
        pass
    own = getattr(fn, "input_names", None)
    if isinstance(own, list | tuple):
        setattr(wrapper, "input_names", list(own))  # noqa: B010 - as above
    return wrapper


def check_arguments(fn: Callable, args: Sequence, note: str) -> None:
    """A GradError naming ``fn`` and ``note`` when ``fn`` cannot take ``args``."""
    try:
        signature = inspect.signature(getattr(fn, "construct", fn))
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*args)
    except TypeError as exc:
        raise GradError(f"{fn_name(fn)} cannot be called with {len(args)} input(s) ({exc}); {note}") from None


def fn_name(fn: Callable) -> str:
    return type(fn).__name__ if hasattr(fn, "construct") else getattr(fn, "__name__", type(fn).__name__)


@dataclass
class Trace:
    """Variables standing for the tensors of one differentiated call."""

    mapping: dict[Var, Node] = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    names: list[str] = field(default_factory=list)  # the traced function's parameter names

    def leaf(self, tensor: Tensor, name: str) -> Tensor:
        """A fresh variable for ``tensor``; symbolic tensors are substituted back later."""
        var = Var(name, tensor.shape, tensor._node.dtype or tensor.dtype.np)
        leaf, env = bind_input(tensor, var)
        if free_vars([tensor._node]):
            self.mapping[var] = tensor._node
        self.env.update(env)
        self.env.update(leaf._env)
        return leaf

    def finish(self, nodes: Sequence[Node], *tensors: Tensor, evaluate: bool = True) -> list[Tensor]:
        """Tensors for ``nodes`` with substituted inputs put back (their values computed together)."""
        nodes = substitute(list(nodes), self.mapping) if self.mapping else list(nodes)
        env = {**self.env, **merge_env(*tensors)}
        results = [Tensor._wrap(n, env) for n in nodes]
        if evaluate:
            Tensor._evaluate_together(results)
        return results


def tensor_leaves(value) -> list[Tensor]:
    """The Tensors in a (nested) tuple, list or dict, in order; other values are constants."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, tuple | list):
        return [t for item in value for t in tensor_leaves(item)]
    return []


def pack_like(structure, tensors: Sequence[Tensor]):
    """``structure`` with its Tensor leaves replaced, in order, by ``tensors``."""
    queue = iter(tensors)

    def rebuild(value):
        if isinstance(value, Tensor):
            return next(queue)
        if isinstance(value, dict):
            return {k: rebuild(v) for k, v in value.items()}
        if isinstance(value, tuple | list):
            return type(value)(rebuild(v) for v in value)
        return value

    return rebuild(structure)


def as_outputs(out, fn: Callable) -> tuple[list[Tensor], bool]:
    """The tensors a function returned, and whether it returned a tuple.

    Nested tuples, lists and dicts are flattened to their Tensor leaves (MindSpore sums the
    gradients of every leaf); numbers in them are constants and add nothing to a gradient.
    """
    if isinstance(out, Tensor):
        return [out], False
    if isinstance(out, tuple | list | dict | bool | int | float):
        return tensor_leaves(out), True
    kind = type(out).__name__
    raise GradError(
        f"{fn_name(fn)} returned {kind} ({out!r:.60}); a differentiated function must return "
        "a Tensor, a number, or a tuple, list or dict of them"
    )


def check_differentiable(tensor: Tensor, what: str, who: str) -> None:
    if not tensor.dtype.is_float:
        raise GradError(
            f"{who}: cannot differentiate with respect to {what}, which has dtype {tensor.dtype} "
            f"and shape {tensor.shape}; pass a Float16/Float32/Float64 tensor"
        )


def check_tensor_input(args: Sequence, position: int, who: str) -> None:
    """Input ``position`` of a call is a float Tensor, else an error naming ``who``."""
    if not isinstance(args[position], Tensor):
        raise GradTypeError(f"{who}: input {position} must be a Tensor, got {type(args[position]).__name__}")
    check_differentiable(args[position], f"input {position}", who)


def trace_inputs(fn: Callable, args: Sequence, trace: Trace) -> list:
    """Leaf tensors for every Tensor argument; other arguments pass through."""
    trace.names = input_names(fn, len(args))
    return [trace.leaf(a, n) if isinstance(a, Tensor) else a for a, n in zip(args, trace.names)]
