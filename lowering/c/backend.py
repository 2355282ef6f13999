"""The ``c`` backend: the whole per-point program compiled by the system C compiler."""

from __future__ import annotations

import numpy as np

from lowering.backend import Backend


class CBackend(Backend):
    """The whole per-point program compiled by the system C compiler, one OpenMP loop over points."""

    name = "c"
    native_array = np.ndarray
    array_intermediates = False
    module = "numpy"
    install_hint = "install a C compiler (gcc or clang; or set CC)"
    chunked = True

    def available(self) -> bool:
        """A compiler is there, or compiled libraries are cached (they load without one)."""
        from lowering.c import library_cache
        from lowering.c.build import find_compiler

        return find_compiler() is not None or library_cache.has_libraries()

    def hint(self) -> str:
        from lowering.c.build import CompilerError, compiler

        try:
            compiler()
        except CompilerError as exc:
            return f"{exc}; {self.install_hint}"
        return self.install_hint

    def build(self, outputs, args, reductions):
        """The compiled function and its readable program (the C source)."""
        from lowering.c.build import NativeFunction

        # where a kernel cannot run compiled (a forked child): the NumPy program over NumPy
        function = NativeFunction(
            outputs, args, reductions, lambda: super(CBackend, self).build(outputs, args, reductions)
        )
        return function.program, function
