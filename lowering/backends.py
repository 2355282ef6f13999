"""The backends, chosen by name: the NumPy reference here, every other one in its own folder
(``c/``, ``cupy/``, ``torch/``, ``mindspore/``: its backend class, printer, runtime and build
step). Adding one means adding a folder and one entry in ``BACKENDS``."""

from __future__ import annotations

import numpy as np

from lowering.backend import Backend
from lowering.c.backend import CBackend
from lowering.cupy.backend import CupyBackend
from lowering.mindspore.backend import MindsporeBackend
from lowering.torch.backend import TorchBackend


class NumpyBackend(Backend):
    name = "numpy"
    native_array = np.ndarray
    module = "numpy"
    install_hint = "pip install numpy"
    chunked = True


BACKENDS: dict[str, Backend] = {
    b.name: b for b in (NumpyBackend(), CBackend(), CupyBackend(), TorchBackend(), MindsporeBackend())
}
