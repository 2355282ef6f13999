"""Replaying a CuPy program as a CUDA graph, for calls on few points.

An array program of a PINN's loss gradient is about 60 kernels (products, fused elementwise runs,
batch sums), each launched from Python: at 10^4 points the launches, not the GPU, set the time
(bench/RESULTS.md, "CUDA graphs for calls on few points"). The second call with the same shapes is captured once
into a CUDA graph (its work recorded on a private stream, its memory from a private pool that
only the graph uses); later calls copy their inputs into the graph's input arrays, launch the
graph and copy its outputs out, three steps on the current stream under one lock. A graph is
kept where its replay was faster than the plain call it was timed against (a narrow network's
residual is one kernel: copying its inputs costs more than launching it). For a narrow network
the plain call is the fused per-point kernel and the graph its array program's: replayed, the
cuBLAS products beat the fused loss gradient on few points.

A graph is recorded only for a program that moves no host data while it runs: no helper it
calls is marked ``unrecorded``, and the runtime refuses host values while it is being recorded
(``CupyRuntime.recording``). A recorded graph is replayed against a plain run on the same inputs
(and timed) before it is kept. Whatever refuses, the call runs as before: a graph is only ever faster.
"""

from __future__ import annotations

import math
import re
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lowering.cupy import gemm

GRAPH_POINTS = 2**16  # calls on fewer points replay a graph (0: never)
GRAPHS_PER_FUNCTION = 4  # graphs kept per kernel; past that, calls of new shapes run as before
SHAPES_REMEMBERED = 256  # shapes seen once per kernel, forgotten together past this
GRAPH_MEMORY = 1 / 16  # the most of the GPU's memory one graph may hold (its pool) for good
GRAPHS_MEMORY = 1 / 4  # and all graphs together
_HELPER = re.compile(r"\brt\.([A-Za-z_]\w*)\(")
_HOST_DATA = re.compile(r"\bnp\.(asarray|array|vectorize|frompyfunc)\(")


def replayable(source: str, runtime) -> bool:
    """Whether the printed Python ``source`` may be recorded: every ``rt`` helper it calls is one of
    ``runtime``'s not marked ``unrecorded`` (lowering/runtime.py), and it makes no array of host data."""
    helpers = [getattr(runtime, name, None) for name in set(_HELPER.findall(source))]
    recordable = all(callable(h) and not getattr(h, "unrecorded", False) for h in helpers)
    return recordable and not _HOST_DATA.search(source)


@dataclass
class Recorded:
    """One shape's graph: ``launch()`` runs it on the current stream, reading ``inputs`` and
    writing ``outputs``; ``keep`` holds what must live as long as the graph (its memory pool of
    ``nbytes``)."""

    launch: Callable[[], None]
    inputs: list
    outputs: list
    keep: Any
    nbytes: int


def record(cupy, fn: Callable[..., tuple], values: Sequence, runtime) -> Recorded:
    """``fn(*inputs)`` captured into a CUDA graph, with ``inputs`` copies of ``values`` and every
    array of the capture (inputs, temporaries, outputs) from a pool of its own."""
    cupy.cuda.device.get_cublas_handle()  # CuPy's cuBLAS loaded (gemm finds the library it loaded)
    gemm.cublas(cupy.cuda.Device().id)  # and the handle of the recorded products, before the capture
    pool = cupy.cuda.MemoryPool()
    stream = cupy.cuda.Stream(non_blocking=True)
    with cupy.cuda.using_allocator(pool.malloc):
        inputs = [cupy.array(v, copy=True) for v in values]
        stream.synchronize()
        cupy.cuda.get_current_stream().synchronize()
        with stream:
            stream.begin_capture()
            runtime.recording = True
            try:
                outputs = fn(*inputs)
            finally:
                runtime.recording = False
                graph = stream.end_capture()
    return Recorded(graph.launch, inputs, list(outputs), (graph, pool, stream), pool.total_bytes())


