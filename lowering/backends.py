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
    module = "numpy"
    install_hint = "pip install numpy"


class CupyBackend(Backend):
    """CuPy runs the same program with ``np`` bound to ``cupy`` (one launch per op)."""

    name = "cupy"
    module = "cupy"
    install_hint = "pip install 'symgrad[cupy]' (needs an NVIDIA GPU and CUDA)"

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


BACKENDS: dict[str, Backend] = {b.name: b for b in (NumpyBackend(), CupyBackend(), TorchBackend())}
