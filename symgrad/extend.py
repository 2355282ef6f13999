"""Adding ops to symgrad: the extension API (the user API is ``symgrad/__init__.py``).

An op is one record: its shape rule, SymPy meaning, derivative rule, backend
spellings and traits. For an elementwise op the rule is one partial derivative per
argument, written with registered ops (so every order of derivative follows)::

    import sympy
    from symgrad import extend

    extend.elementwise(
        "cube", "Cube", lambda x: x**3,
        (lambda x, ans: extend.apply("mul", 3, extend.apply("square", x)),),
        numpy="np.power({0}, 3)", c="({0} * {0} * {0})", mindspore="ops.pow({0}, 3)",
    )

After that ``symgrad.ops.cube``, ``symgrad.ops.Cube`` and every derivative, kernel
backend, closed form and explanation know the op. Ops built into symgrad are
registered the same way in ``symgrad/core/families/*.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from symgrad.core.families._elementwise import elementwise as _register_elementwise
from symgrad.core.registry import (
    CONTRACTION,
    CUSTOM,
    ELEMENTWISE,
    GATHER,
    LINEAR,
    MAP,
    NONDIFF,
    OPS,
    REDUCTION,
    Api,
    OpDef,
    apply,
    make_node,
    register,
)


def publish(op: OpDef) -> None:
    """Make a registered op's generated classes, functions and Tensor operators public."""
    from symgrad import ops
    from symgrad.ops import functional, primitives
    from symgrad.tensor import install_operators

    if not op.api.generated:
        return
    for name in op.api.functions:
        fn = functional.generated_function(op, name)
        functional.GENERATED[name] = fn
        setattr(ops, name, fn)
    for name in op.api.classes:
        cls = primitives.generated_class(name, functional.generated_function(op, op.api.functions[0]))
        primitives.GENERATED[name] = cls
        setattr(ops, name, cls)
    ops.__all__ = sorted(set(ops.__all__) | set(op.api.functions) | set(op.api.classes))
    install_operators(op)


def elementwise(
    name: str, display: str, sympy: Callable, partials: tuple[Callable, ...], **spellings_and_traits
) -> OpDef:
    """Register an elementwise op (see ``symgrad.core.families._elementwise``) and publish it."""
    op = _register_elementwise(name, display, sympy, partials, **spellings_and_traits)
    publish(op)
    return op


__all__ = [
    "CONTRACTION",
    "CUSTOM",
    "ELEMENTWISE",
    "GATHER",
    "LINEAR",
    "MAP",
    "NONDIFF",
    "OPS",
    "REDUCTION",
    "Api",
    "OpDef",
    "apply",
    "elementwise",
    "make_node",
    "publish",
    "register",
]