class GraphCache:
    """The graphs of one kernel's program by the shapes, dtypes and strides of its inputs."""

    def __init__(self, cupy, runtime, replay: bool):
        self.cupy = cupy
        self.runtime = runtime  # the program's CupyRuntime (refuses host values while recording)
        self.replay = replay  # False: the program moves host data, never recorded
        self.graphs: dict[tuple, Recorded] = {}
        self.seen: set[tuple] = set()
        self.plain: dict[tuple, str] = {}  # shapes that run plain, and why (slower, too big)
        self.refused: str | None = None  # why recording failed (then no more graphs for this kernel)
        self.lock = threading.Lock()

    def key(self, values: Sequence, batch: tuple) -> tuple | None:
        """The device and shapes of a call that may replay a graph, or None (host values, a stream
        of the caller's own, too many points)."""
        cupy = self.cupy
        if not self.replay or self.refused or not 0 < math.prod(batch) < GRAPH_POINTS:
            return None
        if cupy.cuda.get_current_stream().ptr != 0:  # a caller's own stream: left alone
            return None
        if not all(isinstance(v, cupy.ndarray) for v in values):
            return None
        return (cupy.cuda.Device().id, batch, *((v.shape, v.dtype.str, v.strides) for v in values))

    def __call__(
        self,
        fn: Callable[..., tuple],
        values: Sequence,
        batch: tuple,
        plain: Callable[..., tuple] | None = None,
    ) -> tuple:
        """``fn(*values)``, or where ``plain`` is given the same values by ``plain`` (the fused kernel,
        whose array program ``fn`` is): the first call of a shape plain, the second recorded (the
        graph of ``fn`` kept if it equals and beats the plain call), later ones replayed."""
        plain = plain or fn
        key = self.key(values, batch)
        if key is None:
            return plain(*values)
        with self.lock:
            recorded = self.graphs.get(key)
            if recorded is not None:
                return self._replay(recorded, values)
            if key not in self.seen or key in self.plain or len(self.graphs) >= GRAPHS_PER_FUNCTION:
                if len(self.seen) >= SHAPES_REMEMBERED:  # a caller whose shapes never repeat
                    self.seen.clear()
                self.seen.add(key)
                return plain(*values)
            return self._record(key, fn, plain, values)

    def _replay(self, recorded: Recorded, values: Sequence) -> tuple:
        """The graph on ``values``: copied in, launched, its outputs copied out (the next replay
        overwrites them), all on the current stream."""
        for target, value in zip(recorded.inputs, values):
            target[...] = value
        recorded.launch()
        return tuple(o.copy() if isinstance(o, self.cupy.ndarray) else o for o in recorded.outputs)

    def _record(
        self, key: tuple, fn: Callable[..., tuple], plain: Callable[..., tuple], values: Sequence
    ) -> tuple:
        """``plain(*values)``, and the graph of ``fn`` at these shapes, kept where its replay equals
        that plain run and took less time (the better of two replays: the first uploads the graph);
        ``refused`` says why recording failed, ``plain`` why a graph was not kept."""
        sync = self.cupy.cuda.get_current_stream().synchronize
        try:
            recorded = record(self.cupy, fn, values, self.runtime)
        except Exception as error:  # any failure leaves the kernel on its plain path
            self.refused = f"{type(error).__name__}: {error}"
            return plain(*values)
        sync()
        start = time.perf_counter()
        want = plain(*values)
        sync()
        plain_seconds = time.perf_counter() - start
        replays = []
        for _ in range(2):
            start = time.perf_counter()
            got = self._replay(recorded, values)
            sync()
            replays.append(time.perf_counter() - start)
        graph_seconds = min(replays)
        if len(got) != len(want) or not all(_same(self.cupy, g, w) for g, w in zip(got, want)):
            self.refused = "the replayed graph differs from a plain run"
        elif not faster(graph_seconds, plain_seconds):
            self.plain[key] = f"replayed in {1e3 * graph_seconds:.3f} ms, plain {1e3 * plain_seconds:.3f} ms"
        elif not _reserve(recorded, self.cupy.cuda.Device().mem_info[1]):
            self.plain[key] = f"its graph would hold {recorded.nbytes} bytes, over {_held[0]} held"
        else:
            self.graphs[key] = recorded
        return tuple(want)


_held = [0]  # bytes the kept graphs hold, all caches together
_held_lock = threading.Lock()


def _reserve(recorded: Recorded, total: int) -> bool:
    """Whether the graph's memory fits the budgets (``GRAPH_MEMORY`` of the GPU's ``total`` bytes for
    it, ``GRAPHS_MEMORY`` for all); if so it counts as held until the graph is freed."""
    with _held_lock:
        if recorded.nbytes > GRAPH_MEMORY * total or _held[0] + recorded.nbytes > GRAPHS_MEMORY * total:
            return False
        _held[0] += recorded.nbytes
    weakref.finalize(recorded, _release, recorded.nbytes)
    return True


def _release(nbytes: int) -> None:
    with _held_lock:
        _held[0] -= nbytes


def faster(graph_seconds: float, plain_seconds: float) -> bool:
    """Whether a graph's replay (inputs copied in, outputs out) beat the plain call it was timed
    against, once: a narrow network's residual is one kernel, and copying its inputs costs more."""
    return graph_seconds < plain_seconds


def _same(cupy, got, want) -> bool:
    """Equal to well within the precision (the recorded products are cuBLAS called by symgrad, the
    plain ones by CuPy or the fused kernel): a wrong graph is off by the values themselves. Shapes
    need only broadcast together (an array program may leave a value unbroadcast that the fused
    kernel writes per point; the kernel broadcasts either)."""
    got, want = cupy.asarray(got), cupy.asarray(want)
    try:
        got, want = cupy.broadcast_arrays(got, want)
    except ValueError:
        return False
    if want.dtype.kind not in "fc" or got.dtype.kind not in "fc" or want.size == 0:
        return bool((got == want).all())
    precision = max(np.finfo(got.dtype).eps, np.finfo(want.dtype).eps)
    scale = float(cupy.abs(cupy.nan_to_num(want)).max()) or 1.0
    close = (cupy.abs(got - want) <= np.sqrt(precision) * scale) | (cupy.isnan(got) & cupy.isnan(want))
    return bool(close.all())
