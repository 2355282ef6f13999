"""``mindspore.ops.operations`` names (``P.MatMul()``): the op classes."""

from symgrad.ops import primitives as _primitives

globals().update({name: getattr(_primitives, name) for name in _primitives.__all__})
__all__ = list(_primitives.__all__)
