"""``mindspore.ops.composite`` names: the differentiation API."""

from symgrad.autodiff.api import GradOperation, grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp
from symgrad.ops.hypermap import HyperMap, MultitypeFuncGraph

__all__ = [
    "GradOperation",
    "HyperMap",
    "MultitypeFuncGraph",
    "grad",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "value_and_grad",
    "vjp",
]
