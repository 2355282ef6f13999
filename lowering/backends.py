"""The backends, chosen by name. Adding one means adding one class here."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import numpy as np

from lowering.runtime import ArrayRuntime


class Backend:
    """How one array library runs a printed program."""

    name: str = ""
    module: str = ""
    template_key: str = "numpy"
    install_hint: str = ""

    def available(self) -> bool:
        return importlib.util.find_spec(self.module) is not None

    def xp(self) -> ModuleType:
        return importlib.import_module(self.module)

    def namespace(self) -> dict:
        """Globals of the generated function."""
        xp = self.xp()
        return {"np": xp, "xp": xp, "rt": ArrayRuntime(xp)}

    def asarray(self, value):
        return self.xp().asarray(value)

    def to_numpy(self, value) -> np.ndarray:
        return np.asarray(value)


class NumpyBackend(Backend):
    name = "numpy"
    module = "numpy"
    install_hint = "pip install numpy"


class CupyBackend(Backend):
    """CuPy runs the same program with ``np`` bound to ``cupy`` (one launch per op)."""

    name = "cupy"
    module = "cupy"
    install_hint = "pip install 'symgrad[cupy]' (needs an NVIDIA GPU and CUDA)"

    def to_numpy(self, value) -> np.ndarray:
        return self.xp().asnumpy(value)


BACKENDS: dict[str, Backend] = {b.name: b for b in (NumpyBackend(), CupyBackend())}
