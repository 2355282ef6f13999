"""Shared constructor for elementwise op records."""

from __future__ import annotations

from collections.abc import Callable

from symgrad.core.registry import ELEMENTWISE, Api, OpDef, elementwise_infer, register


def elementwise(name: str, display: str, sympy: Callable, partials: tuple[Callable, ...], **kw) -> OpDef:
    """Register :func:`elementwise_record`'s record in the op table."""
    return register(elementwise_record(name, display, sympy, partials, **kw))


def elementwise_record(
    name: str,
    display: str,
    sympy: Callable,
    partials: tuple[Callable, ...],
    *,
    numpy: str,
    c: str,
    mindspore: str,
    cuda: str | None = None,
    float_result: bool = True,
    simplify: Callable | None = None,
    fold: Callable | None = None,
    api: Api | None = None,
    **traits,
) -> OpDef:
    """The record of an elementwise op whose derivative is given by per-argument partials.

    ``cuda`` is CUDA's spelling where it differs from C's. ``api`` defaults to the class
    ``display`` and the function ``name`` in ``symgrad.ops``;
    ``traits`` are the other :class:`OpDef` fields (``kink``, ``simd``, ``notation``, ...).
    """
    return OpDef(
        name=name,
        display=display,
        kind=ELEMENTWISE,
        arity=len(partials),
        infer=elementwise_infer(display, float_result),
        sympy=sympy,
        partials=partials,
        simplify=simplify,
        fold=fold,
        spellings={"numpy": numpy, "c": c, "mindspore": mindspore, **({"cuda": cuda} if cuda else {})},
        api=api or Api(classes=(display,), functions=(name,)),
        **traits,
    )
