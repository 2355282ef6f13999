"""JAX programs as symgrad graphs: ``from_jax(function, *example_args)``.

``jax.make_jaxpr`` records the function as JAX primitives; each is found in the op table by its
JAX spelling (``OpDef.imports``, ``registry.lax``). Calls with an inner jaxpr (``jit``,
``custom_jvp_call``, ``custom_vjp_call``) are imported through their inner jaxpr: for a custom
rule that is the primal computation, so the closed form is the exact derivative of what the
function computes, whatever its custom rule says. Loops are unrolled: ``scan`` step by step, a
``while_loop`` while its condition is a constant (a counter's). Equations on constants only (index
arithmetic such as the wrap of negative indices, ``jax.random`` with a constant key) are run by JAX
itself and become constants (``jax_constants``).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import broadcast_to, getitem, stack
from symgrad.core.graph import Const, Node, const
from symgrad.core.registry import apply
from symgrad.errors import OpError
from symgrad.importers.common import as_recorded, build, import_table
from symgrad.importers.jax_constants import constant, dtype_problem, folded, is_key, refuse_dtypes
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
    _refuse_dtypes_at_ends(name, names, leaves, closed.jaxpr.outvars)
    x64 = bool(jax.config.read("jax_enable_x64"))
    return JaxProgram(closed, name, names, [np.dtype(x.dtype) for x in leaves], x64)


def _refuse_dtypes_at_ends(name: str, names: list[str], leaves: list, outvars: list) -> None:
    """Raise where an input or an output has a dtype symgrad's graph does not hold (a key, complex)."""
    noise = ": pass the noise as an argument, not the key"
    ends = [(f"input {n!r}", x.dtype, noise if is_key(x.dtype) else "") for n, x in zip(names, leaves)]
    ends += [(f"output {i}", v.aval.dtype, "") for i, v in enumerate(outvars)]
    for what, dtype, hint in ends:
        problem = dtype_problem(dtype)
        if problem is not None:
            raise OpError(
                f"from_jax: {name}'s {what} has {problem}, which symgrad's graph does not hold{hint}"
            )


class JaxProgram(Cell):
    """An imported JAX function as a symgrad Cell: calling it replays its primitives."""

    name: str
    _closed: Any
    _inputs: list[tuple[str, tuple, np.dtype]]
    _x64: bool

    def __init__(self, closed, name: str, names: list[str], dtypes: list[np.dtype], x64: bool = False):
        super().__init__()
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_closed", closed)
        object.__setattr__(self, "_x64", x64)  # JAX's 64-bit mode at tracing, for what JAX folds
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
        import jax

        consts = [constant(c) for c in self._closed.consts]
        with jax.enable_x64(self._x64):
            outputs, _ = _Replay().run(self._closed.jaxpr, consts, nodes, [True] * len(nodes))
        wrapped = [Tensor._wrap(n, merge_env(*tensors)) for n in outputs]
        return wrapped[0] if len(wrapped) == 1 else tuple(wrapped)


