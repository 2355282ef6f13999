"""``symgrad.numpy``: MindSpore's ``mindspore.numpy`` (``import symgrad.numpy as mnp``).

NumPy-style functions with mindspore.numpy's signatures, defaults and dtypes (Python ints become
int32, floats float32; ``linspace``, ``zeros``, ``ones``, ``eye`` are float32). Each maps onto the
``symgrad.ops`` op of the same meaning, so it differentiates through ``grad`` and
``GradOperation`` like any op. The modules: ``creation``, ``elementwise``, ``reductions``,
``shapes``, ``linalg``.
"""

import math as _math

from symgrad.dtype import bool_, float16, float32, float64, int8, int16, int32, int64, uint8
from symgrad.numpy import creation as _creation
from symgrad.numpy import elementwise as _elementwise
from symgrad.numpy import linalg as _linalg
from symgrad.numpy import reductions as _reductions
from symgrad.numpy import shapes as _shapes

_PARTS = (_creation, _elementwise, _reductions, _shapes, _linalg)
for _part in _PARTS:
    globals().update({name: getattr(_part, name) for name in _part.__all__})

pi = _math.pi
inf = PINF = _math.inf
NINF = -_math.inf
nan = _math.nan
float_, int_ = float32, int32

_CONSTANTS = ["NINF", "PINF", "inf", "nan", "pi"]
_DTYPES = [
    "bool_",
    "float16",
    "float32",
    "float64",
    "float_",
    "int16",
    "int32",
    "int64",
    "int8",
    "int_",
    "uint8",
]
__all__ = sorted([n for part in _PARTS for n in part.__all__] + _CONSTANTS + _DTYPES)
assert len(set(__all__)) == len(__all__), "a name is defined twice in symgrad.numpy"


def __getattr__(name: str):
    raise AttributeError(
        f"symgrad.numpy has no {name!r} (mindspore.numpy names it supports: {', '.join(__all__)})"
    )
