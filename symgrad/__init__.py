"""symgrad: MindSpore-style networks with closed-form derivatives.

Write a ``nn.Cell`` as in MindSpore; ``ops.GradOperation``, ``ops.grad``, ``jvp``,
``vjp`` and friends return Tensors whose ``.expr`` is the SymPy formula of the
derivative and whose numbers come from a compiled kernel (see ``lowering``).
"""

from symgrad import amp, context, dtype, nn, ops, train
from symgrad.amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from symgrad.autodiff.api import grad, hessian, jacfwd, jacrev, jvp, laplacian, value_and_grad, vjp
from symgrad.autodiff.taylor import derivatives
from symgrad.closed_form import closed_form
from symgrad.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context
from symgrad.dtype import bool_, float16, float32, float64, int8, int16, int32, int64, uint8
from symgrad.errors import GradError, OpError, SymgradError, UnboundError
from symgrad.explain import explain, graph_dot, render_graph
from symgrad.initializer import initializer
from symgrad.jit import jit, jit_class, mutable
from symgrad.kernels import kernel, placeholder
from symgrad.ops.functional import vmap
from symgrad.parameter import Parameter, ParameterTuple
from symgrad.runtime import (
    ParallelMode,
    data_sink,
    get_auto_parallel_context,
    lazy_inline,
    reset_auto_parallel_context,
    set_auto_parallel_context,
    set_device,
)
from symgrad.seeding import get_seed, set_seed
from symgrad.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from symgrad.tensor import Tensor
from symgrad.train import Callback, LossMonitor, Model
from symgrad.verification import verify

__version__ = "0.1.0"

__all__ = [
    "GRAPH_MODE",
    "PYNATIVE_MODE",
    "bool_",
    "float16",
    "float32",
    "float64",
    "grad",
    "hessian",
    "laplacian",
    "derivatives",
    "int8",
    "int16",
    "int32",
    "int64",
    "jacfwd",
    "jacrev",
    "initializer",
    "jit",
    "jit_class",
    "mutable",
    "jvp",
    "uint8",
    "value_and_grad",
    "verify",
    "vjp",
    "GradError",
    "OpError",
    "Parameter",
    "ParameterTuple",
    "SymgradError",
    "Tensor",
    "UnboundError",
    "closed_form",
    "context",
    "dtype",
    "explain",
    "get_context",
    "graph_dot",
    "kernel",
    "nn",
    "ops",
    "placeholder",
    "render_graph",
    "load_checkpoint",
    "load_param_into_net",
    "save_checkpoint",
    "set_context",
    # used by MindSpore's tutorials and MindFlow (issue 42's coverage scan)
    "data_sink",
    "from_numpy",
    "get_seed",
    "set_device",
    "set_seed",
    "vmap",
    "Callback",
    "LossMonitor",
    "Model",
    "amp",
    "DynamicLossScaleManager",
    "FixedLossScaleManager",
    "LossScaleManager",
    "ParallelMode",
    "get_auto_parallel_context",
    "lazy_inline",
    "reset_auto_parallel_context",
    "set_auto_parallel_context",
    "train",
]


def from_numpy(array) -> Tensor:
    """A Tensor holding ``array``'s values (MindSpore's ``from_numpy``; symgrad's Tensors own their data)."""
    import numpy

    if not isinstance(array, numpy.ndarray):
        raise TypeError(f"from_numpy: array must be a numpy.ndarray, got {type(array).__name__}")
    return Tensor(array)


def __getattr__(name: str):
    if name == "numpy":  # mindspore.numpy's twin, imported when first asked for (import symgrad.numpy as mnp)
        import importlib

        return importlib.import_module("symgrad.numpy")
    if name in dtype.COMPLEX_NAMES:
        return getattr(dtype, name)  # the AttributeError that says why
    raise AttributeError(f"module 'symgrad' has no attribute {name!r}")
