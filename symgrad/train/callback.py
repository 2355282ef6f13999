"""MindSpore's training callbacks: ``Callback`` (the ``on_train_*``/``on_eval_*`` hooks, which call the
older ``begin``/``epoch_end``/``step_end`` names by default), ``RunContext``, ``LossMonitor`` and
``TimeMonitor``."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np

from symgrad.tensor import Tensor


class RunContext:
    """What a callback receives: ``original_args()`` (the run's parameters) and ``request_stop()``."""

    def __init__(self, params: SimpleNamespace):
        self._params = params
        self._stop = False

    def original_args(self) -> SimpleNamespace:
        return self._params

    def request_stop(self) -> None:
        self._stop = True

    def get_stop_requested(self) -> bool:
        return self._stop


class Callback:
    """Hooks called by ``Model.train``/``Model.eval``; each ``on_*`` hook calls MindSpore 1.x's name."""

    def begin(self, run_context: RunContext) -> None: ...
    def epoch_begin(self, run_context: RunContext) -> None: ...
    def epoch_end(self, run_context: RunContext) -> None: ...
    def step_begin(self, run_context: RunContext) -> None: ...
    def step_end(self, run_context: RunContext) -> None: ...
    def end(self, run_context: RunContext) -> None: ...

    def on_train_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        self.end(run_context)

    def on_eval_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        self.end(run_context)


def scalar_loss(outputs) -> float:
    """The loss a step returned (the first output when it returned several), as a float."""
    if isinstance(outputs, tuple | list) and outputs and isinstance(outputs[0], Tensor):
        outputs = outputs[0]
    value = outputs.asnumpy() if isinstance(outputs, Tensor) else np.asarray(outputs)
    return float(np.mean(value))


class LossMonitor(Callback):
    """Prints ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (S counted within the
    epoch), as MindSpore's; a NaN or infinite loss stops with ValueError."""

    def __init__(self, per_print_times: int = 1):
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_step_end(self, run_context: RunContext) -> None:
        p = run_context.original_args()
        loss = scalar_loss(p.net_outputs)
        step_in_epoch = (p.cur_step_num - 1) % p.batch_num + 1
        if not np.isfinite(loss):
            raise ValueError(
                f"epoch: {p.cur_epoch_num} step: {step_in_epoch}. Invalid loss, terminating training."
            )
        if self._per_print_times and p.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = p.cur_step_num
            print(f"epoch: {p.cur_epoch_num} step: {step_in_epoch}, loss is {loss}", flush=True)


__all__ = ["Callback", "LossMonitor", "RunContext"]


class TimeMonitor(Callback):
    """Prints ``Train epoch time: T ms, per step time: S ms`` at each epoch's end, as MindSpore's
    (``data_size``: the steps per epoch where the run does not say; ``data_time`` adds the time
    spent between steps, reading data, ``(data time: D ms)``)."""

    def __init__(self, data_size: int | None = None, data_time: bool = False):
        if not isinstance(data_time, bool):
            raise TypeError(f"TimeMonitor: data_time must be a bool, got {data_time!r}")
        if data_size is not None and (
            isinstance(data_size, bool) or not isinstance(data_size, int) or data_size < 1
        ):
            raise ValueError(f"TimeMonitor: data_size must be a positive int, got {data_size!r}")
        self.data_size, self.data_time = data_size, data_time
        self._epoch_start = self._data_start = time.time()
        self._data_sum = 0.0

    def epoch_begin(self, run_context: RunContext) -> None:
        self._epoch_start = self._data_start = time.time()
        self._data_sum = 0.0

    def step_begin(self, run_context: RunContext) -> None:
        if self.data_time:
            self._data_sum += time.time() - self._data_start

    def step_end(self, run_context: RunContext) -> None:
        if self.data_time:
            self._data_start = time.time()

    def epoch_end(self, run_context: RunContext) -> None:
        epoch_ms = (time.time() - self._epoch_start) * 1000
        params = run_context.original_args()
        steps = getattr(params, "batch_num", None) or self.data_size
        if not isinstance(steps, int) or steps < 1:
            raise ValueError("TimeMonitor: the steps per epoch are unknown; pass data_size")
        line = f"{getattr(params, 'mode', '').title()} epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms"
        if self.data_time:
            line += f" (data time: {self._data_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
