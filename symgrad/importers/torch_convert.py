"""PyTorch's values as symgrad's: tensors, dtypes, parameter names; PyTorch imported and kept quiet."""

from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np

from symgrad.errors import OpError


def _identifier(torch_name: str) -> str:
    """A PyTorch parameter name as a formula can show it: ``l1.weight`` -> ``l1_weight``,
    ``0.weight`` (in a Sequential) -> ``layer0_weight``."""
    name = re.sub(r"\W", "_", torch_name)
    return f"layer{name}" if name[0].isdigit() else name


def _numpy(tensor) -> np.ndarray:
    return tensor.detach().cpu().numpy().copy()


def _dtype(torch_dtype) -> np.dtype:
    name = str(torch_dtype).removeprefix("torch.")
    try:
        return np.dtype(name)
    except TypeError:
        raise OpError(
            f"from_torch: PyTorch dtype {torch_dtype} has no NumPy counterpart symgrad computes in"
        ) from None


@contextlib.contextmanager
def _quiet_torch():
    """PyTorch's own notices from inside its tracers are not the user's to act on (some are raised as
    a tracer's with-block ends, from contextlib: an RNN's weights assigned during export)."""
    with warnings.catch_warnings():
        for category in (FutureWarning, DeprecationWarning, UserWarning):
            warnings.filterwarnings("ignore", category=category, module=r"(torch|copyreg|contextlib)")
        yield


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("from_torch needs PyTorch: pip install torch") from None
    return torch
