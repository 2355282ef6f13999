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


class RawKernel:
    """``cupy.RawKernel``: compiled with the host C++ compiler, launched by looping over the grid."""

    def __init__(self, source: str, name: str):
        compiler = shutil.which("g++") or shutil.which("c++")
        if compiler is None:
            raise RuntimeError("the CuPy test double needs a C++ compiler (g++)")
        folder = Path(tempfile.mkdtemp(prefix="symgrad-cupy-double-"))
        (folder / "kernel.cpp").write_text(SHIM + source)
        done = subprocess.run(
            [compiler, "-O1", "-shared", "-fPIC", "kernel.cpp", "-o", "kernel.so"],
            cwd=folder, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"the CUDA source does not compile as C++:\n{done.stderr[-3000:]}")
        self.library = ctypes.CDLL(str(folder / "kernel.so"))
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


class Device:
    """``cupy.cuda.Device()``: its free and total memory (``free`` is set by tests), ``synchronize``."""

    free = 2**30

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
    module.cuda = types.SimpleNamespace(Device=Device)  # type: ignore[attr-defined]
    pool = types.SimpleNamespace(free_bytes=lambda: 0, free_all_blocks=lambda: None)
    module.get_default_memory_pool = lambda: pool  # type: ignore[attr-defined]
    return module


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
    return sys.modules["cupy"]
