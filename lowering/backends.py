"""The backends, chosen by name. Adding one means adding one class here.

Every backend has one interface: :meth:`Backend.build` turns outputs of a graph into
``(program, function)``, where ``program`` is the readable source and ``function``
is called as ``function(*arrays, consts, batch)``; the array methods below move data
in and out. The default ``build`` prints Python with the backend's printer (the NumPy
printer or a subclass of it) and runs it over the backend's namespace; the C and CUDA
backends compile the per-point C program instead.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import sys
from collections.abc import Callable
from types import ModuleType

import numpy as np

from lowering.cupy.printer import CupyPrinter
from lowering.printer import FUNCTION, MindsporePrinter, NumpyPrinter, Program
from lowering.runtime import ArrayRuntime

_compiled: dict[tuple[str, str], Callable] = {}  # (backend, source) -> the generated function


@contextlib.contextmanager
def _silenced_stderr():
    """Silence stderr at the file-descriptor level (C++ libraries write there directly)."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class Backend:
    """How one array library runs a graph."""

    name: str = ""
    module: str = ""
    install_hint: str = ""
    printer: NumpyPrinter = NumpyPrinter()
    chunked = False  # True: the kernel evaluates big batches a chunk at a time (bounded memory)
    native_array: type | None = None  # the array type the program takes as it is (no conversion)
    array_intermediates = True  # every intermediate is an array over the points (not so in C)

    def available(self) -> bool:
        return importlib.util.find_spec(self.module) is not None

    def build(self, outputs, args, reductions) -> tuple[Program, Callable]:
        """The readable program and the function computing ``outputs`` from ``args``."""
        program = self.printer.print_program(outputs, args, reductions)
        program.consts = [self.constant(c) for c in program.consts]
        key = (self.name, program.source)
        function = _compiled.get(key)
        if function is None:
            namespace = self.namespace()
            # our own generated source (never user text): one line per shared graph node
            exec(
                compile(program.source, f"<symgrad {self.name} program {len(_compiled)}>", "exec"), namespace
            )
            function = _compiled[key] = namespace[FUNCTION]
        return program, function

    def xp(self) -> ModuleType:
        module = self.__dict__.get("_module")  # imported once: every kernel call asks
        if module is None:
            module = self.__dict__["_module"] = importlib.import_module(self.module)
        return module

    def namespace(self) -> dict:
        """Globals of the generated function."""
        xp = self.xp()
        return {"np": xp, "xp": xp, "rt": ArrayRuntime(xp)}

    def asarray(self, value):
        return self.xp().asarray(value)

    def hint(self) -> str:
        """How to make this backend available here."""
        return self.install_hint

    def constant(self, value: np.ndarray):
        """An array constant of the graph as this library's array (passed to the program as ``_c``)."""
        return self.asarray(value)

    def to_numpy(self, value) -> np.ndarray:
        return np.asarray(value)

    def is_float(self, value) -> bool:
        return value.dtype.kind == "f"

    def asarray_like(self, value, like):
        """``value`` as an array, in ``like``'s dtype when ``like`` is given."""
        return self.xp().asarray(value, dtype=None if like is None else like.dtype)

    def broadcast_copy(self, value, shape: tuple):
        """A writable array of ``shape`` (not a broadcast view)."""
        return self.xp().broadcast_to(value, shape).copy()

    def astype(self, value, dtype: np.dtype):
        return value.astype(dtype)


class NumpyBackend(Backend):
    name = "numpy"
    native_array = np.ndarray
    module = "numpy"
    install_hint = "pip install numpy"
    chunked = True


