"""``jit``, ``jit_class`` and ``mutable``: MindSpore's graph-compilation markers.

In symgrad every differentiated call is already traced into a graph, and compiled
kernels are cached by graph (``lowering.compile_kernel``), so ``jit`` needs no
separate compiler: a jitted function runs as it is, with Python control flow on
tensor values following the values of each call (as MindSpore's PyNative mode does).
It never reuses a trace made for other values, because each call traces afresh.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any


def jit(function: Callable | None = None, **options: Any) -> Callable:
    """Mark ``function`` (or ``construct``) for graph compilation; usable as ``@jit`` or ``@jit(...)``.

    The options MindSpore takes (``mode``, ``jit_config``, ``backend``, ``capture_mode``...)
    are accepted and have no effect.
    """
    if function is None:
        return lambda fn: jit(fn, **options)
    if not callable(function):
        raise TypeError(f"jit: expected a function or Cell, got {type(function).__name__}")

    @functools.wraps(function)
    def jitted(*args, **kwargs):
        out = function(*args, **kwargs)
        # MindSpore's graph compiler evaluates a returned generator expression into a list
        return list(out) if isinstance(out, types.GeneratorType) else out

    jitted.__jit_options__ = options  # type: ignore[attr-defined]
    return jitted


def jit_class(cls: type) -> type:
    """Mark a class whose instances are used inside jitted code; returns it unchanged."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expected a class, got {type(cls).__name__}")
    return cls


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """MindSpore marks a value as variable for graph compilation; symgrad traces every call, so it is the value."""
    return input_data
