"""``context.set_context``: MindSpore's run settings.

symgrad compiles whole graphs in either mode. The one difference is MindSpore's: in
``PYNATIVE_MODE`` (the default, as in MindSpore 2.x) a requested Parameter whose
``requires_grad`` is False when the call ends gets a zero gradient; ``GRAPH_MODE``
differentiates it. ``device_target="GPU"`` uses CuPy when a
GPU is present and otherwise warns once and computes on the CPU; ``"Ascend"``
likewise falls back to the CPU.
"""

from __future__ import annotations

import warnings

from symgrad.parallel_context import (  # noqa: F401 - MindFlow imports them from mindspore.context
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)

GRAPH_MODE = 0
PYNATIVE_MODE = 1
_TARGETS = ("CPU", "GPU", "Ascend")

_settings: dict = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0}
_warned: set[str] = set()


def gpu_available() -> bool:
    """True when CuPy is installed and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def set_context(**kwargs) -> None:
    """Set ``mode``, ``device_target``, ``device_id`` (other MindSpore keys are accepted)."""
    mode = kwargs.get("mode", _settings["mode"])
    if mode not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), got {mode!r}")
    target = kwargs.get("device_target", _settings["device_target"])
    if target not in _TARGETS:
        raise ValueError(f"set_context: device_target must be one of {_TARGETS}, got {target!r}")
    _settings.update(kwargs)
    if target == "GPU" and not gpu_available() and "GPU" not in _warned:
        _warned.add("GPU")
        warnings.warn(
            "set_context(device_target='GPU'): no CUDA GPU with CuPy found; computing on the CPU",
            RuntimeWarning,
            stacklevel=2,
        )
    if target == "Ascend" and "Ascend" not in _warned:
        _warned.add("Ascend")
        warnings.warn(
            "set_context(device_target='Ascend'): symgrad evaluates on the CPU here; "
            "use the MindSpore lowering to run on Ascend",
            RuntimeWarning,
            stacklevel=2,
        )


def get_context(key: str):
    """The value of one setting."""
    if key not in _settings:
        raise ValueError(f"get_context: unknown key {key!r}; known: {sorted(_settings)}")
    return _settings[key]


def backend_name() -> str:
    """The lowering backend evaluation uses under the current settings."""
    return "cupy" if _settings["device_target"] == "GPU" and gpu_available() else "numpy"
