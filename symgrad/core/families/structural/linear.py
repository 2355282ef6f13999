"""How a structural op is registered: every one is linear, so its forward derivative is the op on
the tangents and its reverse derivative a transpose rule. Backend templates receive the argument
code ``{0}``, params ``{p0}, {p1}``, argument ranks ``{r0}`` and the output rank ``{rank}``:
kernels index from the trailing axes so that any leading batch axes pass through untouched."""

from __future__ import annotations

from symgrad.core.registry import GATHER, LINEAR, OpDef, register


def linear(name, display, arity, infer, transpose_rule, sympy_fn, numpy, mindspore, **traits) -> None:
    """A linear op: no C spelling (the C printer lowers it by its pattern, GATHER by default)."""
    register(
        OpDef(
            name=name,
            display=display,
            kind=LINEAR,
            arity=arity,
            infer=infer,
            sympy=sympy_fn,
            transpose=transpose_rule,
            spellings={"numpy": numpy, "mindspore": mindspore},
            pattern=traits.pop("pattern", GATHER),
            **traits,
        )
    )


def show_with_shape(node, args) -> str:
    """How an explanation writes an op whose one param is the output shape."""
    return f"{node.op}({args[0]}, {node.shape})"
