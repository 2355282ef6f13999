"""JAX programs as symgrad graphs: ``from_jax(function, *example_args)``.

``jax.make_jaxpr`` records the function as JAX primitives; each is found in the op table by its
JAX spelling (``OpDef.imports``, ``registry.lax``). Calls with an inner jaxpr (``jit``,
``custom_jvp_call``, ``custom_vjp_call``) are imported through their inner jaxpr: for a custom
rule that is the primal computation, so the closed form is the exact derivative of what the
function computes, whatever its custom rule says. Loops are unrolled: ``scan`` step by step, a
``while_loop`` while its condition is a constant (a counter's; integer arithmetic on constants,
such as the wrap of negative indices, is run by JAX itself).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import getitem, stack
from symgrad.core.graph import Const, Node, const
from symgrad.core.registry import imports_of
from symgrad.errors import OpError
from symgrad.importers.common import as_recorded, build
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor, merge_env

# params that say how or where to compute, not what: the imported graph is the same without them
_PLACEMENT = {"accuracy", "sharding", "out_sharding", "precision", "preferred_element_type", "out_dtype"}
# calls whose inner jaxpr is what they compute
_CALLS = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
          "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr", "custom_vjp_call_jaxpr": "fun_jaxpr",
          "remat": "jaxpr", "checkpoint": "jaxpr"}  # fmt: skip


def from_jax(function, *example_args) -> JaxProgram:
    """Import a JAX function, traced at ``example_args`` (arrays, or pytrees of them).

    The program is specialised to the arguments' shapes and dtypes. Call the result with one
    symgrad Tensor (or NumPy array) per array leaf of ``example_args``, in JAX's pytree order.
    """
    import jax

    name = getattr(function, "__name__", type(function).__name__)
    try:
        closed = jax.make_jaxpr(function)(*example_args)
    except Exception as e:
        raise OpError(f"from_jax: JAX could not trace {name}: {type(e).__name__}: {e}") from e
    leaves = jax.tree_util.tree_leaves(list(example_args))
    names = _argument_names(function, example_args, jax)
    return JaxProgram(closed, name, names, [np.dtype(x.dtype) for x in leaves])


class JaxProgram(Cell):
    """An imported JAX function as a symgrad Cell: calling it replays its primitives."""

    name: str
    _closed: Any
    _inputs: list[tuple[str, tuple, np.dtype]]

    def __init__(self, closed, name: str, names: list[str], dtypes: list[np.dtype]):
        super().__init__()
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_closed", closed)
        shapes = [tuple(v.aval.shape) for v in closed.jaxpr.invars]
        object.__setattr__(self, "_inputs", list(zip(names, shapes, dtypes)))

        def construct(*inputs):
            return self._construct(*inputs)

        positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
        construct.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(n, positional) for n in names]
        )
        object.__setattr__(self, "construct", construct)

    @property
    def input_names(self) -> list[str]:
        """The function's array inputs, by argument name (``params_0`` for a pytree's leaves)."""
        return [n for n, _, _ in self._inputs]

    def _construct(self, *inputs):
        if len(inputs) != len(self._inputs):
            raise TypeError(f"{self.name}: takes {len(self._inputs)} array input(s), got {len(inputs)}")
        tensors = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs]
        nodes = []
        for (display, shape, dtype), x in zip(self._inputs, tensors):
            if x.shape != shape:
                raise OpError(
                    f"{self.name}: input {display!r} has shape {x.shape}; the function was traced for {shape} "
                    "(import it again with inputs of the new shape)"
                )
            nodes.append(cast(x._node, dtype))
        consts = [const(np.asarray(c)) for c in self._closed.consts]
        outputs = _Replay().run(self._closed.jaxpr, consts, nodes)
        wrapped = [Tensor._wrap(n, merge_env(*tensors)) for n in outputs]
        return wrapped[0] if len(wrapped) == 1 else tuple(wrapped)


class _Replay:
    """Walks a jaxpr, building symgrad nodes."""

    def __init__(self):
        self.table = imports_of("jax")

    def run(self, jaxpr, consts: list, args: list) -> list:
        values: dict = {}
        for var, value in zip(jaxpr.constvars, consts):
            values[var] = value
        for var, value in zip(jaxpr.invars, args):
            values[var] = value

        def read(atom):
            if hasattr(atom, "val"):  # a literal: a number stays a Python number (weak, as in JAX)
                return const(np.asarray(atom.val)) if np.ndim(atom.val) else np.asarray(atom.val).item()
            return values[atom]

        for eqn in jaxpr.eqns:
            inputs = [read(a) for a in eqn.invars]
            outs = self.call(eqn, inputs)
            for var, out in zip(eqn.outvars, outs):
                values[var] = out
        return [read(a) for a in jaxpr.outvars]

    def call(self, eqn, inputs: list) -> list:
        name = eqn.primitive.name
        if name in _CALLS:
            inner = eqn.params[_CALLS[name]]
            if hasattr(inner, "consts"):  # a closed jaxpr
                return self.run(inner.jaxpr, [const(np.asarray(c)) for c in inner.consts], inputs)
            return self.run(inner, [], inputs)
        if name == "scan":
            return self.scan(eqn.params, inputs)
        if name == "while":
            return self.while_loop(eqn, inputs)
        folded = _folded_integers(eqn, inputs)
        if folded is not None:
            return folded
        found = self.table.get(name)
        if found is None:
            raise OpError(
                f"from_jax: the JAX primitive {name!r} ({eqn}) has no row in symgrad's op table; JAX primitives "
                f"symgrad imports: {', '.join(sorted(self.table))}"
            )
        params = {k: _plain(v) for k, v in eqn.params.items() if k not in _PLACEMENT}
        operands = [a if isinstance(a, Node) else const(a) for a in inputs]  # a literal: a weak constant
        result = build(*found, operands, params, "from_jax")
        results = list(result) if isinstance(result, tuple) else [result]
        return [_as_jax_has_it(r, v, name) for r, v in zip(results, eqn.outvars)]

    def scan(self, params: dict, inputs: list) -> list:
        """lax.scan unrolled: the body once per step, its outputs stacked along a new first axis."""
        body, consts_n, carry_n = params["jaxpr"], params["num_consts"], params["num_carry"]
        consts, carry, xs = (
            inputs[:consts_n],
            inputs[consts_n : consts_n + carry_n],
            inputs[consts_n + carry_n :],
        )
        length = params["length"]
        if length == 0:
            raise OpError("from_jax: a scan of length 0 is not supported")
        _check_steps("scan", length)
        inner_consts = [const(np.asarray(c)) for c in body.consts]
        steps: dict[int, list] = {}
        for i in range(length - 1, -1, -1) if params["reverse"] else range(length):
            sliced = [getitem(_node(x), (i,)) for x in xs]
            outs = self.run(body.jaxpr, inner_consts, [*consts, *carry, *sliced])
            carry, steps[i] = outs[:carry_n], outs[carry_n:]
        count = len(body.jaxpr.outvars) - carry_n
        return [*carry, *(stack([_node(steps[i][k]) for i in range(length)], 0) for k in range(count))]

    def while_loop(self, eqn, inputs: list) -> list:
        """lax.while_loop unrolled while its condition is a constant (a loop over a counter, as
        fori_loop writes it); a condition computed from the inputs has no closed form here."""
        p = eqn.params
        cond, body = p["cond_jaxpr"], p["body_jaxpr"]
        cond_n, body_n = p["cond_nconsts"], p["body_nconsts"]
        cond_consts, body_consts, carry = (
            inputs[:cond_n],
            inputs[cond_n : cond_n + body_n],
            inputs[cond_n + body_n :],
        )
        cond_inner = [const(np.asarray(c)) for c in cond.consts]
        body_inner = [const(np.asarray(c)) for c in body.consts]
        for _ in range(_MAX_STEPS + 1):
            (go,) = self.run(cond.jaxpr, cond_inner, [*cond_consts, *carry])
            value = go.value if isinstance(go, Const) else go if isinstance(go, bool | np.bool_) else None
            if value is None:
                raise OpError(
                    "from_jax: a while_loop whose condition depends on the inputs has no closed form "
                    "(loops over a counter, such as fori_loop's, are unrolled)"
                )
            if not bool(value):
                return carry
            carry = self.run(body.jaxpr, body_inner, [*body_consts, *carry])
        _check_steps("while_loop", _MAX_STEPS + 1)
        return carry


_MAX_STEPS = 10_000  # loop steps unrolled at most (each a copy of the body in the graph)


def _check_steps(what: str, steps: int) -> None:
    if steps > _MAX_STEPS:
        raise OpError(
            f"from_jax: a {what} of {steps} steps; symgrad unrolls loops of at most {_MAX_STEPS} steps"
        )


def _node(value) -> Node:
    return value if isinstance(value, Node) else const(np.asarray(value))


def _folded_integers(eqn, inputs: list) -> list | None:
    """An equation on constants that makes integers or booleans (index arithmetic: the wrap of
    negative indices, a cast), run by JAX itself; None for anything else (kept in the graph)."""
    if not eqn.outvars or any(np.dtype(v.aval.dtype).kind not in "iub" for v in eqn.outvars):
        return None
    if any(isinstance(a, Node) and not isinstance(a, Const) for a in inputs):
        return None
    values = [np.asarray(a.value) if isinstance(a, Const) else a for a in inputs]
    out = eqn.primitive.bind(*values, **eqn.params)
    return [const(np.asarray(v)) for v in (out if eqn.primitive.multiple_results else [out])]


def _plain(value):
    """A param as Python data: dtypes as NumPy dtypes, tuples of NumPy ints as ints."""
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _as_jax_has_it(node, var, name: str):
    """``node`` checked against JAX's record of ``var`` (a literal number becomes a constant)."""
    aval = var.aval
    if not isinstance(node, Node):
        node = const(np.asarray(node, dtype=aval.dtype))
    return as_recorded(node, tuple(aval.shape), aval.dtype, "from_jax", name)


def _argument_names(function, args, jax) -> list[str]:
    """One name per array leaf: the argument's name, with ``_0, _1, ...`` for a pytree's leaves."""
    try:
        params = [p.name for p in inspect.signature(function).parameters.values()]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, arg in enumerate(args):
        base = params[i] if i < len(params) else f"arg{i}"
        leaves = jax.tree_util.tree_leaves(arg)
        is_leaf = len(leaves) == 1 and leaves[0] is arg
        names += [base] if is_leaf else [f"{base}_{k}" for k in range(len(leaves))]
    return names
