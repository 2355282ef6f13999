"""The CuPy backend's two ways to run a graph, chosen by the width of its layers.

Narrow networks on fewer than ``ARRAY_POINTS`` points: the per-point C program as one fused
CUDA kernel (one thread per point).
Every node of every requested output is computed in registers and local memory; only the
outputs (and the per-point factors of batch sums) are written to GPU memory. Batch sums are
finished by CuPy: per-point outer products become one cuBLAS product over the batch, as on
the NumPy backend.

Wide networks (a product with a shared matrix of at least ``ARRAY_ELEMENTS`` elements, where
one thread per point would keep H-wide activations in local memory and stream the matrix for every
point), and narrow ones on at least ``ARRAY_POINTS`` points: the printed array program over CuPy,
every product one cuBLAS matrix product over the whole batch (tiled by cuBLAS), elementwise ops as
CuPy kernels, in chunks of points that fit a quarter of the GPU's free memory (CuPy's pool included).

Either way, a call on few points that repeats the shapes of an earlier one may replay a CUDA graph
of the array program (``lowering/cupy/graphs.py``), kept where it was faster than the call it
replaces: at 10^3-10^5 points the graph of a narrow network's cuBLAS products beats the fused
kernel's loss gradient too (bench/RESULTS.md, "CUDA graphs").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from lowering import batch_sums
from lowering.c import point_inputs, print_point_program, tiles
from lowering.chunks import in_chunks
from lowering.cupy.graphs import GraphCache, replayable
from lowering.cupy.runtime import CupyRuntime
from lowering.printer import FUNCTION, Program, argument_names
from symgrad.core.graph import Node, Var, topo_order

THREADS_PER_BLOCK = 128
# a product with a shared matrix of this many elements runs as an array program, and so does a
# narrow network's call on this many points (measured on an H200: bench/RESULTS.md, "Wide layers
# on the GPU")
ARRAY_ELEMENTS = 4096
ARRAY_POINTS = 2**18


def runs_as_arrays(outputs: Sequence[Node], args: Sequence[Var]) -> bool:
    """Whether a product multiplies a per-point value by a shared matrix (a Parameter's) of at least
    ``ARRAY_ELEMENTS`` elements: then the array program, else the fused per-point kernel."""
    weights = [var for var in args if var.param is not None]
    return tiles.wide(topo_order(outputs), weights, ARRAY_ELEMENTS)


class ArrayCudaFunction:
    """The printed array program over CuPy, run in chunks of points that fit the GPU's memory.

    It calls the program with the program's own constants (``program.consts``), not the ones it
    is handed: a fused kernel that hands it a big batch passes the CUDA program's (none)."""

    def __init__(self, function, program: Program, outputs: Sequence[Node], args: Sequence[Var], reductions):
        import cupy

        self.cupy = cupy
        self.function = function
        self.consts = program.consts
        self.outputs, self.args, self.reductions = list(outputs), list(args), list(reductions)
        self.point_bytes = batch_sums.point_bytes(self.outputs, self.reductions)
        runtime = function.__globals__["rt"]
        self.graphs = GraphCache(cupy, runtime, replayable(program.source, runtime))

    def __call__(self, *values_and_consts_and_batch):
        *values, _consts, batch = values_and_consts_and_batch
        consts = self.consts
        free, _total = self.cupy.cuda.Device().mem_info  # and what CuPy's pool holds unused
        size = max(1, (free + self.cupy.get_default_memory_pool().free_bytes()) // 4 // self.point_bytes)
        if math.prod(batch) <= size:
            return self.graphs(lambda *v: self.function(*v, consts, batch), values, batch)
        return in_chunks(
            self.function, self.args, self.outputs, self.reductions, values, consts, batch, size, self.cupy
        )


class FusedCudaFunction:
    """Callable like a printed program: ``fn(*arrays, consts, batch) -> outputs`` on CuPy arrays."""

    def __init__(
        self,
        outputs: Sequence[Node],
        args: Sequence[Var],
        reductions: Sequence[str | None],
        arrays: ArrayCudaFunction | None = None,
    ):
        import cupy

        self.cupy = cupy
        self.arrays = arrays  # the array program, for calls on at least ARRAY_POINTS points
        self.args = list(args)
        plans, self.leaves = batch_sums.plan_batch_sums(outputs, reductions)
        self.point = print_point_program(self.leaves, self.args, target="cuda")
        self.real = np.dtype(np.float32 if self.point.real == "float" else np.float64)
        names = {node: f"l{k}" for k, node in enumerate(self.leaves)}
        header = f"def finish({', '.join([*names.values(), '_batch'])}):"
        body = ", ".join(batch_sums.render_all(outputs, plans, names))
        self.finish_source = f"{header}\n    return ({body},)\n"
        namespace = {"np": cupy, "xp": cupy, "rt": CupyRuntime(cupy)}
        exec(compile(self.finish_source, "<symgrad batch sums>", "exec"), namespace)
        self._finish = namespace["finish"]
        self._kernel = cupy.RawKernel(self.point.source, FUNCTION)

    @property
    def program(self) -> Program:
        source = f"{self.point.source}\n/* then, in CuPy:\n{self.finish_source}*/\n"
        return Program(source, argument_names(self.args), [], self.point.op_count)

    def __call__(self, *values_and_consts_and_batch):
        *values, _consts, batch = values_and_consts_and_batch
        n = math.prod(batch)
        if self.arrays is None:
            return self._launch(values, batch)
        if n >= ARRAY_POINTS:
            return self.arrays(*values_and_consts_and_batch)
        # the array program's CUDA graph, where one was kept for these shapes: on few points the
        # graph of cuBLAS products beat this kernel (bench/RESULTS.md, "CUDA graphs")
        arrays = self.arrays
        program = arrays.function
        return arrays.graphs(
            lambda *v: program(*v, arrays.consts, batch),
            values,
            batch,
            plain=lambda *v: self._launch(v, batch),
        )

    @property
    def graphs(self) -> GraphCache | None:
        """The CUDA graphs of the array program this kernel's calls replay (None: no array program)."""
        return None if self.arrays is None else self.arrays.graphs

    def _launch(self, values, batch: tuple) -> tuple:
        """The kernel over the batch, then the batch sums."""
        cupy = self.cupy
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
