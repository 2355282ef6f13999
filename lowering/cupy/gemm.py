"""Matrix products by cuBLAS called directly, for the products of a program that a CUDA graph records.

CuPy refuses every cuBLAS call while a stream is being captured (``setStream`` in cupy_backends
raises NotImplementedError, CuPy 13 and 14), though cuBLAS supports capture (its guide, "CUDA
Graphs Support"; alpha and beta in host pointer mode are recorded by value). So while a graph
records, ``CupyRuntime.product`` calls ``cublasDgemm`` / ``cublasSgemm`` here, on a handle of its
own for each device, through ctypes: the library CuPy already loaded, found by its name.

Row-major ``C = A @ B`` is column-major ``C^T = B^T A^T``: a C-contiguous operand is its own
transpose in column-major order (no flag), an F-contiguous one (a transposed view) is flagged.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

_LIBRARIES = ("libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so")
_NO_TRANSPOSE, _TRANSPOSE = 0, 1


@dataclass(frozen=True)
class Gemm:
    """The column-major call computing row-major ``C (m_rows x n_cols) = A @ B``: ``first`` is
    B, ``second`` is A (cuBLAS's A and B), each with its transpose flag and leading dimension."""

    op_first: int
    op_second: int
    m: int  # rows of column-major C^T: the columns of C
    n: int  # its columns: the rows of C
    k: int
    ld_first: int
    ld_second: int
    ld_out: int


def plan(a_shape: tuple, a_c_contiguous: bool, b_shape: tuple, b_c_contiguous: bool) -> Gemm:
    """The call for 2-D ``a (M x K) @ b (K x N)``, each operand C-contiguous or else F-contiguous."""
    (rows, inner), (_inner, cols) = a_shape, b_shape
    op_first, ld_first = (_NO_TRANSPOSE, cols) if b_c_contiguous else (_TRANSPOSE, inner)
    op_second, ld_second = (_NO_TRANSPOSE, inner) if a_c_contiguous else (_TRANSPOSE, rows)
    return Gemm(op_first, op_second, cols, rows, inner, max(1, ld_first), max(1, ld_second), max(1, cols))


class Cublas:
    """A cuBLAS handle of symgrad's own and the two products it is asked for."""

    def __init__(self) -> None:
        self.library = _load()
        handle = ctypes.c_void_p()
        _check(self.library.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        self.handle = handle
        self.library.cublasSetStream_v2.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        for name, real in (("cublasDgemm_v2", ctypes.c_double), ("cublasSgemm_v2", ctypes.c_float)):
            function = getattr(self.library, name)
            pointer = ctypes.c_void_p
            function.argtypes = [pointer, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                 ctypes.POINTER(real), pointer, ctypes.c_int, pointer, ctypes.c_int,
                                 ctypes.POINTER(real), pointer, ctypes.c_int]  # fmt: skip
            function.restype = ctypes.c_int

    def gemm(self, call: Gemm, first, second, out, stream: int) -> None:
        """Column-major ``out = op(first) op(second)`` on ``stream``: row-major ``out = second @ first``."""
        double = out.dtype.itemsize == 8
        real = ctypes.c_double if double else ctypes.c_float
        function = self.library.cublasDgemm_v2 if double else self.library.cublasSgemm_v2
        _check(self.library.cublasSetStream_v2(self.handle, stream), "cublasSetStream")
        one, zero = real(1.0), real(0.0)
        status = function(
            self.handle, call.op_first, call.op_second, call.m, call.n, call.k, ctypes.byref(one),
            first.data.ptr, call.ld_first, second.data.ptr, call.ld_second, ctypes.byref(zero),
            out.data.ptr, call.ld_out,
        )  # fmt: skip
        _check(status, "cublasDgemm" if double else "cublasSgemm")


_handles: dict[int, Cublas] = {}  # by device: a cuBLAS handle belongs to the device it was made on
_lock = threading.Lock()  # one call at a time on a handle (its stream is set for each call)


def cublas(device: int) -> Cublas:
    """The current device's handle (``device`` its id), made on first use, which is before a
    capture begins (lowering/cupy/graphs.py)."""
    with _lock:
        if device not in _handles:
            _handles[device] = Cublas()
        return _handles[device]


def gemm(call: Gemm, first, second, out, stream: int, device: int) -> None:
    """One cuBLAS product on the current device (replaced by a NumPy emulation in the CuPy test
    double)."""
    handle = cublas(device)
    with _lock:
        handle.gemm(call, first, second, out, stream)


def product(xp, a, b):
    """``a @ b`` for float64 or float32 operands of one or two axes, through cuBLAS on the current
    stream; other shapes and dtypes raise NotImplementedError (the graph is then not kept)."""
    if a.dtype != b.dtype or a.dtype.kind != "f" or a.dtype.itemsize not in (4, 8):
        raise NotImplementedError(f"a recorded product of {a.dtype} and {b.dtype}")
    if not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        raise NotImplementedError(f"a recorded product of shapes {a.shape} and {b.shape}")
    left = a if a.ndim == 2 else a[None, :]
    right = b if b.ndim == 2 else b[:, None]
    left, right = _dense(xp, left), _dense(xp, right)
    call = plan(left.shape, left.flags.c_contiguous, right.shape, right.flags.c_contiguous)
    out = xp.empty((left.shape[0], right.shape[1]), dtype=a.dtype)
    if out.size and left.shape[1]:
        gemm(call, right, left, out, xp.cuda.get_current_stream().ptr, xp.cuda.Device().id)
    elif out.size:
        out[...] = 0
    shape = (*a.shape[:-1], *b.shape[1:]) if b.ndim == 2 else a.shape[:-1]
    return out.reshape(shape)


def _dense(xp, m):
    """``m`` itself where it is C- or F-contiguous, else a C-contiguous copy (a broadcast view)."""
    return m if m.flags.c_contiguous or m.flags.f_contiguous else xp.ascontiguousarray(m)


def _load() -> ctypes.CDLL:
    """The cuBLAS library: by its name, else the one this process has loaded (CuPy's, from a wheel's
    folder that the loader does not search), read from ``/proc/self/maps``."""
    for name in _LIBRARIES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    try:
        with open("/proc/self/maps") as maps:
            loaded = [line.split()[-1] for line in maps if "/libcublas.so" in line]
    except OSError:
        loaded = []
    if loaded:
        return ctypes.CDLL(loaded[0])
    raise OSError(f"no cuBLAS library found as {', '.join(_LIBRARIES)} or loaded in this process")


def _check(status: int, call: str) -> None:
    if status != 0:
        raise RuntimeError(f"{call} returned cuBLAS status {status}")
