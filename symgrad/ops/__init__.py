"""``symgrad.ops``: op classes, functional ops and the differentiation API (as in MindSpore).

The op classes and functions are generated from the op table (``symgrad.core.registry``)
or written by hand where MindSpore's signature needs it; ``__all__`` lists them all.
"""

from symgrad.autodiff.api import (
    GradOperation,
    get_grad,
    grad,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    value_and_grad,
    vjp,
)
from symgrad.autodiff.taylor import derivative, jet, linearize  # noqa: F401 - listed in __all__
from symgrad.ops import functional as _functional
from symgrad.ops import primitives as _primitives

globals().update({name: getattr(_functional, name) for name in _functional.__all__})
globals().update({name: getattr(_primitives, name) for name in _primitives.__all__})

__all__ = sorted(
    set(
        [
            "GradOperation",
            "derivative",
            "get_grad",
            "grad",
            "jet",
            "linearize",
            "hessian",
            "jacfwd",
            "jacrev",
            "jvp",
            "value_and_grad",
            "vjp",
        ]
        + _functional.__all__
        + _primitives.__all__
    )
)


def __getattr__(name: str):
    raise AttributeError(f"symgrad.ops has no op {name!r}; supported: {', '.join(__all__)}")
