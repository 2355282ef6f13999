"""Shared constructor for elementwise op records."""

from __future__ import annotations

from collections.abc import Callable

from symgrad.core.registry import ELEMENTWISE, OpDef, elementwise_infer, register


def elementwise(
    name: str,
    display: str,
    sympy: Callable,
    partials: tuple[Callable, ...],
    *,
    numpy: str,
    c: str,
    mindspore: str,
    float_result: bool = True,
    simplify: Callable | None = None,
    fold: Callable | None = None,
) -> OpDef:
    """Register an elementwise op whose derivative is given by per-argument partials."""
    return register(
        OpDef(
            name=name,
            display=display,
            kind=ELEMENTWISE,
            arity=len(partials),
            infer=elementwise_infer(display, float_result),
            sympy=sympy,
            partials=partials,
            simplify=simplify,
            fold=fold,
            names={"numpy": numpy, "c": c, "mindspore": mindspore},
        )
    )