class _Replay:
    """Walks a jaxpr, building symgrad nodes. Each value goes with whether it depends on the
    function's inputs ("live"); an equation on values that do not is computed by JAX itself."""

    def __init__(self):
        self.table = import_table("jax")

    def run(self, jaxpr, consts: list, args: list, live: list[bool]) -> tuple[list, list[bool]]:
        """The outputs of ``jaxpr`` and whether each is live (``live``: the arguments')."""
        values: dict = dict(zip(jaxpr.constvars, consts))
        values.update(zip(jaxpr.invars, args))
        hot = {v for v, on in zip(jaxpr.invars, live) if on}

        def read(atom):
            if hasattr(atom, "val"):  # a literal: a number stays a Python number (weak, as in JAX)
                return const(np.asarray(atom.val)) if np.ndim(atom.val) else np.asarray(atom.val).item()
            return values[atom]

        def is_live(atom) -> bool:
            return not hasattr(atom, "val") and atom in hot

        for eqn in jaxpr.eqns:
            outs, outs_live = self.call(eqn, [read(a) for a in eqn.invars], [is_live(a) for a in eqn.invars])
            values.update(zip(eqn.outvars, outs))
            hot.update(v for v, on in zip(eqn.outvars, outs_live) if on)
        return [read(a) for a in jaxpr.outvars], [is_live(a) for a in jaxpr.outvars]

    def call(self, eqn, inputs: list, live: list[bool]) -> tuple[list, list[bool]]:
        name = eqn.primitive.name
        if name in _CALLS:
            inner = eqn.params[_CALLS[name]]
            if hasattr(inner, "consts"):  # a closed jaxpr
                return self.run(inner.jaxpr, [constant(c) for c in inner.consts], inputs, live)
            return self.run(inner, [], inputs, live)
        if name == "scan":
            return self.scan(eqn.params, inputs, live)
        if name == "while":
            return self.while_loop(eqn, inputs, live)
        if name == "cond":
            return self.cond(eqn.params["branches"], inputs, live)
        computed = None if any(live) else folded(eqn, inputs)
        if computed is not None:
            return computed, [False] * len(computed)
        if name == "custom_linear_solve":
            return self.linear_solve(eqn.params, inputs, live)
        refuse_dtypes(eqn)
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
        return [_as_jax_has_it(r, v, name) for r, v in zip(results, eqn.outvars)], [any(live)] * len(results)

    def scan(self, params: dict, inputs: list, live: list[bool]) -> tuple[list, list[bool]]:
        """lax.scan unrolled: the body once per step, its outputs stacked along a new first axis."""
        body, consts_n, carry_n = params["jaxpr"], params["num_consts"], params["num_carry"]
        consts, carry, xs = (
            inputs[:consts_n],
            inputs[consts_n : consts_n + carry_n],
            inputs[consts_n + carry_n :],
        )
        consts_live, carry_live = live[:consts_n], live[consts_n : consts_n + carry_n]
        xs_live = live[consts_n + carry_n :]
        length = params["length"]
        if length == 0:
            raise OpError("from_jax: a scan of length 0 is not supported")
        _check_steps("scan", length)
        inner_consts = [constant(c) for c in body.consts]
        count = len(body.jaxpr.outvars) - carry_n
        steps: dict[int, list] = {}
        ys_live = [False] * count
        for i in range(length - 1, -1, -1) if params["reverse"] else range(length):
            sliced = [_row(x, i, on) for x, on in zip(xs, xs_live)]
            outs, outs_live = self.run(
                body.jaxpr, inner_consts, [*consts, *carry, *sliced], [*consts_live, *carry_live, *xs_live]
            )
            carry, steps[i] = outs[:carry_n], outs[carry_n:]
            carry_live = outs_live[:carry_n]
            ys_live = [a or b for a, b in zip(ys_live, outs_live[carry_n:])]
        ys = [_stacked([steps[i][k] for i in range(length)], ys_live[k]) for k in range(count)]
        return [*carry, *ys], [*carry_live, *ys_live]

    def cond(self, branches, inputs: list, live: list[bool]) -> tuple[list, list[bool]]:
        """lax.cond / lax.switch: with a constant index, its branch (JAX clamps the index into
        range); with an index computed from the inputs, every branch, each output selecting its
        branch's value by the index, so its derivative is the chosen branch's (as jnp.where's)."""
        index, operands, index_live = inputs[0], inputs[1:], live[0]
        last = len(branches) - 1

        def branch(b: int) -> tuple[list, list[bool]]:
            return self.run(branches[b].jaxpr, [constant(c) for c in branches[b].consts], operands, live[1:])

        if not index_live:  # only the branch taken is imported
            value = index.value if isinstance(index, Const) else index
            return branch(int(np.clip(np.asarray(value).item(), 0, last)))
        runs = [branch(b)[0] for b in range(len(branches))]
        # branch b where index == b (index <= 0: branch 0), else the last
        tests = [
            apply("less_equal" if b == 0 else "equal", _node(index), const(np.asarray(b, np.int32)))
            for b in range(last)
        ]
        outputs = []
        for k in range(len(runs[0])):
            chosen = _node(runs[last][k])
            for b in range(last - 1, -1, -1):
                value = _node(runs[b][k])
                chosen = apply("select", broadcast_to(tests[b], value.shape), value, chosen)
            outputs.append(chosen)
        return outputs, [True] * len(outputs)

    def linear_solve(self, params: dict, inputs: list, live: list[bool]) -> tuple[list, list[bool]]:
        """lax.custom_linear_solve: x with matvec(x) = b (jnp.linalg.solve and inv). Its solve
        jaxpr may factor a stop_gradient of the matrix (jnp.linalg.solve does), so alone it would
        pass no derivative to the matrix; x = x0 + solve(b - matvec(x0)), x0 = solve(b), has x0's
        value after one step of iterative refinement and, with the solve a fixed linear map, the
        derivative of matvec's inverse applied to b in b and in matvec's constants (JAX's rule)."""
        lengths, jaxprs = params["const_lengths"], params["jaxprs"]
        parts, start = {}, 0
        for field in ("matvec", "vecmat", "solve", "transpose_solve"):
            count = getattr(lengths, field)
            parts[field] = (inputs[start : start + count], live[start : start + count])
            start += count
        b, b_live = inputs[start:], live[start:]

        def apply_jaxpr(field: str, vector: list, vector_live: list[bool]) -> tuple[list, list[bool]]:
            closed = getattr(jaxprs, field)
            consts, consts_live = parts[field]
            inner = [constant(c) for c in closed.consts]
            return self.run(closed.jaxpr, inner, [*consts, *vector], [*consts_live, *vector_live])

        first, first_live = apply_jaxpr("solve", b, b_live)
        product, product_live = apply_jaxpr("matvec", first, first_live)
        left = [apply("sub", _node(u), _node(v)) for u, v in zip(b, product)]
        left_live = [u or v for u, v in zip(b_live, product_live)]
        step, step_live = apply_jaxpr("solve", left, left_live)
        x = [apply("add", _node(u), _node(v)) for u, v in zip(first, step)]
        return x, [u or v for u, v in zip(first_live, step_live)]

    def while_loop(self, eqn, inputs: list, live: list[bool]) -> tuple[list, list[bool]]:
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
        cond_live, body_live = live[:cond_n], live[cond_n : cond_n + body_n]
        carry_live = live[cond_n + body_n :]
        cond_inner = [constant(c) for c in cond.consts]
        body_inner = [constant(c) for c in body.consts]
        for _ in range(_MAX_STEPS + 1):
            (go,), (go_live,) = self.run(
                cond.jaxpr, cond_inner, [*cond_consts, *carry], [*cond_live, *carry_live]
            )
            value = go.value if isinstance(go, Const) else go if isinstance(go, bool | np.bool_) else None
            if value is None or go_live:
                raise OpError(
                    "from_jax: a while_loop whose condition depends on the inputs has no closed form "
                    "(loops over a counter, such as fori_loop's, are unrolled)"
                )
            if not bool(value):
                return carry, carry_live
            carry, carry_live = self.run(
                body.jaxpr, body_inner, [*body_consts, *carry], [*body_live, *carry_live]
            )
        _check_steps("while_loop", _MAX_STEPS + 1)
        return carry, carry_live


_MAX_STEPS = 10_000  # loop steps unrolled at most (each a copy of the body in the graph)


def _check_steps(what: str, steps: int) -> None:
    if steps > _MAX_STEPS:
        raise OpError(
            f"from_jax: a {what} of {steps} steps; symgrad unrolls loops of at most {_MAX_STEPS} steps"
        )


def _node(value) -> Node:
    return value if isinstance(value, Node) else const(np.asarray(value))


def _row(xs, i: int, live: bool):
    """Row ``i`` of a scanned array: a getitem node, or a constant where ``xs`` is one (a key too)."""
    if live:
        return getitem(_node(xs), (i,))
    return const(np.asarray(xs.value)[i]) if isinstance(xs, Const) else xs[i]


def _stacked(values: list, live: bool):
    """One scan output's steps along a new first axis: a stack node, or a constant (keys too)."""
    if live:
        return stack([_node(v) for v in values], 0)
    if is_key(getattr(values[0], "dtype", None)):
        import jax.numpy as jnp

        return jnp.stack(values)
    return const(np.stack([np.asarray(v.value if isinstance(v, Const) else v) for v in values]))


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
