"""Front ends that import other frameworks' programs into symgrad's graph.

``from_torch(module_or_function, *example_inputs)``: a PyTorch program, through ``torch.export``.
``from_jax(function, *example_args)``: a JAX function, through its jaxpr.
"""

from symgrad.importers.jax_program import JaxProgram, from_jax
from symgrad.importers.torch_export import TorchProgram, from_torch

__all__ = ["JaxProgram", "TorchProgram", "from_jax", "from_torch"]
