"""The ``torch`` backend: the NumPy program over PyTorch tensors, differentiable by torch."""

from __future__ import annotations

import numpy as np

from lowering.backend import Backend


class TorchBackend(Backend):
    """PyTorch (CPU or CUDA tensors); results stay differentiable by torch's autograd."""

    name = "torch"
    module = "torch"
    install_hint = "pip install torch"

    def namespace(self) -> dict:
        from lowering.torch.runtime import TorchRuntime

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
