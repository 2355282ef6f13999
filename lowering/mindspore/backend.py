"""The ``mindspore`` backend: ``mindspore.ops`` code in PyNative mode (Ascend kernels on an Ascend device)."""

from __future__ import annotations

import contextlib
import io
import os
import sys

import numpy as np

from lowering.backend import Backend
from lowering.mindspore.printer import MindsporePrinter


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
        from lowering.mindspore.runtime import MindsporeRuntime

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
