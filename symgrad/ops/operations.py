"""``mindspore.ops.operations`` names (``P.MatMul()``, ``P.Print()``): the op classes and the hooks."""

from symgrad.ops import hooks as _hooks
from symgrad.ops import primitives as _primitives

globals().update({name: getattr(_primitives, name) for name in _primitives.__all__})
globals().update({name: getattr(_hooks, name) for name in _hooks.__all__})
__all__ = list(_primitives.__all__) + list(_hooks.__all__)
