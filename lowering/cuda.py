"""The fused CuPy path: the per-point C program as one CUDA kernel (one thread per point).

Every node of every requested output is computed in registers and local memory; only
the outputs (and the per-point factors of batch sums) are written to GPU memory. Batch
sums are finished by CuPy: per-point outer products become one cuBLAS product over the
batch, as on the NumPy backend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from lowering import batch_sums
from lowering.c import point_inputs, print_point_program
from lowering.printer import FUNCTION, Program, argument_names
from lowering.runtime import ArrayRuntime
from symgrad.core.graph import Node, Var

THREADS_PER_BLOCK = 128


class FusedCudaFunction:
    """Callable like a printed program: ``fn(*arrays, consts, batch) -> outputs`` on CuPy arrays."""

    def __init__(self, outputs: Sequence[Node], args: Sequence[Var], reductions: Sequence[str | None]):
        import cupy

        self.cupy = cupy
        self.args = list(args)
        plans, self.leaves = batch_sums.plan_batch_sums(outputs, reductions)
        self.point = print_point_program(self.leaves, self.args, target="cuda")
        self.real = np.dtype(np.float32 if self.point.real == "float" else np.float64)
        names = {node: f"l{k}" for k, node in enumerate(self.leaves)}
        header = f"def finish({', '.join([*names.values(), '_batch'])}):"
        body = ", ".join(batch_sums.render_all(outputs, plans, names))
        self.finish_source = f"{header}\n    return ({body},)\n"
        namespace = {"np": cupy, "xp": cupy, "rt": ArrayRuntime(cupy)}
        exec(compile(self.finish_source, "<symgrad batch sums>", "exec"), namespace)
        self._finish = namespace["finish"]
        self._kernel = cupy.RawKernel(self.point.source, FUNCTION)

    @property
    def program(self) -> Program:
        source = f"{self.point.source}\n/* then, in CuPy:\n{self.finish_source}*/\n"
        return Program(source, argument_names(self.args), [], self.point.op_count)

    def __call__(self, *values_and_consts_and_batch):
        cupy = self.cupy
        *values, _consts, batch = values_and_consts_and_batch
        n = math.prod(batch)
        params: list = [np.int64(n)]
        for array, stride in point_inputs(cupy, self.args, values, batch, self.real):
            params += [array, np.int64(stride)]
        outs = [cupy.empty((n, size), dtype=self.real) for size in self.point.sizes_out]
        if n:
            blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            self._kernel((blocks,), (THREADS_PER_BLOCK,), tuple(params + outs))
        leaves = []
        for node, out in zip(self.leaves, outs):
            value = out.reshape(batch + node.shape)
            leaves.append(
                value if node.dtype is None or node.dtype == self.real else value.astype(node.dtype)
            )
        return self._finish(*leaves, batch)