class CBackend(Backend):
    """The whole per-point program compiled by the system C compiler, one OpenMP loop over points."""

    name = "c"
    native_array = np.ndarray
    array_intermediates = False
    module = "numpy"
    install_hint = "install a C compiler (gcc or clang; or set CC)"
    chunked = True

    def available(self) -> bool:
        """A compiler is there, or compiled libraries are cached (they load without one)."""
        from lowering import library_cache
        from lowering.c_backend import find_compiler

        return find_compiler() is not None or library_cache.has_libraries()

    def hint(self) -> str:
        from lowering.c_backend import CompilerError, compiler

        try:
            compiler()
        except CompilerError as exc:
            return f"{exc}; {self.install_hint}"
        return self.install_hint

    def build(self, outputs, args, reductions):
        """The compiled function and its readable program (the C source)."""
        from lowering.c_backend import NativeFunction

        function = NativeFunction(
            outputs, args, reductions, lambda: BACKENDS["numpy"].build(outputs, args, reductions)
        )
        return function.program, function


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
        from lowering.cuda import ArrayCudaFunction, FusedCudaFunction, runs_as_arrays

        program, function = super().build(outputs, args, reductions)
        arrays = ArrayCudaFunction(function, outputs, args, reductions)
        if runs_as_arrays(outputs, args):
            return program, arrays
        fused = FusedCudaFunction(outputs, args, reductions, arrays)
        return fused.program, fused

    def to_numpy(self, value) -> np.ndarray:
        return self.xp().asnumpy(value)


class TorchBackend(Backend):
    """PyTorch (CPU or CUDA tensors); results stay differentiable by torch's autograd."""

    name = "torch"
    module = "torch"
    install_hint = "pip install torch"

    def namespace(self) -> dict:
        from lowering.torch_runtime import TorchRuntime

        runtime = TorchRuntime(self.xp())
        return {"np": runtime.xp, "xp": runtime.xp, "rt": runtime}

    def asarray(self, value):
        torch = self.xp()
        return value if isinstance(value, torch.Tensor) else torch.as_tensor(np.asarray(value))

    def to_numpy(self, value) -> np.ndarray:
        return value.detach().cpu().numpy()

    def is_float(self, value) -> bool:
        return value.is_floating_point()

    def asarray_like(self, value, like):
        return self.xp().as_tensor(value, dtype=None if like is None else like.dtype)

    def broadcast_copy(self, value, shape: tuple):
        return value.broadcast_to(shape).clone()

    def astype(self, value, dtype: np.dtype):
        return value.to(getattr(self.xp(), np.dtype(dtype).name))


class MindsporeBackend(Backend):
    """MindSpore ``ops`` code (PyNative); on an Ascend device it runs as Ascend kernels."""

    name = "mindspore"
    module = "mindspore"
    printer = MindsporePrinter()
    install_hint = "pip install 'symgrad[mindspore]'"

    _usable: bool | None = None

    def available(self) -> bool:
        """Installed and working: MindSpore 2.10's C++ layer fails under NumPy 2 for some ops."""
        if self._usable is None:
            self._usable = False
            if super().available():
                with _silenced_stderr():  # a failing MindSpore prints C++ warnings and tracebacks
                    try:
                        ms = self.xp()
                        ms.ops.broadcast_to(ms.Tensor(np.zeros(()), ms.float64), (2,)).asnumpy()
                        self._usable = True
                    except Exception:  # any failure means this install cannot run kernels
                        pass
        return self._usable

    def namespace(self) -> dict:
        from lowering.mindspore_runtime import MindsporeRuntime

        ms = self.xp()
        return {"ops": ms.ops, "ms": ms, "rt": MindsporeRuntime(ms)}

    def asarray(self, value):
        ms = self.xp()
        return value if isinstance(value, ms.Tensor) else ms.Tensor(np.asarray(value))

    def to_numpy(self, value) -> np.ndarray:
        return value.asnumpy()

    def is_float(self, value) -> bool:
        return np.dtype(self.xp().dtype_to_nptype(value.dtype)).kind == "f"

    def asarray_like(self, value, like):
        ms = self.xp()
        if isinstance(value, ms.Tensor) and like is None:
            return value
        return ms.Tensor(
            np.asarray(value.asnumpy() if isinstance(value, ms.Tensor) else value),
            dtype=None if like is None else like.dtype,
        )

    def broadcast_copy(self, value, shape: tuple):
        return self.xp().ops.broadcast_to(value, shape).copy()

    def astype(self, value, dtype: np.dtype):
        ms = self.xp()
        return value.astype(getattr(ms, np.dtype(dtype).name))


BACKENDS: dict[str, Backend] = {
    b.name: b for b in (NumpyBackend(), CBackend(), CupyBackend(), TorchBackend(), MindsporeBackend())
}
