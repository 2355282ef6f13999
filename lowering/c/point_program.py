"""What a per-point C program is (:class:`PointProgram`), and what every part of its printer
needs: a node's number of elements, how a number is written in C, the casts' macros."""

from __future__ import annotations

import math
from dataclasses import dataclass

from symgrad.core.families.conversion import C_CASTS
from symgrad.core.graph import Node


@dataclass
class PointProgram:
    """C source of ``compute(n, in, stride, out)`` and what it computes."""

    source: str
    real: str  # "double" or "float": the one floating type the program computes in
    sizes_out: list[int]  # elements per point of each output
    op_count: int
    scratch_bytes: int = 0  # heap scratch per thread (0: a point's arrays are on the stack)
    shared_scratch_bytes: int = 0  # heap scratch the threads share (a tiled program's packed matrices)
    lanes: int = 1  # points per block (1: one point at a time)
    tiled: bool = False  # wide layers as blocked matrix products (``lowering.c.tiles``)


def size_of(node: Node) -> int:
    """Elements of one point's value of ``node``."""
    return math.prod(node.shape)


def c_literal(value, real: str) -> str:
    """A C literal of ``real`` type for a Python or NumPy number; names (a dtype) stay as they are."""
    if isinstance(value, str):
        return value
    value = float(value)
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    text = repr(value)
    return f"{text}f" if real == "float" else text


def cast_macros() -> list[str]:
    """``SG_CAST_<dtype>(v)``: the C spelling of each cast to a non-float dtype."""
    return [f"#define SG_CAST_{name}(v) {code}" for name, code in C_CASTS.items()]
