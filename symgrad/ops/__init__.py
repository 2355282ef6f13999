"""``symgrad.ops``: op classes, functional ops and the differentiation API (as in MindSpore).

The op classes and functions are generated from the op table (``symgrad.core.registry``)
or written by hand where MindSpore's signature needs it; ``__all__`` lists them all.
"""

from types import ModuleType as _ModuleType

from symgrad.autodiff.api import GradOperation, hessian, jacfwd, jacrev, laplacian
from symgrad.dtype import REAL_ONLY as _REAL_ONLY
from symgrad.ops import built_from_rows as _built_from_rows
from symgrad.ops import composed_math as _composed_math
from symgrad.ops import compositions as _compositions
from symgrad.ops import convolution as _convolution
from symgrad.ops import creation as _creation
from symgrad.ops import extras as _extras
from symgrad.ops import functional as _functional
from symgrad.ops import hooks as _hooks
from symgrad.ops import hypermap as _hypermap
from symgrad.ops import inspection as _inspection
from symgrad.ops import losses as _losses
from symgrad.ops import primitives as _primitives
from symgrad.ops import products as _products
from symgrad.ops import random as _random
from symgrad.ops import reductions as _reductions
from symgrad.ops import resize as _resize
from symgrad.ops import shaping as _shaping

# the functional module already holds grad, jvp, vjp, value_and_grad, get_grad, jet, ... (as MindSpore's)
_PARTS: tuple[_ModuleType, ...] = (_functional, _primitives, _built_from_rows, _hooks, _hypermap)
_PARTS += (_creation, _inspection, _shaping, _reductions, _composed_math, _products, _losses)
# names MindSpore's tutorials and MindFlow use (issue 42)
_PARTS += (_compositions, _convolution, _random, _resize, _extras)
for _part in _PARTS:
    globals().update({name: getattr(_part, name) for name in _part.__all__})

__all__ = sorted(
    ["GradOperation", "hessian", "jacfwd", "jacrev", "laplacian"]
    + [n for part in _PARTS for n in part.__all__]
)
assert len(set(__all__)) == len(__all__), "a name is defined twice in symgrad.ops"


_COMPLEX_OPS = {"Real", "Imag", "Complex", "Conj", "real", "imag", "conj", "angle"}


def __getattr__(name: str):
    if name in _COMPLEX_OPS:
        raise AttributeError(f"symgrad.ops has no {name}: complex numbers are not supported; {_REAL_ONLY}")
    raise AttributeError(f"symgrad.ops has no op {name!r}; supported: {', '.join(__all__)}")
