"""Numbers for tensors: every evaluation goes through a ``lowering`` kernel."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad import context, observed
from symgrad.core.graph import Node, Var, free_vars
from symgrad.errors import UnboundError


class Deferred:
    """A variable's value that is computed only if someone asks for it."""

    def __init__(self, tensor):
        self.tensor = tensor

    def get(self) -> np.ndarray:
        return self.tensor._value()


def value_of(var: Var, env: dict) -> np.ndarray:
    """The bound value of ``var`` in ``env``, or a clear error."""
    try:
        bound = env[var]
    except KeyError:
        raise UnboundError(
            f"variable {var.display_name!r} {var.shape} has no value; symbolic tensors are "
            "evaluated only inside the call that created them"
        ) from None
    return bound.get() if isinstance(bound, Deferred) else bound


def evaluate(nodes: Sequence[Node], env: dict) -> list[np.ndarray]:
    """Evaluate ``nodes`` together (one kernel, shared subexpressions)."""
    import lowering

    variables = free_vars(nodes)
    observed.note_read(variables)
    kernel = lowering.compile_kernel(nodes, variables, backend=context.backend_name())
    backend = lowering.BACKENDS[kernel.backend]
    results = kernel(*(value_of(v, env) for v in variables))
    return [backend.to_numpy(r) for r in results]
