"""The per-point C program: a graph as one C function that evaluates every node for one point.

The same body serves the CPU (``openmp_driver``: a parallel loop over the points, compiled
by the system C compiler) and the GPU (``lowering.cupy.cuda_driver``: one CUDA thread per point). One file
per job:

- ``walk.py``: :class:`~lowering.c.walk.PointPrinter`, the walk over the graph and what every
  emitter reads and writes (names, lanes, scratch, tables);
- ``elementwise.py``, ``products.py``, ``structural.py``: the emitters, one per op pattern
  (registered in ``EMITTERS`` below);
- ``outputs.py``: a point's outputs written out or added to the batch sums;
- ``openmp_driver.py`` (and ``lowering/cupy/cuda_driver.py``): the loop around the body.
"""

from __future__ import annotations

from collections.abc import Sequence

from lowering import batch_sums
from lowering.c import elementwise, openmp_driver, products, structural
from lowering.c.point_program import PointProgram
from lowering.c.walk import Emitter, PointPrinter
from lowering.cupy import cuda_driver
from lowering.cupy.cuda_driver import point_inputs
from symgrad.core.graph import Node, Var
from symgrad.core.registry import CONTRACTION, GATHER, MAP, REDUCTION

__all__ = ["EMITTERS", "PointProgram", "point_inputs", "print_point_program"]

# how a node of each op pattern is printed (a new pattern: one emitter module and one entry)
EMITTERS: dict[str, Emitter] = {
    MAP: elementwise.emit,
    CONTRACTION: products.emit,
    REDUCTION: structural.emit_reduce,
    GATHER: structural.emit_gather,
}
_DRIVERS = {"openmp": openmp_driver.program, "cuda": cuda_driver.program}


def print_point_program(
    outputs: Sequence[Node],
    args: Sequence[Var],
    reductions: Sequence[str | None] | None = None,
    target: str = "openmp",
    double: bool = False,
    shared: frozenset[int] = frozenset(),
    vector_bytes: int = 32,
) -> PointProgram:
    """C source evaluating ``outputs`` from ``args`` at each of ``n`` points.

    It computes in ``float`` when every float of the graph is float32 (and ``double`` is
    False: the caller passes True for float64 data), else in ``double``.

    ``target`` is ``"openmp"`` (a parallel loop over points) or ``"cuda"`` (one thread
    per point). Argument ``k`` of point ``p`` starts at ``in[k] + p * stride[k]``
    (stride 0 shares one value, such as a weight, between all points); output ``j``
    of point ``p`` is written at ``out[j] + p * size_j``. An output with a reduction
    (``"sum"`` or ``"mean"``; the caller divides) is summed over the points into
    ``out[j]`` (OpenMP only): each thread sums its points, then the threads' sums are
    added in a fixed order, so results do not depend on timing.

    On OpenMP, ``shared`` lists the arguments every point shares (the weights; the caller
    passes them with stride 0). Nodes that depend on nothing else are computed once per
    thread, and the rest in blocks of ``lanes`` points: each per-point array holds element
    ``i`` of point ``b`` at ``i * lanes + b``, so every loop over elements vectorizes over
    the points, and a product with a shared matrix becomes one register-blocked matrix
    product per block (blocks of ``tiles.lanes(itemsize, vector_bytes)`` points, ``vector_bytes``
    the compiler's widest vectors: ``build.native_vector_bytes()``).

    Consecutive elementwise nodes of one size share one loop, in which a value that only the
    loop reads is a local, not an array; a reshape is another name for its argument.
    """
    reductions = list(reductions) if reductions is not None else [None] * len(outputs)
    if target == "cuda" and any(reductions):
        raise NotImplementedError("the CUDA kernel writes per-point outputs; reduce them with CuPy")
    plans, leaves = batch_sums.plan_batch_sums(outputs, reductions)
    spelling_keys = ("cuda", "c") if target == "cuda" else ("c",)
    printer = PointPrinter(
        outputs, args, plans, leaves, EMITTERS, spelling_keys, double, target, shared, vector_bytes
    )
    return _DRIVERS[target](printer)
