"""The ``c`` backend: the per-point program compiled by the system C compiler.

One OpenMP loop over the points runs the whole shared program for each point, so no
array is written per op and the weights stay in cache; batch sums (a loss and its
weight gradient) are accumulated per thread inside the loop. Compiled libraries are
kept on disk, keyed by source, compiler and flags.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lowering.c_source import PointProgram, point_inputs, print_point_program
from lowering.printer import FUNCTION, Program, argument_names
from symgrad.core.graph import Node, Var
from symgrad.core.registry import OPS

FLAGS = [
    "-O3",
    "-march=native",
    "-fPIC",
    "-shared",
    "-std=c99",
    "-fno-math-errno",
    "-fopenmp",
    "-Wl,--no-undefined",
]
# glibc's vector math library (libmvec, glibc >= 2.35 on x86-64): with these functions
# declared SIMD, loops over a layer call a 4-wide tanh instead of 4 scalar ones (measured:
# the H=32 Burgers residual 93 -> 59 ms). Its results are within 4 ulp.
VECTOR_MATH = {op.simd: op.arity or 1 for op in OPS.values() if op.simd}  # libm name -> arguments
_VECTOR_MATH_DECLARATIONS = "\n".join(
    ['#define SYMGRAD_SIMD __attribute__((__simd__("notinbranch")))']
    + [f"SYMGRAD_SIMD double {f}({', '.join(['double'] * n)});" for f, n in sorted(VECTOR_MATH.items())]
)
_loaded: dict[str, object] = {}  # source key -> the loaded ``compute`` function
_vector_math: bool | None = None


class CompilerError(RuntimeError):
    """The C compiler rejected a generated kernel (a bug in symgrad: please report it)."""


def find_compiler() -> str | None:
    """``$CC`` or the first of cc, gcc, clang on the PATH."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$SYMGRAD_CACHE`` or ``~/.cache/symgrad``."""
    root = os.environ.get("SYMGRAD_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "symgrad")
    return Path(root) / "c"


def _compile(compiler: str, source: str, target: Path, extra: list[str]) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        c_file, so_file = Path(work) / "kernel.c", Path(work) / "kernel.so"
        c_file.write_text(source)
        done = subprocess.run(
            [compiler, *FLAGS, str(c_file), "-o", str(so_file), *extra], capture_output=True, text=True
        )
        if done.returncode == 0:
            os.replace(so_file, target)  # atomic: a concurrent process sees all or nothing
        return done


def uses_vector_math() -> bool:
    """Whether this compiler and C library link SIMD math functions (checked once)."""
    global _vector_math
    if _vector_math is None:
        compiler = find_compiler()
        probe = (
            "#include <math.h>\n"
            + _VECTOR_MATH_DECLARATIONS
            + "\n"
            + "".join(
                f"void f_{f}(double *x, int n) {{ for (int i = 0; i < n; i++) x[i] = {f}({', '.join(['x[i]'] * k)}); }}\n"
                for f, k in sorted(VECTOR_MATH.items())
            )
        )
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        key = hashlib.sha256("\0".join([probe, str(compiler), *FLAGS]).encode()).hexdigest()[:24]
        target = folder / f"probe_{key}.so"  # kept: a later process need not probe again
        _vector_math = target.exists() or (
            compiler is not None and _compile(compiler, probe, target, ["-lmvec", "-lm"]).returncode == 0
        )
    return _vector_math


def load_library(source: str):
    """Compile ``source`` once (or find it on disk), load it and return its ``compute`` function."""
    compiler = find_compiler()
    if compiler is None:
        raise CompilerError("no C compiler found (set CC, or install gcc or clang)")
    extra = ["-lm"]
    if uses_vector_math():
        source = source.replace(
            "#include <math.h>\n", "#include <math.h>\n" + _VECTOR_MATH_DECLARATIONS + "\n", 1
        )
        extra = ["-lmvec", "-lm"]
    key = hashlib.sha256(
        "\0".join([source, compiler, *FLAGS, *extra, platform.machine()]).encode()
    ).hexdigest()[:24]
    if key in _loaded:
        return _loaded[key]
    target = cache_dir() / f"kernel_{key}.so"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        done = _compile(compiler, source, target, extra)
        if done.returncode != 0:
            raise CompilerError(f"{compiler} failed on a generated kernel:\n{done.stderr[-2000:]}")
    library = ctypes.CDLL(str(target))
    function = getattr(library, FUNCTION)
    function.restype = None
    function.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    _loaded[key] = function
    return function


class NativeFunction:
    """Callable like a printed NumPy program: ``fn(*arrays, consts, batch) -> outputs``.

    It computes in the promotion of the graph's and the data's float types, as NumPy does:
    a float32 graph given float64 data is compiled (once, on first such call) in double.
    """

    def __init__(self, outputs: Sequence[Node], args: Sequence[Var], reductions: Sequence[str | None]):
        self.args = list(args)
        self.outputs = list(outputs)
        self.reductions = list(reductions)
        self.point = print_point_program(self.outputs, self.args, self.reductions)
        self._compiled = {self.point.real: (self.point, load_library(self.point.source))}

    @property
    def program(self) -> Program:
        return Program(self.point.source, argument_names(self.args), [], self.point.op_count)

    def _variant(self, values) -> tuple[PointProgram, object]:
        """The program for these values: in double when any float input is float64."""
        wide = any(getattr(v, "dtype", None) == np.float64 for v in values)
        real = "double" if wide else self.point.real
        if real not in self._compiled:
            point = print_point_program(self.outputs, self.args, self.reductions, double=True)
            self._compiled[real] = (point, load_library(point.source))
        return self._compiled[real]

    def __call__(self, *values_and_consts_and_batch):
        *values, _consts, batch = values_and_consts_and_batch
        point, compute = self._variant(values)
        real = np.dtype(np.float32 if point.real == "float" else np.float64)
        n = math.prod(batch)
        laid_out = point_inputs(np, self.args, values, batch, real)
        inputs = [array for array, _ in laid_out]
        strides = np.array([stride for _, stride in laid_out] + [0], dtype=np.int64)
        outs = [
            np.zeros(size, dtype=real) if reduction else np.empty((n, size), dtype=real)
            for size, reduction in zip(point.sizes_out, self.reductions)
        ]
        if n:
            compute(n, _pointers(inputs), strides.ctypes.data, _pointers(outs))
        results = []
        for node, out, reduction in zip(self.outputs, outs, self.reductions):
            value = out.reshape(node.shape if reduction else batch + node.shape)
            if node.dtype is not None:  # bool and int outputs keep their dtype; floats promote with real
                target = np.promote_types(node.dtype, real) if node.dtype.kind == "f" else node.dtype
                value = value if value.dtype == target else value.astype(target)
            results.append(value)
        return results


def _pointers(arrays: list[np.ndarray]):
    """A C array of the arrays' data pointers (kept alive by the caller's list)."""
    return (ctypes.c_void_p * max(1, len(arrays)))(*[a.ctypes.data for a in arrays])
