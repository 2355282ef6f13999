"""Symbolic inputs (``placeholder``) and the compiled kernels built from them (``kernel``).

``placeholder`` is a tensor with a name and shape but no value (the tensor
analogue of ``sympy.Symbol``). Differentiating functions of placeholders gives
tensors whose graphs ``kernel`` compiles once and evaluates over arrays of
points (extra leading axes are batch axes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import lowering
from symgrad import dtype as mstype
from symgrad.core.graph import Var, const, free_vars
from symgrad.core.registry import substitute
from symgrad.evaluate import value_of
from symgrad.tensor import Tensor, merge_env


def placeholder(name: str, shape: tuple = (), dtype=mstype.float64) -> Tensor:
    """A symbolic input: ``x = placeholder("x")`` is a scalar named x."""
    return Tensor._wrap(Var(name, tuple(shape), mstype.to_dtype(dtype).np), {})


def kernel(
    outputs: Tensor | Sequence[Tensor],
    inputs: Sequence[Tensor],
    backend: str = "numpy",
    reduce: str | Sequence[str | None] | None = None,
) -> lowering.Kernel:
    """Compile ``outputs`` as a function of ``inputs`` (placeholders or Parameters).

    The kernel takes one array per input, each with the input's shape plus any
    leading batch axes, and returns one array per output. ``reduce`` ("mean" or
    "sum", for all outputs or per output) reduces outputs over the batch axes
    inside the kernel, as a loss and its weight gradients need.

    >>> import numpy as np
    >>> from symgrad import ops
    >>> x = placeholder("x")
    >>> slope = kernel([ops.grad(ops.sin)(x)], [x])
    >>> slope(np.array([0.0, np.pi]))[0]
    array([ 1., -1.])
    """
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    args = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not isinstance(t._node, Var):
            raise TypeError(
                f"kernel: inputs[{i}] must be a placeholder or a Parameter, got "
                f"{type(t).__name__} built from op {getattr(t, '_node', None)!r}"
            )
        args.append(t._node)
    reductions = [reduce] * len(outs) if reduce is None or isinstance(reduce, str) else list(reduce)
    if len(reductions) != len(outs):
        raise ValueError(f"kernel: reduce has {len(reductions)} entries for {len(outs)} outputs")
    nodes = [o._node for o in outs]
    # variables that already have values (a concrete tangent or sens) become constants
    env = merge_env(*outs)
    bound = {v: const(np.asarray(value_of(v, env))) for v in free_vars(nodes) if v not in args and v in env}
    if bound:
        nodes = substitute(nodes, bound)
    return lowering.compile_kernel(nodes, args, backend, reductions)
