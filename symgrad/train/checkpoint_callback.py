"""MindSpore's ``ModelCheckpoint`` and ``CheckpointConfig``: checkpoints saved while ``Model.train``
runs, named, counted and pruned as MindSpore 2.10 does.

A checkpoint is written every ``save_checkpoint_steps`` steps (or ``save_checkpoint_seconds``) and at
the end, as ``{prefix}-{epoch}_{step in epoch}.ckpt`` in ``directory`` (MindSpore's file format, by
``symgrad.save_checkpoint``, atomically); past ``keep_checkpoint_max`` files the oldest is removed.
A prefix already used in the directory becomes ``{prefix}_1``, ``{prefix}_2``, ... as MindSpore's.
"""

from __future__ import annotations

import os
import time

from symgrad.serialization import save_checkpoint
from symgrad.train.callback import Callback, RunContext


def _whole(value, name: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"For 'CheckpointConfig', '{name}' must be an int >= {low}, but got {value!r}.")
    return value


class CheckpointConfig:
    """When and how many checkpoints ``ModelCheckpoint`` keeps (MindSpore's arguments; the
    encryption, async and parallel ones are accepted and have nothing to do on one CPU)."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, crc_check=False,
                 remove_redundancy=False, format="ckpt", **kwargs):  # noqa: A002 - MindSpore's name  # fmt: skip
        self.save_checkpoint_steps = _whole(save_checkpoint_steps, "save_checkpoint_steps")
        self.save_checkpoint_seconds = _whole(save_checkpoint_seconds, "save_checkpoint_seconds")
        self.keep_checkpoint_max = _whole(keep_checkpoint_max, "keep_checkpoint_max")
        self.keep_checkpoint_per_n_minutes = _whole(
            keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes"
        )
        if not self.save_checkpoint_steps and not self.save_checkpoint_seconds:
            raise ValueError(
                "For 'CheckpointConfig', save_checkpoint_steps and save_checkpoint_seconds cannot both be 0."
            )
        if format != "ckpt":
            raise ValueError(f"For 'CheckpointConfig', format {format!r} is not supported; 'ckpt' is")
        self.saved_network, self.format, self.crc_check = saved_network, format, crc_check
        self.append_dict = {k: 0 for k in append_info or [] if k in ("epoch_num", "step_num")}


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix='CKP', directory=None, config=None)``: a ``Model.train`` callback that
    saves the training network's Parameters (``config.saved_network``'s where given)."""

    def __init__(self, prefix: str = "CKP", directory=None, config: CheckpointConfig | None = None):
        if not isinstance(prefix, str) or "/" in prefix or not prefix:
            raise ValueError(
                f"For 'ModelCheckpoint', the argument 'prefix' must be a string without '/', but got {prefix!r}."
            )
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(
                f"For 'ModelCheckpoint', 'config' must be a CheckpointConfig, but got {type(config).__name__}."
            )
        self._config = config or CheckpointConfig()
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._prefix = _unused_prefix(self._directory, prefix)
        self._last_step, self._last_time = 0, time.time()
        self._latest_ckpt_file_name: str | None = None

    @property
    def latest_ckpt_file_name(self) -> str | None:
        return self._latest_ckpt_file_name

    def step_end(self, run_context: RunContext) -> None:
        self._save(run_context.original_args(), force=False)

    def end(self, run_context: RunContext) -> None:
        self._save(run_context.original_args(), force=True)

    def _due(self, params, force: bool) -> bool:
        config = self._config
        if config.save_checkpoint_steps:
            return force or params.cur_step_num >= self._last_step + config.save_checkpoint_steps
        if force or time.time() - self._last_time > config.save_checkpoint_seconds:
            self._last_time = time.time()
            return True
        return False

    def _save(self, params, force: bool) -> None:
        if params.cur_step_num == self._last_step or not self._due(params, force):
            return
        in_epoch = (params.cur_step_num - 1) % params.batch_num + 1
        path = os.path.join(self._directory, f"{self._prefix}-{params.cur_epoch_num}_{in_epoch}.ckpt")
        kept = _checkpoints(self._directory, self._prefix)
        if self._config.keep_checkpoint_max and len(kept) >= self._config.keep_checkpoint_max:
            os.remove(kept[0])  # the oldest
        append = dict(self._config.append_dict)
        if "epoch_num" in append:
            append["epoch_num"] = params.cur_epoch_num
        if "step_num" in append:
            append["step_num"] = params.cur_step_num
        network = (
            self._config.saved_network if self._config.saved_network is not None else params.train_network
        )
        save_checkpoint(network, path, append_dict=append or None)
        self._last_step, self._latest_ckpt_file_name = params.cur_step_num, path


def _checkpoints(directory: str, prefix: str) -> list[str]:
    """The directory's ``{prefix}-<digits and _>.ckpt`` files, oldest first."""
    found = []
    for name in os.listdir(directory):
        middle = name[len(prefix) : -len(".ckpt")]
        if name.startswith(prefix + "-") and name.endswith(".ckpt") and not any(c.isalpha() for c in middle):
            path = os.path.join(directory, name)
            found.append((os.stat(path).st_mtime_ns, name, path))
    return [path for _, _, path in sorted(found)]


def _unused_prefix(directory: str, prefix: str) -> str:
    """``prefix``, or ``prefix_N`` past the largest N already used by a checkpoint there (MindSpore's rule)."""
    suffix = 0
    for name in os.listdir(directory):
        if not name.endswith(".ckpt") or not name.startswith(prefix) or len(name) <= len(prefix):
            continue
        if name[len(prefix)].isalpha():
            continue
        dash = name[len(prefix) :].find("-")
        if dash == 0:
            suffix = max(suffix, 1)
        elif dash > 0 and name[len(prefix) + 1 : len(prefix) + dash].isdigit():
            suffix = max(suffix, int(name[len(prefix) + 1 : len(prefix) + dash]) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


__all__ = ["CheckpointConfig", "ModelCheckpoint"]
