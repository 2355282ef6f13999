"""Compiled kernels: callables with readable source, cached by source text."""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from lowering.backend import Backend
from lowering.backends import BACKENDS
from lowering.batch_sums import point_bytes
from lowering.chunks import in_chunks
from symgrad.core.graph import Node, Var
from symgrad.errors import OpError

CHUNK = 32768  # default points per chunk of a NumPy kernel (measured: bench/RESULTS.md)
CHUNK_BYTES = 2**30  # and at most this much intermediate data per chunk (wide values: a Laplacian's G)


class Kernel:
    """Evaluates several outputs of one graph together over arrays of points.

    Arguments describe one point; arrays with extra leading axes are evaluated for
    every point at once, broadcasting those batch axes.
    """

    def __init__(
        self,
        outputs: Sequence[Node],
        args: Sequence[Var],
        backend: Backend,
        reductions: Sequence[str | None] | None = None,
    ):
        self.backend = backend.name
        self._backend = backend
        self._args = list(args)
        self._outputs = list(outputs)
        self.reductions = list(reductions) if reductions is not None else [None] * len(self._outputs)
        for r in self.reductions:
            if r not in (None, "sum", "mean"):
                raise ValueError(f"kernel: reduction must be None, 'sum' or 'mean', got {r!r}")
        self._program, self._fn = backend.build(self._outputs, self._args, self.reductions)
        # points per chunk on NumPy and C (bounds memory); None runs all at once
        self.chunk = CHUNK
        if backend.array_intermediates:
            per_point = point_bytes(self._outputs, self.reductions)
            self.chunk = max(1, min(CHUNK, CHUNK_BYTES // per_point))

    def __reduce__(self):
        """Pickled as its graph and backend name and rebuilt on load (a Dask worker compiles its own copy;
        C kernels come from the worker's kernel cache when it has one)."""
        return (_rebuild, (self._outputs, self._args, self.backend, self.reductions, self.chunk))

    @property
    def source(self) -> str:
        """The generated source: Python for NumPy, PyTorch and MindSpore, C for ``c``, CUDA for ``cupy``."""
        return self._program.source

    @property
    def arg_names(self) -> list[str]:
        return list(self._program.arg_names)

    @property
    def op_count(self) -> int:
        """Array operations per call (after sharing common subexpressions)."""
        return self._program.op_count

    def __call__(self, *arrays):
        if len(arrays) != len(self._args):
            raise TypeError(
                f"kernel takes {len(self._args)} arrays ({', '.join(self.arg_names)}), got {len(arrays)}"
            )
        backend = self._backend
        values = [
            self._conform(name, var, a) for name, var, a in zip(self._program.arg_names, self._args, arrays)
        ]
        batch = self._batch_shape(values)
        with self._warnings_named():
            if backend.chunked and self.chunk and math.prod(batch) > self.chunk:
                out = in_chunks(
                    self._fn, self._args, self._outputs, self.reductions,
                    values, self._program.consts, batch, self.chunk, np,
                )  # fmt: skip
            else:
                out = self._fn(*values, self._program.consts, batch)
        like = next((v for v in values if backend.is_float(v)), None)
        results = []
        count = math.prod(batch)
        for value, node, reduction in zip(out, self._outputs, self.reductions):
            # a weakly typed result (a Python number) takes the dtype of the float inputs; a typed one
            # keeps its own (raised to the data's precision), even where weakly typed arrays (broadcast
            # numbers) were computed in float64
            native = type(value) is backend.native_array  # taken as it is unless a weak type must follow
            if not native or (node.dtype is None and like is not None and value.dtype != like.dtype):
                value = backend.asarray_like(value, like if node.dtype is None else None)
            got = value.dtype if type(value) is np.ndarray else _numpy_dtype(value)
            # (never "got in (None, ...)": np.dtype("float64") == None is True)
            if (
                node.dtype is not None
                and got is not None
                and got != node.dtype
                and got.kind == node.dtype.kind == "f"
            ):
                # rare (weakly typed arrays met a typed graph), so the data's dtypes are read only here
                data = [d for d in map(_numpy_dtype, values) if d is not None and d.kind == "f"]
                wanted = np.result_type(node.dtype, *data)
                if got != wanted:
                    value = backend.astype(value, wanted)
            if reduction == "mean":
                value = value / count
            full = (batch if reduction is None else ()) + node.shape
            if tuple(value.shape) != full:
                value = backend.broadcast_copy(value, full)
            results.append(value)
        return tuple(results)

    def fixed_call(self, *arrays) -> Callable[..., tuple]:
        """A call for arrays with the shapes and dtypes of ``arrays`` and no batch axes, the checks
        and the handling of each result worked out once (a jitted training step calls one kernel
        thousands of times with the same shapes). Other backends and batched calls get ``self``."""
        values = [self._conform(n, v, a) for n, v, a in zip(self._program.arg_names, self._args, arrays)]
        if self._backend.native_array is not np.ndarray or any(self.reductions) or self._batch_shape(values):
            return self
        fn, consts = self._fn, self._program.consts
        with self._warnings_named():
            raw = fn(*values, consts, ())
        fixes = [
            None
            if type(r) is np.ndarray and r.dtype == f.dtype and r.shape == f.shape
            else (f.dtype, f.shape)
            for r, f in zip(raw, self(*values))
        ]

        def call(*arrays) -> tuple:
            out = fn(*arrays, consts, ())
            return tuple(
                o if fix is None else np.broadcast_to(np.asarray(o, fix[0]), fix[1]).copy()
                for o, fix in zip(out, fixes)
            )

        return call

    @contextlib.contextmanager
    def _warnings_named(self):
        """Warnings raised inside the generated program name the op and the formula they come from."""
        lines = self._program.lines
        if not lines:
            yield
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        for w in caught:
            if w.filename.startswith("<symgrad") and w.lineno in lines:
                text = f"{w.message} in {lines[w.lineno]} (line {w.lineno} of the kernel's source)"
                warnings.warn(text, w.category, stacklevel=4)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    def _conform(self, name: str, var: Var, data):
        """``data`` as this backend's array in the variable's dtype, or a TypeError saying why not.

        Float data of lower precision than the variable is cast up to it, float data of higher
        precision is kept (the kernel computes in the promotion of the two, on every backend);
        integer and bool data are cast with a warning; complex, object and text data are
        refused (the imaginary part would be dropped).
        """
        if type(data) is self._backend.native_array and getattr(data, "dtype", None) == var.dtype:
            return data  # the common case, checked first: every call passes through here
        expected = f"an array of {var.dtype} with shape {var.shape} (plus any leading batch axes)"
        if data is None:
            raise TypeError(f"kernel argument {name!r} is None; pass {expected}")
        kind = _numpy_kind(data)
        if kind is not None and kind not in "biuf":
            raise TypeError(
                f"kernel argument {name!r} has dtype {np.asarray(data).dtype}, which symgrad kernels do not "
                f"compute with (complex, object or text data); pass {expected}"
            )
        value = self._backend.asarray(data)
        if var.dtype.kind != "f" or kind is None:
            return value
        if kind in "biu":
            warnings.warn(
                f"kernel argument {name!r} has {'bool' if kind == 'b' else 'integer'} dtype {value.dtype}; "
                f"cast to {var.dtype} (pass floating-point data to avoid this)",
                UserWarning,
                stacklevel=3,
            )
        given = _numpy_dtype(data)
        assert given is not None  # kind is not None
        if kind in "biu" or np.promote_types(given, var.dtype) != given:
            return self._backend.astype(value, var.dtype)  # up to the variable's precision, never down
        return value

    def _batch_shape(self, values) -> tuple[int, ...]:
        leading = []
        for var, name, value in zip(self._args, self.arg_names, values):
            rank = var.ndim
            if value.ndim < rank or tuple(value.shape[value.ndim - rank :]) != var.shape:
                raise OpError(
                    f"kernel argument {name!r} must have shape {var.shape} "
                    f"(optionally with leading batch axes), got {tuple(value.shape)}"
                )
            leading.append(tuple(value.shape[: value.ndim - rank]))
        distinct = set(leading) - {()}
        if len(distinct) <= 1:  # the common case, without NumPy's general rule
            return distinct.pop() if distinct else ()
        try:
            return tuple(np.broadcast_shapes(*leading))
        except ValueError:
            raise OpError(f"kernel arguments have batch shapes {leading} that do not broadcast") from None


def _rebuild(outputs, args, backend_name: str, reductions, chunk) -> Kernel:
    kernel = Kernel(outputs, args, BACKENDS[backend_name], reductions)
    kernel.chunk = chunk
    return kernel


def _numpy_dtype(data) -> np.dtype | None:
    """The NumPy dtype of ``data`` (NumPy or CuPy arrays, numbers, lists), or None for another library's."""
    dtype = getattr(data, "dtype", None)
    if dtype is None:
        return np.asarray(data).dtype
    try:
        return np.dtype(dtype)
    except TypeError:  # a torch or MindSpore dtype
        return None


def _numpy_kind(data) -> str | None:
    """The NumPy dtype kind of ``data`` ("f", "i", "c", ...), or None for another library's array."""
    dtype = _numpy_dtype(data)
    return None if dtype is None else dtype.kind
