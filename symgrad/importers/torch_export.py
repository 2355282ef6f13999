"""PyTorch programs as symgrad graphs: ``from_torch(module_or_function, *example_inputs)``.

``torch.export`` records the program as ATen ops (its training IR, where ``detach`` and
``torch.no_grad`` blocks are still visible); where it cannot (``torch.func`` transforms inside),
``make_fx`` traces the functionalized program below autograd. Each op is found in the op table by its ATen
spelling (``OpDef.imports``); an op without one is decomposed by PyTorch's own core-ATen
decompositions and its pieces are imported the same way. An op computed from constants alone (index
arithmetic, ``iota``, a literal's conversions) is run by PyTorch itself and becomes a constant, so
indices built that way (padding, interpolation, loss targets) are constant indices. The result is an
``nn.Cell`` whose Parameters are the module's, under their PyTorch names, so ``grad``, ``explain``,
closed forms, kernels and ``verify`` work on it as on any symgrad network.
"""

from __future__ import annotations

from symgrad.errors import OpError
from symgrad.importers.torch_cell import TorchProgram
from symgrad.importers.torch_convert import _quiet_torch, _torch
from symgrad.importers.torch_trace import _from_export, _Function, _mutation, _traced_below_autograd


def from_torch(program, *example_inputs) -> TorchProgram:
    """Import a PyTorch ``nn.Module`` or function, traced at ``example_inputs`` (torch tensors).

    The program is specialised to the inputs' shapes and dtypes and to any Python values
    that steer it (as ``torch.export`` does). Call the result with symgrad Tensors (or NumPy
    arrays) of those shapes, one per tensor in ``example_inputs`` (nested lists, tuples and
    dicts of tensors are flattened, in PyTorch's pytree order).
    """
    torch = _torch()
    module = program if isinstance(program, torch.nn.Module) else _Function(program)
    name = (
        type(program).__name__ if isinstance(program, torch.nn.Module) else getattr(program, "__name__", "fn")
    )
    with _quiet_torch():
        try:
            exported = torch.export.export(module, tuple(example_inputs))
            mutation = _mutation(exported)
            if mutation:  # values changed in place, through views too: functionalized below autograd
                raise OpError(f"the program changes a value in place ({mutation})")
        except Exception as e:  # torch.export cannot trace torch.func transforms, for one
            traced = _traced_below_autograd(module, example_inputs, name, e)
        else:
            traced = _from_export(exported, name)
        return TorchProgram(traced, name)


__all__ = ["TorchProgram", "from_torch"]
