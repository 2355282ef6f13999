"""Front ends that import other frameworks' programs into symgrad's graph.

``from_torch(module_or_function, *example_inputs)``: a PyTorch program, through ``torch.export``.
"""

from symgrad.importers.torch_export import TorchProgram, from_torch

__all__ = ["TorchProgram", "from_torch"]
