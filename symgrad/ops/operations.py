"""``mindspore.ops.operations`` names (``P.MatMul()``): the op classes."""

from symgrad.ops.primitives import *  # noqa: F403
from symgrad.ops.primitives import Primitive

__all__ = [n for n in dir() if n[:1].isupper()] + ["Primitive"]
