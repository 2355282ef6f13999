"""The ``c`` backend: the per-point program compiled by the system C compiler.

One OpenMP loop over the points runs the whole shared program for each point, so no
array is written per op and the weights stay in cache; batch sums (a loss and its
weight gradient) are accumulated per thread inside the loop. Compiled libraries are
kept on disk (``library_cache``), keyed by source and flags, and verified before loading.
OpenMP does not survive ``fork()``: in a forked child of a process that ran a C kernel,
kernels run on the NumPy backend instead (with a warning).
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import platform
import shutil
import subprocess
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from lowering.c import PointProgram, library_cache, print_point_program
from lowering.c.call_plan import CallPlan
from lowering.printer import FUNCTION, Program, argument_names
from symgrad.core.graph import Node, Var
from symgrad.core.registry import OPS

FLAGS = [
    "-O3",
    # no complete unrolling of small fixed loops: it made compiles 3-5x slower (5.7 s -> 1.2 s for
    # the H=16 Burgers loss) and the H=16 kernels 2-4x slower; register blocks are written out instead
    "--param=max-completely-peel-times=1",
    "-march=native",
    "-fPIC",
    "-shared",
    "-std=c99",
    "-fno-math-errno",
    "-ffp-contract=fast",  # a * b + c as one FMA (ISO C mode turns it off): the blocked products need it
    "-fno-trapping-math",  # a choice on floats (sg_tanh's clamp) may be a vector select, not a branch
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
_FEW_POINTS = 4096  # below this many points a call broadcasts shared values rather than compile a variant
_PLANS_KEPT = 64  # call layouts kept per kernel (one per argument signature)
_loaded: dict[str, Callable] = {}  # source key -> the loaded ``compute`` function
_vector_math: bool | None = None
_native_vector_bytes: int | None = None
_openmp_pid: int | None = None  # the process that first ran a C kernel (OpenMP's thread pool lives there)


class CompilerError(RuntimeError):
    """No usable C compiler, or it rejected a generated kernel (a bug in symgrad: please report it)."""


def find_compiler() -> str | None:
    """``$CC`` when it is set and exists, else the first of cc, gcc, clang on the PATH.

    A ``$CC`` that does not exist gives None (never a silent fall-back to another
    compiler); :func:`compiler` says why.
    """
    try:
        return compiler()
    except CompilerError:
        return None


def compiler() -> str:
    """The compiler to use, or a CompilerError saying why there is none."""
    chosen = os.environ.get("CC")
    if chosen:
        path = shutil.which(chosen)
        if path is None:
            raise CompilerError(
                f"CC={chosen!r} is not an executable here; set CC to a C compiler or unset it"
            )
        return path
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return str(shutil.which(name))
    raise CompilerError("no C compiler found (set CC, or install gcc or clang)")


def _compiled_into(compiler_path: str, source: str, extra: list[str]):
    """A builder for :func:`library_cache.store` that compiles ``source`` into its path."""

    def build(target: Path) -> None:
        c_file = target.with_suffix(".c")
        c_file.write_text(source)
        done = subprocess.run(
            [compiler_path, *FLAGS, str(c_file), "-o", str(target), *extra], capture_output=True, text=True
        )
        if done.returncode != 0:
            raise CompilerError(f"{compiler_path} failed on a generated kernel:\n{done.stderr[-2000:]}")
        if not target.exists() or target.stat().st_size == 0:
            raise CompilerError(f"{compiler_path} reported success but wrote no library: is CC a C compiler?")

    return build


def native_vector_bytes() -> int:
    """The widest vector the compiler targets on this host with ``-march=native``: 64 bytes where
    it defines ``__AVX512F__`` (the tiles' ``TILE_BYTES`` test), else 32. Probed once a process."""
    global _native_vector_bytes
    if _native_vector_bytes is None:
        path, macros = find_compiler(), ""
        if path is not None:
            done = subprocess.run(
                [path, "-march=native", "-dM", "-E", "-x", "c", os.devnull], capture_output=True, text=True
            )
            macros = done.stdout if done.returncode == 0 else ""
        _native_vector_bytes = 64 if "__AVX512F__" in macros else 32
    return _native_vector_bytes


def uses_vector_math() -> bool:
    """Whether this compiler and C library link SIMD math functions (probed once, result kept on disk)."""
    global _vector_math
    if _vector_math is None:
        probe = (
            "#include <math.h>\n"
            + _VECTOR_MATH_DECLARATIONS
            + "\n"
            + "".join(
                f"void f_{f}(double *x, int n) {{ for (int i = 0; i < n; i++) x[i] = {f}({', '.join(['x[i]'] * k)}); }}\n"
                for f, k in sorted(VECTOR_MATH.items())
            )
        )
        note = "vector_math_" + hashlib.sha256("\0".join([probe, *FLAGS]).encode()).hexdigest()[:16]
        known = library_cache.read_note(note)
        if known is not None:
            _vector_math = known == "yes"
        else:
            path = find_compiler()
            if path is None:
                return False  # decided when a compiler is there
            try:
                library_cache.store(note + ".so", _compiled_into(path, probe, ["-lmvec", "-lm"]))
                _vector_math = True
            except CompilerError:
                _vector_math = False
            library_cache.write_note(note, "yes" if _vector_math else "no")
    return _vector_math


def load_library(source: str):
    """Compile ``source`` once (or find it, verified, on disk), load it and return its ``compute``.

    A kernel already in the cache loads without a compiler.
    """
    extra = ["-lm"]
    if uses_vector_math():
        source = source.replace(
            "#include <math.h>\n", "#include <math.h>\n" + _VECTOR_MATH_DECLARATIONS + "\n", 1
        )
        extra = ["-lmvec", "-lm"]
    key = hashlib.sha256("\0".join([source, *FLAGS, *extra, platform.machine()]).encode()).hexdigest()[:24]
    if key in _loaded:
        return _loaded[key]
    name = f"kernel_{key}.so"
    path = library_cache.find(name) or library_cache.store(name, _compiled_into(compiler(), source, extra))
    try:
        library = ctypes.CDLL(str(path))
    except OSError as exc:  # complete and unchanged, yet not loadable here: rebuild it once
        warnings.warn(
            f"symgrad: the cached kernel {path} does not load ({exc}); it is rebuilt",
            RuntimeWarning,
            stacklevel=3,
        )
        library_cache.discard(path)
        library = ctypes.CDLL(str(library_cache.store(name, _compiled_into(compiler(), source, extra))))
    function = getattr(library, FUNCTION)
    function.restype = ctypes.c_int  # 1: a thread's scratch or the sums could not be allocated
    function.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    _loaded[key] = function
    return function


class NativeFunction:
    """Callable like a printed NumPy program: ``fn(*arrays, consts, batch) -> outputs``.

    It computes in the promotion of the graph's and the data's float types, as NumPy does:
    a float32 graph given float64 data is compiled (once, on first such call) in double.
    The program is compiled for the arguments every point shares (Parameters, at first);
    a call that shares others over many points compiles a variant for them once.
    """

    def __init__(
        self,
        outputs: Sequence[Node],
        args: Sequence[Var],
        reductions: Sequence[str | None],
        numpy_fallback: Callable[[], tuple[Program, Callable]],
    ):
        self.numpy_fallback = numpy_fallback  # builds the NumPy program (for a forked child)
        self.args = list(args)
        self.outputs = list(outputs)
        self.reductions = list(reductions)
        self.shared = frozenset(k for k, var in enumerate(self.args) if var.param is not None)
        self.point = print_point_program(
            self.outputs, self.args, self.reductions, shared=self.shared, vector_bytes=native_vector_bytes()
        )
        self._compiled = {(self.point.real, self.shared): (self.point, load_library(self.point.source))}
        self._numpy: tuple | None = None  # the NumPy program, built in a forked child
        self._plans: dict[tuple, CallPlan] = {}  # argument shapes and dtypes -> how a call lays them out

    @property
    def program(self) -> Program:
        return Program(self.point.source, argument_names(self.args), [], self.point.op_count)

    def _variant(self, values, n: int) -> tuple[PointProgram, frozenset[int], Callable]:
        """The program for these values: in double when any float input is float64, sharing
        the arguments given without batch axes (over few points, any compiled program that
        shares no argument given per point will do)."""
        wide = any(getattr(v, "dtype", None) == np.float64 for v in values)
        real = "double" if wide else self.point.real
        unbatched = frozenset(k for k, (var, v) in enumerate(zip(self.args, values)) if v.ndim == var.ndim)
        shared = unbatched
        if n < _FEW_POINTS:
            shared = next(
                (s for r, s in self._compiled if r == real and s <= unbatched), self.shared & unbatched
            )
        if (real, shared) not in self._compiled:
            point = print_point_program(
                self.outputs,
                self.args,
                self.reductions,
                double=wide,
                shared=shared,
                vector_bytes=native_vector_bytes(),
            )
            self._compiled[real, shared] = (point, load_library(point.source))
        point, compute = self._compiled[real, shared]
        return point, shared, compute

    def __call__(self, *values_and_consts_and_batch):
        global _openmp_pid
        *values, _consts, batch = values_and_consts_and_batch
        if _openmp_pid is not None and _openmp_pid != os.getpid():
            return self._forked(values, batch)
        _openmp_pid = os.getpid()
        signature = tuple((v.shape, v.dtype) for v in values)
        plan = self._plans.get(signature)
        if plan is None:
            if len(self._plans) >= _PLANS_KEPT:  # a caller whose shapes keep changing: start afresh
                self._plans.clear()
            point, shared, compute = self._variant(values, math.prod(batch))
            plan = CallPlan(compute, point, self.args, self.outputs, self.reductions, values, batch, shared)
            self._plans[signature] = plan
        results = plan(values)
        if isinstance(results, int):
            raise MemoryError(
                f"symgrad: the C kernel could not allocate its working memory for {plan.n} points "
                f"({plan.point.scratch_bytes} bytes of scratch per thread, {plan.point.shared_scratch_bytes} shared); "
                "use fewer threads or the numpy backend"
            )
        return results

    def _forked(self, values, batch):
        """In a forked child of a process that ran OpenMP: the same program on NumPy (OpenMP could hang)."""
        if self._numpy is None:
            warnings.warn(
                "symgrad: this process was forked from one that ran a C kernel, and OpenMP does not "
                "survive fork(); its C kernels run on the NumPy backend here (start child processes "
                "with the 'spawn' method to keep the C backend)",
                RuntimeWarning,
                stacklevel=3,
            )
            self._numpy = self.numpy_fallback()
        program, function = self._numpy
        return function(*values, program.consts, batch)
