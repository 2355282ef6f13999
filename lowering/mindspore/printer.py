"""``MindsporePrinter``: the NumPy printer's program in ``mindspore.ops`` spellings."""

from __future__ import annotations

from lowering.printer import NumpyPrinter
from symgrad.core.graph import Const, Node


class MindsporePrinter(NumpyPrinter):
    """``mindspore.ops`` code: Python numbers take the op's own dtype."""

    spelling_keys = ("mindspore",)

    def argument(self, node: Node, arg: Node, text: str) -> str:
        if isinstance(arg, Const) and arg.is_weak and node.dtype is not None:
            # MindSpore rounds Python floats to float32; give the constant the op's own dtype
            return f"rt.scalar({arg.value!r}, {node.dtype.name!r})"
        return text
