"""MindSpore's top-level helpers for running a script: ``set_device``, ``data_sink``, the parallel
context (from ``parallel_context``) and ``lazy_inline``.

symgrad computes where ``context`` says (the CPU, or CuPy for a GPU), so these keep MindSpore's
signatures and checks and run the work on that device. The parallel context is what MindSpore 2.10
keeps on one device without ``communication.init()``: the settings are checked, stored and read
back, and nothing runs in parallel (the group has one member; ``nn.DistributedGradReducer`` reads
``gradients_mean``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import numpy as np

from symgrad import context
from symgrad.parallel_context import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from symgrad.tensor import Tensor

_TARGETS = ("CPU", "GPU", "Ascend")


def set_device(device_target: str, device_id: int | None = None) -> None:
    """``set_context(device_target=..., device_id=...)`` with MindSpore's checks."""
    if device_target not in _TARGETS:
        raise ValueError(
            f"The argument 'device_target' must be one of {list(_TARGETS)}, but got {device_target}."
        )
    device_id = 0 if device_id is None else device_id
    if device_id < 0:
        raise ValueError("The device id must bigger than or equal to 0.")
    context.set_context(device_target=device_target, device_id=device_id)


def _batches(dataset) -> Iterator[tuple]:
    """One pass over ``dataset``: a MindSpore dataset (``create_tuple_iterator``) or any iterable of
    batches (a tuple of arrays or Tensors each; a single array is a batch of one)."""
    items = dataset.create_tuple_iterator() if hasattr(dataset, "create_tuple_iterator") else iter(dataset)
    for item in items:
        batch = tuple(item) if isinstance(item, tuple | list) else (item,)
        yield tuple(b if isinstance(b, Tensor) or not isinstance(b, np.ndarray) else Tensor(b) for b in batch)


def data_sink(fn: Callable, dataset, sink_size: int = 1, jit_config=None, input_signature=None) -> Callable:
    """A function of no arguments that feeds ``fn`` the dataset's next ``sink_size`` batches (the
    dataset restarts when it ends) and returns the last result, as MindSpore's ``data_sink``.

    MindSpore runs it on Ascend or GPU only; symgrad runs it wherever it computes.
    ``jit_config`` and ``input_signature`` are accepted and not needed.
    """
    if isinstance(sink_size, bool) or not isinstance(sink_size, int):
        raise TypeError(f"For 'Data sink', the 'sink_size' must be int, but got {type(sink_size).__name__}.")
    if sink_size <= 0:
        raise ValueError(f"The 'sink_size' must be positive, but got sink_size {sink_size}.")
    state: dict = {"it": _batches(dataset)}

    def next_batch() -> tuple:
        try:
            return next(state["it"])
        except StopIteration:
            state["it"] = _batches(dataset)
            try:
                return next(state["it"])
            except StopIteration:
                raise ValueError("data_sink: the dataset yields no batch") from None

    @functools.wraps(fn)
    def sink_process(*args, **kwargs):
        out = None
        for _ in range(sink_size):
            out = fn(*next_batch())
        return out

    return sink_process


def lazy_inline(fn=None, attrs=None, policy=None):
    """MindSpore's decorator of a Cell's ``__init__`` that compiles its graph once for every instance
    (a graph-compile option); symgrad returns ``fn`` unchanged (``@lazy_inline`` or ``@lazy_inline(...)``)."""
    if fn is None:
        return lambda f: f
    return fn


__all__ = [
    "ParallelMode",
    "data_sink",
    "get_auto_parallel_context",
    "lazy_inline",
    "reset_auto_parallel_context",
    "set_auto_parallel_context",
    "set_device",
]
