"""``symgrad.ops``: op classes, functional ops and the differentiation API (as in MindSpore).

The op classes and functions are generated from the op table (``symgrad.core.registry``)
or written by hand where MindSpore's signature needs it; ``__all__`` lists them all.
"""

from symgrad.autodiff.api import GradOperation, hessian, jacfwd, jacrev
from symgrad.ops import composites as _composites
from symgrad.ops import functional as _functional
from symgrad.ops import hooks as _hooks
from symgrad.ops import primitives as _primitives

# the functional module already holds grad, jvp, vjp, value_and_grad, get_grad, jet, ... (as MindSpore's)
globals().update({name: getattr(_functional, name) for name in _functional.__all__})
globals().update({name: getattr(_primitives, name) for name in _primitives.__all__})
globals().update({name: getattr(_composites, name) for name in _composites.__all__})
globals().update({name: getattr(_hooks, name) for name in _hooks.__all__})

__all__ = sorted(
    ["GradOperation", "hessian", "jacfwd", "jacrev"]
    + _functional.__all__
    + _primitives.__all__
    + _composites.__all__
)
assert len(set(__all__)) == len(__all__), "a name is defined twice in symgrad.ops"


def __getattr__(name: str):
    raise AttributeError(f"symgrad.ops has no op {name!r}; supported: {', '.join(__all__)}")
