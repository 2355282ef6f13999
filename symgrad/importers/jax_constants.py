"""A jaxpr's constant sub-computations, run by JAX itself, and the dtypes symgrad's graph holds.

An equation whose operands are all constants is evaluated by JAX, each operand in the dtype the
jaxpr records, and its results are constants of the graph: index arithmetic (the wrap of negative
indices), PRNG keys and their random bits (``jax.random`` with a constant key: its noise is a
constant of the program), and primitives symgrad has no row for. An equation that depends on the
inputs and touches a dtype outside symgrad's graph (a key, complex, bfloat16) is refused, naming
the primitive, the dtype and the equation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.graph import Const, Node, const
from symgrad.dtype import REAL_ONLY
from symgrad.errors import OpError


def is_key(dtype: Any) -> bool:
    """Whether ``dtype`` is a JAX PRNG key dtype (``key<fry>``)."""
    import jax

    return dtype is not None and bool(jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key))


def dtype_problem(dtype: Any) -> str | None:
    """What symgrad's graph cannot hold about ``dtype``; None for bool, int, uint and float."""
    if is_key(dtype):
        return f"the PRNG key dtype {dtype}"
    try:
        kind = np.dtype(dtype).kind
    except TypeError:
        kind = "?"
    return None if kind in "biuf" else f"the dtype {dtype}"


def constant(value: Any) -> Any:
    """A constant of the jaxpr as the replay holds it: a key array as it is, else a Const node."""
    return value if is_key(getattr(value, "dtype", None)) else const(np.asarray(value))


def folded(eqn: Any, inputs: list) -> list | None:
    """``eqn``'s results computed by JAX where its operands are all constants; None otherwise."""
    if not eqn.outvars or any(isinstance(a, Node) and not isinstance(a, Const) for a in inputs):
        return None
    values = [_concrete(a, v.aval.dtype) for a, v in zip(inputs, eqn.invars)]
    try:
        out = eqn.primitive.bind(*values, **eqn.params)
    except Exception as e:
        raise OpError(f"from_jax: JAX could not compute the constant equation {eqn}: {e}") from e
    return [constant(v) for v in (out if eqn.primitive.multiple_results else [out])]


def refuse_dtypes(eqn: Any) -> None:
    """Raise where ``eqn`` (not folded: it depends on the inputs) works on a dtype outside the graph."""
    name = eqn.primitive.name
    for v in (*eqn.invars, *eqn.outvars):
        problem = dtype_problem(v.aval.dtype)
        if problem is None:
            continue
        if is_key(v.aval.dtype):
            raise OpError(
                f"from_jax: jax.random with a key computed from the function's inputs: the JAX primitive "
                f"{name!r} ({eqn}) works on {problem}; random bits have no closed form. Make the key a "
                "constant of the function, or pass the noise as an argument"
            )
        real = f"; {REAL_ONLY}" if np.dtype(v.aval.dtype).kind == "c" else ""
        raise OpError(
            f"from_jax: the JAX primitive {name!r} ({eqn}) works on {problem}, which symgrad's graph does "
            f"not hold (it holds bool, int, uint and float arrays){real}"
        )


def _concrete(value: Any, dtype: Any) -> Any:
    """A constant operand as JAX takes it: in the dtype the jaxpr records (a literal's too)."""
    if isinstance(value, Const):
        value = value.value
    return value if is_key(dtype) else np.asarray(value, dtype=dtype)
