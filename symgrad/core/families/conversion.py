"""Dtype conversion: cast.

``cast(x, dtype)`` is linear: its tangent is the tangent cast to ``dtype`` and its
cotangent is the cotangent cast back to ``x``'s dtype, as MindSpore's Cast rule does
(so the gradient of an integer input is an integer tensor). Casting a float to an
integer truncates toward zero, as NumPy and MindSpore do. PyTorch's and JAX's casts (``_to_copy``,
``convert_element_type``) are the importers' (``symgrad.importers.aten_functions``, ``lax_rows``).
"""

from __future__ import annotations

import numpy as np
import sympy

from symgrad.core.graph import Node
from symgrad.core.registry import LINEAR, MAP, Api, OpDef, make_node, register
from symgrad.errors import OpError


class DTypeName(str):
    """A dtype's NumPy name as an op parameter; it prints bare (``int32``), so spellings can quote it."""

    def __repr__(self) -> str:
        return str(self)


def cast(x: Node, dtype) -> Node:
    """``x`` converted to ``dtype`` (a no-op when it already has it)."""
    target = np.dtype(dtype)
    if target.kind not in "biuf":
        raise OpError(f"Cast: cannot cast to dtype {target}; supported: bool, int*, uint8, float*")
    if x.dtype == target:
        return x
    return make_node("cast", (x,), (DTypeName(target.name),))


def _truncate(value):
    return sympy.sign(value) * sympy.floor(sympy.Abs(value))


def _as_number(value):
    """A condition (``x > 20``, or True and False once decided) as 1 or 0; numbers stay."""
    if isinstance(value, sympy.logic.boolalg.Boolean):
        return sympy.Piecewise((1, value), (0, True))
    return value


def _sym_cast(arrays, node):
    kind = np.dtype(node.params[0]).kind
    if node.args[0].dtype == np.dtype(bool) and kind in "fiu":  # a mask or a condition as 1 or 0
        return np.vectorize(_as_number, otypes=[object])(arrays[0])
    if kind == "f":
        return arrays[0]
    if kind == "b":
        return np.vectorize(lambda v: sympy.Piecewise((1, sympy.Ne(v, 0)), (0, True)), otypes=[object])(
            arrays[0]
        )
    return np.vectorize(_truncate, otypes=[object])(arrays[0])


register(
    OpDef(
        name="cast",
        display="Cast",
        kind=LINEAR,
        arity=1,
        infer=lambda args, params: (args[0].shape, np.dtype(params[0])),
        sympy=_sym_cast,
        transpose=lambda node, ct: (cast(ct, node.args[0].dtype or np.float32),),
        batched=lambda node, tangents: make_node("cast", tangents, node.params),
        # C and CUDA compute in one real type: SG_CAST_<dtype> rounds a value as <dtype> would
        spellings={"numpy": 'rt.cast({0}, "{p0}")', "c": "SG_CAST_{p0}({0})", "mindspore": 'rt.cast({0}, "{p0}")'},
        pattern=MAP,
        api=Api(("Cast",), ("cast",), generated=False),
        # _to_copy, convert_element_type: importers.aten_functions, lax_rows
        notation=lambda node, args: f"{node.params[0]}({args[0]})",
    )
)  # fmt: skip

C_CASTS = {  # the SG_CAST_<dtype> macros C and CUDA kernels define
    "float16": "((float)(v))",  # C has no half type: float rounding is the closest a kernel gets
    "float32": "((float)(v))",
    "float64": "((double)(v))",
    "bool": "((v) != 0)",
    **{name: "trunc(v)" for name in ("int8", "int16", "int32", "int64", "uint8")},
}
