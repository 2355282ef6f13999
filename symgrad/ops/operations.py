"""``mindspore.ops.operations`` names (``P.MatMul()``, ``P.Print()``): the op classes and the hooks."""

from symgrad.ops import composed_math as _composed_math
from symgrad.ops import creation as _creation
from symgrad.ops import hooks as _hooks
from symgrad.ops import inspection as _inspection
from symgrad.ops import primitives as _primitives
from symgrad.ops import reductions as _reductions
from symgrad.ops import shaping as _shaping

_CLASSES = [
    (part, name)
    for part in (_creation, _inspection, _shaping, _reductions, _composed_math)
    for name in part.__all__
    if name[0].isupper()
]
globals().update({name: getattr(_primitives, name) for name in _primitives.__all__})
globals().update({name: getattr(_hooks, name) for name in _hooks.__all__})
globals().update({name: getattr(part, name) for part, name in _CLASSES})
__all__ = list(_primitives.__all__) + list(_hooks.__all__) + [name for _, name in _CLASSES]
