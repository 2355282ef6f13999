"""lowering: symgrad graphs become vectorized kernels (NumPy, C, CuPy, PyTorch, MindSpore).

See ``lowering/README.md`` for how a graph flows through a backend.

>>> import lowering
>>> lowering.available_backends()[0]
'numpy'
"""

from __future__ import annotations

from collections.abc import Sequence

from lowering.backends import BACKENDS
from lowering.kernel import Kernel
from symgrad.core.graph import Node, Var, free_vars
from symgrad.errors import SymgradError


class BackendError(SymgradError, ValueError):
    """An unknown or uninstalled backend was asked for."""


def backends() -> list[str]:
    """Every backend symgrad knows, installed or not."""
    return list(BACKENDS)


def available_backends() -> list[str]:
    """The backends that can run on this machine now."""
    return [name for name, b in BACKENDS.items() if b.available()]


def compile_kernel(
    outputs: Sequence[Node],
    args: Sequence[Var] | None = None,
    backend: str = "numpy",
    reductions: Sequence[str | None] | None = None,
) -> Kernel:
    """One kernel computing all ``outputs`` from ``args`` (default: their free variables).

    ``reductions`` gives, per output, None (one value per point), ``"sum"`` or ``"mean"``
    (reduced over the batch axes inside the kernel).
    """
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; known backends: {', '.join(BACKENDS)}")
    chosen = BACKENDS[backend]
    if not chosen.available():
        raise BackendError(
            f"backend {backend!r} is not installed (or not working) here; available: "
            f"{', '.join(available_backends())}. Install it with: {chosen.hint()}"
        )
    outputs = list(outputs)
    args = free_vars(outputs) if args is None else list(args)
    return Kernel(outputs, args, chosen, reductions)


__all__ = ["Kernel", "BackendError", "backends", "available_backends", "compile_kernel"]
