"""One pool of threads at a time: BLAS held to one thread while symgrad's OpenMP kernels run.

SciPy's L-BFGS-B and NumPy call OpenBLAS between kernel calls; OpenBLAS's threads then spin for a
while and take the cores the next OpenMP kernel call needs (measured: one loss-and-gradient
evaluation 12.5 ms alone, 32.7 ms inside L-BFGS). threadpoolctl, the well-kept library for exactly
this, limits BLAS for the duration of a training run; without it nothing is limited.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import lowering


@contextlib.contextmanager
def one_pool() -> Iterator[None]:
    """Within the block, BLAS libraries use one thread where the C backend (OpenMP) is in use."""
    if "c" not in lowering.available_backends():
        yield  # NumPy kernels: BLAS's own threads are the pool
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an optional extra ('symgrad[pinn]'); training works without it, slower
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


__all__ = ["one_pool"]
