"""The ``cupy`` backend: the fused per-point CUDA kernel or the fused array program."""

from __future__ import annotations

import numpy as np

from lowering.backend import Backend
from lowering.cupy.printer import CupyPrinter


class CupyBackend(Backend):
    """CuPy: narrow networks as one fused CUDA kernel per output set, wide ones as array programs."""

    name = "cupy"
    module = "cupy"
    install_hint = "pip install 'symgrad[cupy]' (needs an NVIDIA GPU and CUDA)"
    printer = CupyPrinter()

    def namespace(self) -> dict:
        from lowering.cupy.runtime import CupyRuntime

        cupy = self.xp()
        return {"np": cupy, "xp": cupy, "rt": CupyRuntime(cupy)}

    def build(self, outputs, args, reductions):
        """The fused kernel and its readable program (CUDA source plus the CuPy batch sums), or for
        wide layers the printed array program (Python over CuPy) in chunks of GPU memory (the
        fused kernel hands big batches to it too)."""
        from lowering.cupy.functions import ArrayCudaFunction, FusedCudaFunction, runs_as_arrays

        program, function = super().build(outputs, args, reductions)
        arrays = ArrayCudaFunction(function, program, outputs, args, reductions)
        if runs_as_arrays(outputs, args):
            return program, arrays
        fused = FusedCudaFunction(outputs, args, reductions, arrays)
        return fused.program, fused

    def to_numpy(self, value) -> np.ndarray:
        return self.xp().asnumpy(value)
