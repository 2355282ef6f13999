"""``mindspore.ops.composite`` names: the differentiation API."""

from symgrad.autodiff.api import GradOperation, grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp

__all__ = ["GradOperation", "grad", "hessian", "jacfwd", "jacrev", "jvp", "value_and_grad", "vjp"]
