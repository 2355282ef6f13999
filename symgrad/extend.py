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

A name that is already taken (an op's graph name, or any public name in
``symgrad.ops`` such as ``Tanh`` or ``grad``, or a Tensor operator another op
provides) is refused unless ``replace=True`` is passed; names must be Python
identifiers. ``remove(name)`` takes an added op out again.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable

from symgrad.core.families._elementwise import elementwise_record
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
)
from symgrad.core.registry import register as _register_in_table
from symgrad.errors import OpError


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


def _public_names(op: OpDef) -> tuple[str, ...]:
    return (*op.api.functions, *op.api.classes) if op.api.generated else ()


def check_names(op: OpDef, replace: bool = False) -> None:
    """Refuse names that are not identifiers, and names already taken unless ``replace``."""
    from symgrad import ops
    from symgrad.tensor import Tensor

    for name in (op.name, *_public_names(op)):
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise OpError(f"extend: op name {name!r} must be a Python identifier (letters, digits, _)")
    if replace:
        return
    if op.name in OPS:
        raise OpError(
            f"extend: an op named {op.name!r} ({OPS[op.name].display}) is already registered; "
            "pass replace=True to replace it"
        )
    for name in _public_names(op):
        if hasattr(ops, name):
            raise OpError(
                f"extend: op {op.name!r} would replace symgrad.ops.{name}; "
                "choose another name, or pass replace=True to replace it"
            )
    for dunder in (*op.api.operators, *op.api.reflected) if op.api.generated else ():
        if dunder in vars(Tensor):
            raise OpError(
                f"extend: op {op.name!r} would replace Tensor.{dunder}; pass replace=True to replace it"
            )


def remove(name: str) -> OpDef:
    """Take op ``name`` out of the table and ``symgrad.ops`` (its live graph nodes are forgotten)."""
    from symgrad import ops
    from symgrad.core.graph import _interned
    from symgrad.ops import functional, primitives

    op = OPS.pop(name, None)
    if op is None:
        raise OpError(f"extend.remove: no op named {name!r}")
    for public in _public_names(op):
        functional.GENERATED.pop(public, None)
        primitives.GENERATED.pop(public, None)
        if hasattr(ops, public):
            delattr(ops, public)
    ops.__all__ = [n for n in ops.__all__ if n not in _public_names(op)]
    for key in [k for k in list(_interned.keys()) if k and k[0] == name]:
        _interned.pop(key, None)
    return op


def register(op: OpDef, *, replace: bool = False) -> OpDef:
    """Add ``op`` to the table and publish its names (see :func:`check_names`)."""
    check_names(op, replace)
    if replace and op.name in OPS:
        remove(op.name)
    _register_in_table(op)
    publish(op)
    return op


def elementwise(
    name: str,
    display: str,
    sympy: Callable,
    partials: tuple[Callable, ...],
    *,
    replace: bool = False,
    **spellings_and_traits,
) -> OpDef:
    """Register an elementwise op (see ``symgrad.core.families._elementwise``) and publish it."""
    op = elementwise_record(name, display, sympy, partials, **spellings_and_traits)
    return register(op, replace=replace)


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
    "check_names",
    "publish",
    "register",
    "remove",
]
