"""``Backend``: how one array library runs a graph (each backend's folder subclasses it).

Every backend has one interface: :meth:`Backend.build` turns outputs of a graph into
``(program, function)``, where ``program`` is the readable source and ``function``
is called as ``function(*arrays, consts, batch)``; the array methods below move data
in and out. The default ``build`` prints Python with the backend's printer (the NumPy
printer or a subclass of it) and runs it over the backend's namespace; the C backend
compiles the per-point C program instead, and CuPy chooses between the two.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from types import ModuleType

import numpy as np

from lowering.printer import FUNCTION, NumpyPrinter, Program
from lowering.runtime import ArrayRuntime

_compiled: dict[tuple[str, str], Callable] = {}  # (backend, source) -> the generated function


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
