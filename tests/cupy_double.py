"""A test double for the small part of CuPy that symgrad's ``cupy`` backend uses.

Arrays are NumPy arrays. ``RawKernel(source, name)`` compiles the same CUDA source as
C++ on the host, with a shim for ``__global__``, ``__device__``, ``blockIdx``,
``threadIdx`` and ``blockDim``, and a launch loops over the grid calling the kernel
once per thread. So the backend's own glue (argument packing, strides, dtypes, the
batch sums finished by the array library) runs for real without a GPU.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest

SHIM = """
#include <math.h>
#define __global__
#define __device__
struct symgrad_dim3 { long long x; };
extern "C" { struct symgrad_dim3 blockIdx, threadIdx, blockDim; }
"""


def _compile(source: str) -> ctypes.CDLL:
    """C++ ``source`` compiled by the host compiler and loaded."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        raise RuntimeError("the CuPy test double needs a C++ compiler (g++)")
    folder = Path(tempfile.mkdtemp(prefix="symgrad-cupy-double-"))
    (folder / "kernel.cpp").write_text(source)
    done = subprocess.run(
        [compiler, "-O1", "-shared", "-fPIC", "kernel.cpp", "-o", "kernel.so"],
        cwd=folder, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the CUDA source does not compile as C++:\n{done.stderr[-3000:]}")
    return ctypes.CDLL(str(folder / "kernel.so"))


class RawKernel:
    """``cupy.RawKernel``: compiled with the host C++ compiler, launched by looping over the grid."""

    def __init__(self, source: str, name: str):
        self.library = _compile(SHIM + source)
        self.function = getattr(self.library, name)
        self.function.restype = None
        self.launches = 0

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        params = []
        for a in args:
            if isinstance(a, np.ndarray):
                assert a.flags.c_contiguous, "kernel arguments must be contiguous"
                params.append(ctypes.c_void_p(a.ctypes.data))
            elif isinstance(a, np.integer):
                params.append(ctypes.c_longlong(int(a)))
            else:
                raise TypeError(f"unexpected kernel argument {type(a).__name__}")
        block_idx, thread_idx, block_dim = (
            ctypes.c_longlong.in_dll(self.library, n) for n in ("blockIdx", "threadIdx", "blockDim")
        )
        block_dim.value = block[0]
        for b in range(grid[0]):
            block_idx.value = b
            for t in range(block[0]):
                thread_idx.value = t
                self.function(*params)
        self.launches += 1


class ElementwiseKernel:
    """``cupy.ElementwiseKernel(in_params, out_params, operation, name)`` for inputs of one type
    ``T`` (float64 or float32): the operation compiled as C++ per type, over the broadcast inputs."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str):
        self.inputs = [p.split()[-1] for p in in_params.split(",")]
        self.outputs = [p.split()[-1] for p in out_params.split(",")]
        self.operation, self.name = operation, name
        self.compiled: dict[str, ctypes.CDLL] = {}
        self.launches = 0

    def _function(self, real: str):
        if real not in self.compiled:
            params = [f"const T *p_{n}" for n in self.inputs] + [f"T *p_{n}" for n in self.outputs]
            source = "\n".join([
                "#include <cmath>", "using namespace std;", f"typedef {real} T;",
                f'extern "C" void {self.name}(long long n, {", ".join(params)})',
                "{ for (long long i = 0; i < n; i++) {",
                *[f"const T {n} = p_{n}[i];" for n in self.inputs],
                *[f"T {n};" for n in self.outputs],
                self.operation,
                *[f"p_{n}[i] = {n};" for n in self.outputs],
                "} }",
            ])  # fmt: skip
            self.compiled[real] = _compile(source)
        function = getattr(self.compiled[real], self.name)
        function.restype = None
        return function

    def __call__(self, *arrays):
        dtypes = {a.dtype for a in arrays}
        assert len(dtypes) == 1 and dtypes <= {np.dtype(np.float64), np.dtype(np.float32)}, dtypes
        real = "double" if np.dtype(np.float64) in dtypes else "float"
        full = [np.ascontiguousarray(a) for a in np.broadcast_arrays(*arrays)]
        outs = [np.empty(full[0].shape, full[0].dtype) for _ in self.outputs]
        pointers = [ctypes.c_void_p(a.ctypes.data) for a in full + outs]
        self._function(real)(ctypes.c_longlong(full[0].size), *pointers)
        self.launches += 1
        return tuple(outs) if len(outs) > 1 else outs[0]


class Device:
    """``cupy.cuda.Device()``: its free and total memory (``free`` is set by tests), ``synchronize``."""

    free = 2**30
    id = 0

    @property
    def mem_info(self) -> tuple[int, int]:
        return Device.free, 2 * Device.free

    def synchronize(self) -> None:
        pass


def fake_cupy() -> types.ModuleType:
    """A ``cupy`` module: NumPy's functions, ``asnumpy``, ``RawKernel`` and ``cuda.Device``."""
    module = types.ModuleType("cupy")
    module.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    module.__getattr__ = lambda name: getattr(np, name)  # type: ignore[method-assign]
    module.asnumpy = np.asarray  # type: ignore[attr-defined]
    module.RawKernel = RawKernel  # type: ignore[attr-defined]
    module.ElementwiseKernel = ElementwiseKernel  # type: ignore[attr-defined]
    null_stream = types.SimpleNamespace(ptr=0, synchronize=lambda: None)
    module.cuda = types.SimpleNamespace(Device=Device, get_current_stream=lambda: null_stream)  # type: ignore[attr-defined]
    pool = types.SimpleNamespace(free_bytes=lambda: 0, free_all_blocks=lambda: None)
    module.get_default_memory_pool = lambda: pool  # type: ignore[attr-defined]
    return module


def record(cupy, fn, values, runtime):
    """``lowering.cupy.graphs.record`` for the double: recording runs ``fn`` once on copies of
    ``values`` with the runtime refusing host values (as while a graph records); a launch runs it
    again on those inputs and writes the results into the recorded outputs, as a graph does."""
    from lowering.cupy import graphs

    inputs = [np.array(v, copy=True) for v in values]
    runtime.recording = True
    try:
        outputs = list(fn(*inputs))
    finally:
        runtime.recording = False

    def launch() -> None:
        for k, fresh in enumerate(fn(*inputs)):
            target = outputs[k]
            if isinstance(target, np.ndarray) and target.flags.writeable and target.shape == np.shape(fresh):
                target[...] = fresh
            else:  # a read-only view (a broadcast): the graph would rewrite the memory under it
                outputs[k] = fresh
        launch.count += 1  # type: ignore[attr-defined]

    launch.count = 0  # type: ignore[attr-defined]
    return graphs.Recorded(launch, inputs, outputs, None, 0)


def gemm(call, first, second, out, stream, device) -> None:
    """``lowering.cupy.gemm.gemm`` for the double: cuBLAS's column-major product, done by NumPy on
    the operands' memory as cuBLAS reads it (each operand's elements in memory order, column j of
    the stored matrix at ``j * ld``), so the row-major plan is checked, not assumed."""

    def stored(array, rows: int, cols: int, ld: int) -> np.ndarray:
        flat = np.ravel(array, order="K")  # memory order of a C- or F-contiguous array
        assert np.shares_memory(flat, array) and ld >= max(1, rows)
        step = flat.itemsize
        return np.lib.stride_tricks.as_strided(flat, (rows, cols), (step, ld * step), writeable=False)

    m, n, k = call.m, call.n, call.k
    a = stored(first, m, k, call.ld_first) if call.op_first == 0 else stored(first, k, m, call.ld_first).T
    b = (
        stored(second, k, n, call.ld_second)
        if call.op_second == 0
        else stored(second, n, k, call.ld_second).T
    )
    assert out.flags.c_contiguous and call.ld_out >= m
    flat = out.reshape(-1)
    target = np.lib.stride_tricks.as_strided(flat, (m, n), (flat.itemsize, call.ld_out * flat.itemsize))
    target[...] = a @ b


@pytest.fixture(params=["double", "gpu"])
def cupy_or_double(request, monkeypatch):
    """The CuPy test double (g++ on the host), or real CuPy on a GPU where there is one."""
    import symgrad

    if request.param == "gpu":
        if not symgrad.context.gpu_available():
            pytest.skip("CuPy with a CUDA GPU is not available here")
        return sys.modules["cupy"]
    if symgrad.context.gpu_available():
        pytest.skip("real CuPy and a GPU are here: the gpu cases run instead of the double")
    if shutil.which("g++") is None:
        pytest.skip("the CuPy double compiles with g++")
    if "cupy" in sys.modules and not hasattr(sys.modules["cupy"], "RawKernel"):
        pytest.skip("a module named cupy is loaded that is not CuPy")
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy())
    from lowering.cupy import gemm as cupy_gemm
    from lowering.cupy import graphs

    monkeypatch.setattr(graphs, "record", record)
    monkeypatch.setattr(cupy_gemm, "gemm", gemm)
    return sys.modules["cupy"]
